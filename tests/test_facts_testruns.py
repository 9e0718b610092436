"""One owner for "this command runs tests" (debt32, row 1450): the earlier summary's due tests
(local_priordone), the test kind of a contradicted claim (local_contradicted) and the checks of
section 7 (local_unresolved) each kept their own list; each now accepts what the others did."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from compactor.facts import Call
from compactor.facts.testruns import TEST_RUN_WORDS, is_test_run
from compactor.models import local_contradicted, local_priordone, local_unresolved
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_fix27d import _earlier_summary
from .test_models_local_session import section

RUNS = [
    # local_priordone's former list
    "pytest -q",
    "cd /w && python -m pytest tests/test_mx.py -q",
    "py.test tests",
    "python -m unittest discover -s tests",
    "tox -e py312",
    "nox -s tests",
    "ctest --output-on-failure",
    "make check",
    "make test",
    "npm test",
    "pnpm run test",
    "bun test",
    "cargo test",
    "go test ./...",
    "dotnet test",
    "mix test",
    "deno test",
    "python3 tests/run_tests.py",
    "jest --ci",
    "npx vitest run",
    "mocha",
    "bundle exec rspec",
    "vendor/bin/phpunit",
    # local_contradicted's former list
    "npx playwright test",
    "swift test",
    "mvn -q test",
    "./gradlew test",
    "gradle test",
    "make -C build test",
    "npm run test:unit",
    # local_unresolved's former list (a test word where a command starts)
    "pnpm --filter web test",
    "yarn test",
    "./scripts/test",
    # how agents wrap them
    "CI=1 npm test",
    "timeout 300 .venv/bin/pytest -x",
    "uv run pytest",
    "bash -lc 'cd /w && pytest -q'",
    "cd web && npm test 2>&1 | tail -20",
]
NOT_RUNS = [
    "ls tests/",
    "cat test_x.py",
    "git add tests",
    "echo pytest",
    "npm install --save-dev jest",
    "test -f setup.cfg && echo yes",
    "grep -rn pytest pyproject.toml",
    "rm -rf .pytest_cache",
    "git commit -m 'fix the tests'",
    "cat pytest.ini",
    "pip install pytest",
]


def _call(command: str) -> Call:
    return Call("c1", "Bash", json.dumps({"command": command}), 3)


_TEST_KIND = next(n for n, k in enumerate(local_contradicted._KINDS) if k[0] == "test")


def _contradicted(command: str) -> bool:
    return local_contradicted._of_kind(_call(command), _TEST_KIND)


def _unresolved(command: str) -> bool:
    return local_unresolved._is_check(f"Bash: {command}")


RECOGNISERS: dict[str, Callable[[str], bool]] = {
    "facts.testruns": is_test_run,
    "local_contradicted": _contradicted,
    "local_unresolved": _unresolved,
}


@pytest.mark.parametrize("name", RECOGNISERS)
@pytest.mark.parametrize("command", RUNS)
def test_every_recogniser_accepts_a_test_run_any_list_had(name: str, command: str) -> None:
    assert RECOGNISERS[name](command), (name, command)


@pytest.mark.parametrize("name", RECOGNISERS)
@pytest.mark.parametrize("command", NOT_RUNS)
def test_no_recogniser_takes_a_command_that_only_names_tests(name: str, command: str) -> None:
    assert not RECOGNISERS[name](command), (name, command)


def test_the_earlier_summarys_due_tests_ask_the_one_owner() -> None:
    assert vars(local_priordone)["is_test_run"] is is_test_run
    assert not hasattr(local_priordone, "_TEST_RUN_RE")


@pytest.mark.parametrize("command", RUNS)
def test_every_test_run_holds_a_prefilter_word(command: str) -> None:
    assert any(w in command.lower() for w in TEST_RUN_WORDS), command


# -- each former caller now takes what only another list had (each fails on main) -------------


def test_tests_due_in_an_earlier_summary_rerun_with_maven_are_said_done() -> None:
    from compactor.formats.registry import read_transcript

    from .cc_session import Session

    s = Session()
    s.compacted(_earlier_summary())
    s.user("re-run the tests")
    s.bash("cd /w/quant && mvn -q test", "Tests run: 16, Failures: 0, Errors: 0")
    s.assistant([{"type": "text", "text": "All 16 tests pass again."}])
    messages = read_transcript("s.jsonl", b"\n".join(s.lines()) + b"\n").messages
    text = summarize_transcript(list(messages))  # type: ignore[arg-type]
    assert "tests re-run since: `cd /w/quant && mvn -q test` (ran)" in section(text, 7), text


def test_a_tests_pass_claim_a_later_failed_tox_run_contradicts_is_labelled() -> None:
    s = SessionBuilder()
    s.user("fix the parser and run the tests")
    s.call("Bash", {"command": "tox -e py312"}, "16 passed")
    s.say("All 16 tests pass after switching the parser to the new tokenizer.")
    s.user("now add the csv reader")
    s.call("Write", {"file_path": "/w/csv.py", "content": "import csv\n"}, "File created")
    s.call(
        "Bash", {"command": "tox -e py312"}, "FAILED test_csv.py::test_read\n1 failed", error=True
    )
    s.say("The csv reader is written.")
    solving = section(summarize_transcript(s.messages), 5)
    claim = next(x for x in solving.splitlines() if "All 16 tests pass" in x)
    assert "(contradicted later: `Bash: tox -e py312` failed" in claim, solving


def test_a_ctest_run_that_failed_before_any_change_is_still_to_fix() -> None:
    s = SessionBuilder()
    s.user("Make the unit tests pass.")
    s.call(
        "Bash",
        {"command": "ctest --output-on-failure"},
        "The following tests FAILED:\n\t  3 - parser_test (Failed)\nErrors while running CTest",
        error=True,
    )
    s.say("The parser test fails on the empty input. Let me look at it.")
    s.call("Read", {"file_path": "tests/parser_test.cpp"}, None)
    still = "Still to fix, as this check reported before any change (run it again when done): "
    assert still + "`Bash: ctest --output-on-failure`" in section(
        summarize_transcript(s.messages), 7
    )

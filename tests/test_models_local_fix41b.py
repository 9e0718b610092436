"""Blind checks 41 and 42 (fix41b): what section 4 links to a failure.

* 41 W3: "Worked around by" never names a help or usage call (``x.ps1 -Help``, ``--help``, output
  starting "Usage:"); the later run that did the work is the workaround;
* 41 W8: "Fixed: a later …" needs a tie to the failed command (the same command up to options
  and parts, a shared path, search term or package), not only its program and an ``echo "=== …
  ==="`` banner; far later, only the same command or a shared target ties;
* 42 W2: a later call that only deleted things (``rmtree`` of a half-made ``.venv``) or listed
  is no workaround of a failed install, venv creation or test run; nothing did: it stays open;
* 41 W9: a "skip" sentence sets a failure aside only when it names the failed call (or its
  error) or came right after it, and not when the skip word is inside quotes.

Every session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import Call
from compactor.models.local import summarize_transcript
from compactor.models.local_standin import is_help_call, only_cleans, tied

from .codex_rollout import codex_say, codex_summary, codex_user
from .planted_session import SessionBuilder
from .test_models_local_fix35a import _shell
from .test_models_local_session import section


def _call(command: str) -> Call:
    return Call("c1", "Bash", json.dumps({"command": command}), 0)


def _errors(text: str) -> str:
    return text.split("4. Errors", 1)[1].split("5. Problem", 1)[0]


# -- 1950: a help call is no workaround (41 W3) -------------------------------------------------

_SCRIPT = ".kit\\scripts\\powershell\\new-feature.ps1"


def _feature_records() -> list[dict[str, Any]]:
    records = [codex_user("/kit.specify 測試郵件推送流程")]
    records += _shell(0, f'{_SCRIPT} -Json "測試郵件推送流程"', 1, "Error: description missing")
    records += _shell(
        1, f'& {_SCRIPT} -Json -Description "測試"', 1,
        "A parameter cannot be found that matches parameter name 'Description'.",
    )  # fmt: skip
    records += _shell(2, f"{_SCRIPT} -Help", 0, "Usage: ./new-feature.ps1 [-Json] <description>")
    records += _shell(
        3, f'pwsh -NoProfile -File {_SCRIPT} -Json "x"', 1, "'pwsh' is not recognized"
    )
    records += _shell(
        4, f"{_SCRIPT} Mail test -Json", 0,
        "Switched to a new branch '007-mail-test'\n"
        '{"SPEC_FILE":"C:/w/orchard/specs/007-mail-test/spec.md"}',
    )  # fmt: skip
    records.append(codex_say("Branch 007-mail-test is made; writing the spec."))
    return records


def test_a_help_call_is_no_workaround_of_a_failed_script_run(tmp_path: Path) -> None:
    errors = _errors(codex_summary(_feature_records(), tmp_path, "s41b", "C:/w/orchard"))
    assert "Worked around" in errors, errors
    assert "-Help`" not in errors.split("pwsh -NoProfile")[0], errors  # no failure names it
    assert errors.count("new-feature.ps1 Mail test -Json`") >= 2, errors


def test_help_calls_are_known_by_their_words_or_their_usage_text() -> None:
    for command in ("x.ps1 -Help", "npm install --help", "git help commit", "bash run.sh -h"):
        assert is_help_call(_call(command)), command
    for command in ("df -h", "ls -h /tmp", "mysql -h db -e 'select 1'", "grep -rn help src/"):
        assert not is_help_call(_call(command)), command
    assert is_help_call(_call("./tool.sh"), "usage: tool.sh [-v] FILE\n")
    assert not is_help_call(_call("./tool.sh build"), "built 3 targets\n")


# -- 1951: a shared banner and program are no tie (41 W8) ---------------------------------------


def test_a_later_grep_with_the_same_banner_fixes_no_failed_grep() -> None:
    s = SessionBuilder()
    s.user("Review the call-to-action components, then build the slide-in.")
    banner = 'echo "=== src/lib/cta.ts ==="'
    failed = f'{banner} && grep -rn "modal-popup\\|ModalPopup" src/ --include=*.astro'
    s.call(
        "Bash", {"command": failed},
        "(eval):1: no matches found: --include=*.astro", error=True,
    )  # fmt: skip
    for i in range(120):  # the review, the design and the build: other work
        s.call("Read", {"file_path": f"/w/src/components/part{i}.astro"}, "<div>part</div>\n")
        s.say(f"Part {i} reads fine.")
    later = f'{banner} && grep -n "sm:bottom-6\\|translate-y-full" src/components/slide.astro'
    s.call(
        "Bash",
        {"command": later},
        "12: class=\"sm:bottom-6\"\n",
    )  # fmt: skip
    s.say("The slide-in classes are in place.")
    errors = _errors(summarize_transcript(s.messages))
    assert "modal-popup" in errors, errors
    assert "Fixed: a later" not in errors, errors


def test_a_retry_is_tied_by_a_shared_target_or_the_same_words() -> None:
    assert tied("npm install left-pad", "npm install left-pad@1.3.0", 2)
    assert not tied("npm install left-pad", "npm install react-dom", 2)
    assert tied("make build", "make build -j4", 2)
    assert not tied("make build", "make build -j4 && make dist", 500)  # far: words are not enough
    assert tied("grep -rn Modal src/a.ts", "grep -n Modal src/b.ts", 500)  # the same pattern
    assert not tied(
        'echo "=== x ===" && grep -rn Modal src/', 'echo "=== x ===" && grep -n Toast src/', 2
    )


# -- 1952: a cleanup is no workaround of an install or a test run (42 W2) -----------------------


def _bash(i: int, command: str, code: int, out: str) -> list[dict[str, Any]]:
    return _shell(i, command, code, out, "bash")


def _venv_records() -> list[dict[str, Any]]:
    records = [codex_user("pip install -r requirements-dev.txt, then rerun the test suite")]
    records += _bash(
        0, "python3 -m pip install -r requirements-dev.txt", 1, "python3: No module named pip"
    )
    records += _bash(
        1, "python3 -m venv .venv", 1, "ensurepip is not available; apt install python3-venv"
    )
    records.append(codex_say("The half-made .venv has to go; removing it instead."))
    rmtree = "import shutil\nfrom pathlib import Path\n"
    rmtree += "if Path('.venv').exists():\n    shutil.rmtree('.venv')"
    records += _bash(2, f"python3 - <<'PY'\n{rmtree}\nPY", 0, "")
    records += _bash(3, "python3 -m pytest -q", 1, "python3: No module named pytest")
    records.append(codex_say("Cleaning the generated folders instead."))
    records += _bash(4, "rm -rf dist build && ls", 0, "README.md\nsrc\n")
    records += _bash(5, "ls -la", 0, "total 8\n")
    records.append(codex_say("pip, venv and pytest are missing here; installing them needs root."))
    return records


def test_a_cleanup_is_no_workaround_of_a_failed_install_or_test_run(tmp_path: Path) -> None:
    errors = _errors(codex_summary(_venv_records(), tmp_path, "s42b", "/w/vault"))
    assert "python3 -m pip install" in errors and "python3 -m pytest -q" in errors, errors
    assert "Worked around" not in errors, errors
    assert "Done without it" not in errors, errors


def test_cleanups_are_known_by_shape() -> None:
    for command in (
        "rm -rf .venv",
        "rm -rf dist && ls",
        "git clean -fdx",
        "python3 -c \"import shutil; shutil.rmtree('x')\"",
    ):
        assert only_cleans(_call(command)), command
    for command in (
        "rm -rf dist && npm run build",
        "python3 -c \"import shutil; shutil.copy('a', 'b')\"",
        "ls -la",
    ):
        assert not only_cleans(_call(command)), command


# -- 1953: a skip sentence about something else sets nothing aside (41 W9) ----------------------


def _posthog_session(comment: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("Grill me on the CTA analytics design.")
    s.call(
        "Bash", {"command": 'echo "=== posthog ===" && grep -rn "posthog" src/ --include=*.astro'},
        "(eval):1: no matches found: --include=*.astro", error=True,
    )  # fmt: skip
    for i in range(6):
        s.call("Read", {"file_path": f"/w/src/components/cta{i}.astro"}, "<div>cta</div>\n")
    s.say(comment)
    s.user("(c), and log the dismissals.")
    return s


def test_a_quoted_skip_about_a_design_option_sets_no_failure_aside() -> None:
    comment = (
        "Q3: should dismissals be events? (a) no (b) counted (c) full events. If you take (c), "
        'the measurement section\'s "skip dismiss rate for the sticky bar" needs revisiting.'
    )
    errors = section(summarize_transcript(_posthog_session(comment).messages), 4)
    assert "Set aside on purpose" not in errors, errors


def test_a_skip_that_names_something_else_sets_no_failure_aside() -> None:
    comment = "Q3: we can skip the dismiss rate for the sticky bar in the first release."
    errors = section(summarize_transcript(_posthog_session(comment).messages), 4)
    assert "Set aside on purpose" not in errors, errors


def test_a_skip_that_names_the_failed_search_still_sets_it_aside() -> None:
    comment = "The posthog search is not needed any more; skipping it."
    errors = section(summarize_transcript(_posthog_session(comment).messages), 4)
    assert 'Set aside on purpose, not to be fixed: "The posthog search' in errors, errors


def test_a_short_skip_reply_to_words_about_the_failure_still_sets_it_aside() -> None:
    """A call came between the failure and the user's "no, skip it": the reply is short and
    answers the assistant's words about the failure, so it still sets the failure aside."""
    s = SessionBuilder()
    s.user("Publish the docs site.")
    s.call("Bash", {"command": "mkdocs gh-deploy"}, "mkdocs: command not found", error=True)
    s.call("Bash", {"command": "ls docs"}, "index.md")
    s.say("mkdocs is not installed here. Should I keep trying to deploy the docs?")
    s.user("no, skip it")
    errors = section(summarize_transcript(s.messages), 4)
    assert 'Set aside on purpose, not to be fixed: "no, skip it"' in errors, errors

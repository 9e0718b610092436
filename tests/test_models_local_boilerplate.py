"""Blind check 23 (cx-aff, issue 28, rows 1060-1079): a line the environment prints before the
output of every command (a shell profile failing in a sandbox) is neither a result's error nor
what it printed; a search that printed nothing else found nothing; failures of one command that
ended differently are told apart.

The session is built here: every shell result opens with a profile warning, as Codex writes a
``shell_command`` result (``Exit code``, ``Wall time``, ``Output:``; no error flag)."""

from __future__ import annotations

from compactor.facts.text import entries_of
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

NOISE = "/opt/tools/profile.d/env.sh: line 7: /usr/bin/stat: Permission denied"


def _out(code: int, *lines: str, noise: str = NOISE) -> str:
    body = "".join(f"{x}\n" for x in (noise, *lines) if x)
    return f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{body}"


def _session(noise: str = NOISE) -> SessionBuilder:
    s = SessionBuilder()
    s.user("move the helpers to src/shared and make sure nothing imports the old paths")
    sh = "shell_command"
    s.call(sh, {"command": "ls src"}, _out(0, "app.ts", "helpers", noise=noise))
    s.call(sh, {"command": "git status --short"}, _out(0, " M src/app.ts", noise=noise))
    s.call(sh, {"command": "node -e 'console.log(1)'"}, _out(0, "1", noise=noise))
    s.call(sh, {"command": "cat package.json"}, _out(0, '{"name": "shop"}', noise=noise))
    s.call(sh, {"command": "mkdir -p src/shared"}, _out(0, noise=noise))
    timed_out = _out(124, "command timed out after 120011 milliseconds", noise=noise)
    s.call(sh, {"command": "cd /w/shop && npm install"}, timed_out)
    offline = _out(
        1,
        "npm error code ENOTFOUND",
        "npm error network request to https://registry.npmjs.org/zod failed",
        noise=noise,
    )
    s.call(sh, {"command": "cd /w/shop && npm install"}, offline)
    s.call(sh, {"command": 'cd /w/shop && rg "helpers/" src'}, _out(1, noise=noise))
    build = _out(2, "> tsc", "src/app.ts(3,8): error TS2307: Cannot find module", noise=noise)
    s.call(sh, {"command": "cd /w/shop && npm run build"}, build)
    s.say("The old import paths are gone; the build still fails on one import.")
    return s


def test_the_profile_warning_is_never_the_error() -> None:
    """cx-aff: "npm install failed 2 times (exit code 1): /opt/homebrew/…/shellenv.sh: line 18:
    /bin/ps: Operation not permitted"; the build's error was quoted after that line."""
    summary = summarize_transcript(_session().messages)
    assert "Permission denied" not in summary, section(summary, 4)
    errors = section(summary, 4)
    assert "error TS2307: Cannot find module" in errors, errors


def test_a_search_that_printed_only_the_warning_found_nothing() -> None:
    """cx-aff: ``rg "lib/" src`` exited 1 with the warning alone: "Unresolved failure"."""
    summary = summarize_transcript(_session().messages)
    errors = section(summary, 4)
    assert 'rg "helpers/" src` failed' not in errors, errors
    assert 'rg "helpers/" src` (no match, exit 1)' in errors, errors
    assert "Unresolved failure" not in summary, section(summary, 7)


def test_failures_that_ended_differently_are_not_merged() -> None:
    """cx-aff: a timeout (124) then ENOTFOUND (1) read "failed 2 times (exit code 1)"."""
    errors = section(summarize_transcript(_session().messages), 4)
    assert "2 times" not in errors, errors
    assert "(exit code 124): command timed out after 120011 milliseconds" in errors, errors
    assert "(exit code 1): npm error code ENOTFOUND" in errors, errors


def _results(s: SessionBuilder) -> list[str]:
    return [r.text for e in entries_of(s.messages) for r in e.results]


def test_the_line_is_dropped_from_the_results_and_nothing_else() -> None:
    texts = _results(_session())
    assert texts and not any(NOISE in t for t in texts)
    assert sum("Exit code: " in t for t in texts) == len(texts)  # the header stays
    assert any("npm error code ENOTFOUND" in t for t in texts)


def test_a_line_one_program_prints_is_kept() -> None:
    """A first line that only one program prints (a test runner's banner) is that program's
    output, not the environment's: nothing is dropped."""
    s = SessionBuilder()
    s.user("make the tests pass")
    banner = "============ test session starts (platform linux, python 3.12) ============"
    for n in range(5):
        failed = _out(
            1, f"FAILED tests/test_cart.py::test_total_{n} - AssertionError", noise=banner
        )
        s.call("shell_command", {"command": f"pytest -k total_{n}"}, failed)
    s.say("Five tests fail.")
    assert all(banner in t for t in _results(s))
    errors = section(summarize_transcript(s.messages), 4)
    assert "FAILED tests/test_cart.py::test_total_4" in errors, errors

"""Blind check 18's leftovers (issue 28, rows 760-779): a read inside a shell wrapper whose
failure is a finding; a later command that is only part of a failed chain is no workaround."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 760: a failed read inside ``bash -lc`` is a fact it established ---------------------------

_MISSING_BIN = (
    '{"output":"ls: node_modules/.bin: No such file or directory\\n",'
    '"metadata":{"exit_code":1,"duration_seconds":0.6}}'
)
_MISSING_STAT = (
    "Exit code: 1\nOutput:\nstat: node_modules/.modules.yaml: No such file or directory\n"
)
_LISTED = "Exit code: 0\nOutput:\nreact\nreact-dom\n"


def _probe_session(command: object, out: str) -> str:
    s = SessionBuilder()
    s.user("make the blog list responsive")
    s.call("shell", {"command": command, "workdir": "/w/app"}, out, error=True)
    s.call("shell", {"command": ["bash", "-lc", "ls node_modules | head"], "workdir": "/w/app"},
           _LISTED)  # fmt: skip
    s.say("node_modules has no vitest yet; I will install the dependencies next.")
    return section(summarize_transcript(s.messages), 4)


def test_a_failed_read_inside_bash_lc_is_a_fact_it_established() -> None:
    """madinah-codex §4 listed `bash -lc ls node_modules/.bin | grep vitest` (exit 1, "No such
    file or directory") and `bash -lc stat … .modules.yaml` first among the failures, with no
    word that they only looked: the same commands without the wrapper were facts."""
    for argv, out in (
        (["bash", "-lc", "ls node_modules/.bin | grep vitest"], _MISSING_BIN),
        (["bash", "-lc", 'stat -f "%Sm" node_modules/.modules.yaml'], _MISSING_STAT),
        (["zsh", "-lc", "cat node_modules/.modules.yaml"], _MISSING_STAT),
        ("sh -c 'ls node_modules/.bin | grep vitest'", _MISSING_BIN),
    ):
        errors = _probe_session(argv, out)
        assert "A fact it established (not a failure to fix)" in errors, (argv, errors)
        assert "No such file or directory" in errors, errors
        assert "Next call after it" not in errors, errors


def test_a_failed_wrapped_command_that_does_not_only_read_stays_a_failure() -> None:
    """A build or an install inside the wrapper is no read, whatever it printed."""
    for argv in (
        ["bash", "-lc", "pnpm install --offline"],
        ["bash", "-lc", "ls node_modules/.bin && pnpm test"],
        ["bash", "-lc", "rm node_modules/.modules.yaml"],
    ):
        errors = _probe_session(argv, _MISSING_STAT)
        assert "A fact it established" not in errors, (argv, errors)


def test_a_successful_read_inside_bash_lc_keeps_its_output() -> None:
    """The unwrapping serves the failure decision only: a wrapped rg's matches stay printed."""
    s = SessionBuilder()
    s.user("where is the reduced motion hook used?")
    found = "Exit code: 0\nOutput:\napp/features/blog/list.tsx:3:import usePrefersReducedMotion\n"
    argv = ["bash", "-lc", 'rg "usePrefersReducedMotion" app']
    s.call("shell", {"command": argv, "workdir": "/w/app"}, found)
    s.say("It is used in the blog list only.")
    text = summarize_transcript(s.messages)
    assert "app/features/blog/list.tsx:3" in text, text


# -- 761: a later call that redoes only a part of the failed chain is no workaround --------------

_REJECTED = (
    "Exit code: 1\nOutput:\nTo github.com:u/app.git\n ! [rejected]        main -> main (fetch "
    "first)\nerror: failed to push some refs to 'github.com:u/app.git'\n"
)


def _push_session(later: str) -> str:
    s = SessionBuilder()
    s.user("commit and push the docs")
    s.call("Bash", {"command": "git add -A && git push"}, _REJECTED, error=True)
    s.call("Bash", {"command": later}, "Exit code: 0\nOutput:\n")
    s.say("Staged the files.")
    return section(summarize_transcript(s.messages), 4)


def test_the_first_step_of_a_failed_chain_alone_is_no_workaround() -> None:
    """A failed `git add -A && git push` was "Worked around by `git add -A`": the push, the step
    that failed, never ran again."""
    for later in (
        "git add -A",
        "git add -A && git status --short",
        "git add -A && git commit -m x",
    ):
        errors = _push_session(later)
        assert "Worked around" not in errors, (later, errors)
        assert f"Next call after it: `Bash: {later}` (succeeded)" in errors, errors


def test_a_later_chain_that_runs_the_undone_step_still_works_around_it() -> None:
    """The rule is the shape, not git: a later chain that runs the failed step's program with
    other options is judged as before."""
    errors = _push_session("git add -A && git push --force-with-lease")
    assert "Worked around by `Bash: git add -A && git push --force-with-lease`" in errors, errors


def test_a_pipe_inside_a_quoted_pattern_is_no_step_of_the_chain() -> None:
    """liza-main (seen while checking): ``curl -s URL | grep -oiE 'a|(b'`` failed on its regex
    and ``curl -s URL | grep -oE 'a|b'`` then worked; the regex's ``|`` split no chain."""
    s = SessionBuilder()
    s.user("find the video link on the page")
    url = "https://example.test/lessons/6319"
    bad = f"curl -s '{url}' | grep -oiE '(mp4|m3u8|(video'"
    s.call(
        "Bash", {"command": bad}, "Exit code: 2\nOutput:\ngrep: Unmatched ( or \\(\n", error=True
    )
    s.call("Bash", {"command": f"curl -s '{url}' | grep -oE 'https?://[^\"]+(mp4|m3u8)'"},
           "Exit code: 0\nOutput:\nhttps://cdn.example.test/v.m3u8\n")  # fmt: skip
    s.say("Found the stream.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Worked around by" in errors, errors


# -- 762: a pkill pattern that matches the script a runner's output echoed -----------------------

_VITE_POLL = (
    "<status>running</status>\n<stdout>\n> app@0.0.0 dev\n> vite --host\n\n"
    "  VITE v5.4.2  ready in 312 ms\n\n  ➜  Local:   http://localhost:5173/\n</stdout>"
)


def _dev_server_stopped(kill: str, poll: str = _VITE_POLL) -> tuple[str, str]:
    s = SessionBuilder()
    s.user("start the dev server and check the page")
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        "Command running in background with ID: b1",
    )
    s.call("BashOutput", {"bash_id": "b1"}, poll)
    s.say("The dev server runs at http://localhost:5173.")
    s.user("stop the server, then update the README")
    s.call("Bash", {"command": kill}, "")
    s.call("Edit", {"file_path": "/app/README.md", "old_string": "a", "new_string": "b"}, "ok")
    s.say("Stopped the server and updated the README.")
    text = summarize_transcript(s.messages)
    return section(text, 7), section(text, 9)


def test_a_pkill_of_the_program_a_runner_started_stops_the_job() -> None:
    """``npm run dev`` in the background printed "> app@0.0.0 dev / > vite --host"; a later
    ``pkill -f vite`` (or ``killall vite``) stopped it, yet sections 7 and 9 said "Background
    job still running (…; check it, do not start it again)"."""
    for kill in ("pkill -f vite", "pkill -f 'vite --host'", "killall vite"):
        pending, step = _dev_server_stopped(kill)
        assert "still running" not in pending + step, (kill, pending, step)
        assert "nothing is pending" in pending, pending


def test_a_pkill_of_another_program_or_an_unechoed_one_leaves_the_job_running() -> None:
    pending, _ = _dev_server_stopped("pkill -f webpack")
    assert "Background job still running" in pending, pending
    silent = _VITE_POLL.replace("> app@0.0.0 dev\n> vite --host\n", "")
    pending, _ = _dev_server_stopped("pkill -f vite", silent)  # nothing says it runs vite
    assert "Background job still running" in pending, pending


# -- 763: a read inside ``bash -lc`` fixes no failed build or test run ---------------------------

_TEST_FAILED = (
    "Exit code: 1\nOutput:\n FAIL  app/blog/detail.layout.test.tsx > constrains the measure\n"
    "AssertionError: expected null to be truthy\n Tests  1 failed | 3 passed (4)\n"
)


def test_a_read_inside_bash_lc_does_not_fix_a_failed_test_run() -> None:
    """madinah-codex (seen once row 760 freed §4's slots): a failed ``bash -lc pnpm exec vitest
    run F`` was "Fixed: a later shell: bash -lc sed -n '1,40p' F succeeded": the read shares
    the test file, and the wrapper hid that it only read."""
    s = SessionBuilder()
    s.user("make the detail page tests pass")
    run = ["bash", "-lc", "pnpm exec vitest run app/blog/detail.layout.test.tsx"]
    s.call("shell", {"command": run, "workdir": "/w/app"}, _TEST_FAILED, error=True)
    read = ["bash", "-lc", "sed -n '1,40p' app/blog/detail.layout.test.tsx"]
    s.call("shell", {"command": read, "workdir": "/w/app"}, "Exit code: 0\nOutput:\nimport x\n")
    s.say("The mock is missing the location hook; I will add it next.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed" not in errors, errors
    assert "AssertionError: expected null to be truthy" in errors, errors
    s.call(
        "shell", {"command": run, "workdir": "/w/app"}, "Exit code: 0\nOutput:\n Tests  4 passed\n"
    )
    s.say("All four pass now.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later `shell: bash -lc pnpm exec vitest run" in errors, errors

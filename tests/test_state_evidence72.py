"""Blind check 72: where the work stands, from the latest evidence (W1, W3, N1, N4).

Small synthetic Claude Code sessions (tests/cc_session.py); nothing of the blind sessions."""

from __future__ import annotations

from typing import Any

from compactor.facts import entries_of
from compactor.formats.registry import read_transcript
from tests.cc_session import Session, section

_LISTING = (
    "total 180\ndrwxr-xr-x 1 dev dev     0 Nov 26 12:08 .\n"
    "drwxr-xr-x 1 dev dev     0 Nov 26 12:08 ..\n"
    "-rw-r--r-- 1 dev dev 33339 Nov 26 11:58 pine.jpg\n"
    "-rw-r--r-- 1 dev dev 39430 Nov 26 11:59 beech.jpg\n"
)
_COMMIT = (
    "[main 85984a2] Use the smaller photos\n 2 files changed, 0 insertions(+), 0 deletions(-)\n"
    " create mode 100644 images/pine.jpg\n create mode 100644 images/beech.jpg\n"
)


def _removed_then(*later: tuple[str, dict[str, Any], str]) -> str:
    """``git rm`` of two photos and its commit, the user's new photos, then ``later`` calls."""
    s = Session()
    s.user("the photos are too large for the pages build; drop them")
    s.call(
        "Bash",
        {"command": "git rm images/pine.jpg images/beech.jpg"},
        "rm 'images/pine.jpg'\nrm 'images/beech.jpg'",
    )
    s.call(
        "Bash",
        {"command": 'git commit -m "Drop large photos"'},
        "[main b0ae3dd] Drop large photos\n 2 files changed\n"
        " delete mode 100644 images/pine.jpg\n delete mode 100644 images/beech.jpg\n",
    )
    s.user("I saved smaller ones under the same names, they are there")
    for name, args, out in later:
        s.call(name, args, out)
    s.say("Done.")
    return s.summary()


def test_a_folder_listing_shows_a_deleted_file_again() -> None:
    """jk_strom W1: ``git rm images/…`` early, later ``ls -la images/`` lists the user's new
    photos: §3 said "images/pine.jpg (deleted by Bash)"."""
    text = _removed_then(("Bash", {"command": "ls -la images/"}, _LISTING))
    files = section(text, 3)
    assert "pine.jpg (deleted by Bash)" not in files, files
    assert "pine.jpg (deleted by Bash, then shown present by a later result)" in files, files


def test_a_commit_that_creates_it_shows_a_deleted_file_again() -> None:
    """jk_strom W1: a later commit's ``create mode 100644 images/pine.jpg``."""
    text = _removed_then(("Bash", {"command": "git add -A && git commit -m photos"}, _COMMIT))
    files = section(text, 3)
    assert "pine.jpg (deleted by Bash)" not in files, files
    assert "beech.jpg (deleted by Bash, then shown present" in files, files


def test_a_glob_that_lists_it_shows_a_deleted_file_again() -> None:
    found = "/home/dev/board/images/beech.jpg\n/home/dev/board/images/pine.jpg\n"
    text = _removed_then(("Glob", {"pattern": "images/*.jpg"}, found))
    assert "pine.jpg (deleted by Bash, then shown present" in section(text, 3)


def test_the_latest_evidence_decides_and_others_do_not_count() -> None:
    """Shown present, then a later status lists it deleted again: deleted. A listing of another
    folder, a ``git log --summary`` of an old commit and a recursive listing say nothing."""
    again = ("Bash", {"command": "git status --short"}, " D images/pine.jpg\n")
    text = _removed_then(("Bash", {"command": "ls -la images/"}, _LISTING), again)
    assert "pine.jpg (deleted by Bash)" in section(text, 3)
    for later in (
        ("Bash", {"command": "ls -la backup/"}, _LISTING),
        ("Bash", {"command": "git log --summary -3"}, "commit 1a2b3c4\n" + _COMMIT[24:]),
        ("Bash", {"command": "ls -laR ."}, "./images:\n" + _LISTING),
    ):
        text = _removed_then(later)
        assert "pine.jpg (deleted by Bash)" in section(text, 3), later


_NOISE = "".join(
    f"rm: cannot remove '/etc/post-install/{n}.post': Permission denied\n"
    for n in ("01-devices", "03-mtab", "99-post-install-cleanup")
)


def _noisy(*runs: tuple[str, str, bool]) -> str:
    """Bash calls whose outputs the Windows Git shell ends with its start-up noise."""
    s = Session()
    s.user("set up the auth dependencies and a secret")
    for command, out, error in runs:
        s.call("Bash", {"command": command}, out + "\r\n" + _NOISE, error=error)
    s.say("All set.")
    return s.summary()


_RUNS = [
    ("cd app && npm install next-auth", "up to date, audited 165 packages in 10s", False),
    ("node --version", "v20.11.1", False),
    ("cd app && npm list uuid", "event-next@0.1.0\n└── uuid@10.0.0", False),
]


def test_shell_noise_after_every_output_is_no_failure() -> None:
    """jg_qevent W3: three unflagged Bash results ended with "rm: cannot remove
    '/etc/post-install/…': Permission denied" lines; the Analysis said "(5 failed)" and §4
    listed them as failures: two had failed."""
    text = _noisy(*_RUNS)
    assert "3 tool calls (0 failed)" in text, text[:600]
    assert "cannot remove" not in section(text, 4), section(text, 4)
    failing = ("cd app && npm install left-pad", "npm ERR! code E404\nnpm ERR! 404 Not Found", True)
    text = _noisy(*_RUNS, failing)
    assert "4 tool calls (1 failed)" in text, text[:600]
    assert "E404" in section(text, 4), section(text, 4)


def _outputs(s: Session) -> list[str]:
    """The tool results of ``s`` as the summary reads them."""
    raw = b"\n".join(s.lines()) + b"\n"
    entries = entries_of(read_transcript("s.jsonl", raw).messages)
    return [r.text for e in entries for r in e.results]


def test_the_same_ending_of_one_program_or_two_results_is_kept() -> None:
    """Lines that end the outputs of one program only (three ``git`` runs), or of fewer than
    three results, are that program's output: they stay, and a failure they show stays one."""
    same = "Untracked files:\n\t.cache/\n\nnothing added to commit but untracked files present\n"
    s = Session()
    s.user("commit the fix")
    for command, first in (("git status", "main"), ("git commit -m fix", "x"), ("git add .", "y")):
        s.call("Bash", {"command": command}, f"On branch {first}\n" + same)
    assert all(out.rstrip().endswith("files present") for out in _outputs(s))
    s = Session()
    for command, out, error in _RUNS[:2]:
        s.call("Bash", {"command": command}, out + "\r\n" + _NOISE, error=error)
    assert all("cannot remove" in out for out in _outputs(s))
    assert "2 tool calls (2 failed)" in _noisy(*_RUNS[:2])


_NO_AUTH = (
    "fatal: could not read Username for 'https://github.com': No such device or address",
    True,
)


def _pushed(*, claim: str, later: list[tuple[str, str, bool]], end: str) -> str:
    """A fix committed, its push failed; then ``claim``, ``later`` Bash calls and ``end``."""
    s = Session()
    s.user("fix the 400 error and push it")
    s.call("Edit", {"file_path": "/home/dev/board/api.js", "old_string": "a", "new_string": "b"},
           "The file /home/dev/board/api.js has been updated.")  # fmt: skip
    s.call("Bash", {"command": "git commit -am fix"}, "[main 1a2b3c4] fix\n 1 file changed")
    s.call("Bash", {"command": "git push origin main"}, _NO_AUTH[0], error=_NO_AUTH[1])
    todos = [{"content": "Push to GitHub", "status": "completed", "activeForm": "Pushing"}]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    if claim:
        s.say(claim)
    s.user("did you push it?")
    for command, out, error in later:
        s.call("Bash", {"command": command}, out, error=error)
    if end:
        s.say(end)
    else:  # a call in flight: the session was saved mid-work
        s.assistant([{"type": "tool_use", "id": "toolu_last", "name": "Bash",
                      "input": {"command": "git add -A && git commit -m logging"}}])  # fmt: skip
    return s.summary()


def test_a_failed_push_claimed_done_is_still_owed() -> None:
    """hk_home N1: `git push` failed (no credentials), then "Yes, pushed to GitHub!" and the
    task list's "[completed] Push to GitHub"; §7/§9 named only the commit in flight."""
    text = _pushed(claim="Yes, I pushed it to GitHub!", later=[], end="")
    pending, step = section(text, 7), section(text, 9)
    assert "Still owed: the push `git push origin main` failed" in pending, pending
    assert "could not read Username" in pending, pending
    assert '"Yes, I pushed it to GitHub!"' in pending, pending
    assert '"[completed] Push to GitHub"' in pending, pending
    assert "Still owed: `git push origin main` failed" in step, step
    text = _pushed(claim="", later=[], end="All done: the fix is live.")  # answered; plan only
    pending, step = section(text, 7), section(text, 9)
    assert "Still owed: the push" in pending and "[completed] Push to GitHub" in pending, pending
    assert "Not done, though the last reply or the task list says so" in step, step


def test_a_push_that_worked_later_is_not_owed() -> None:
    ok = (
        "git push origin main",
        "To github.com:dev/board.git\n   1a2b3c4..5d6e7f8  main -> main",
        False,
    )
    text = _pushed(claim="Pushed!", later=[ok], end="Pushed now.")
    assert "Still owed" not in text, section(text, 7)
    s = Session()  # a failed deploy; the plan's done item only names a branch with "deploy"
    s.user("set the server up")
    todos = [{"content": "Clone the repo (production-deploy branch)", "status": "completed"}]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    s.call("Bash", {"command": "/root/deploy.sh"}, "Error: port 80 in use", error=True)
    s.say("The deploy script stopped: port 80 is in use.")
    assert "Still owed" not in s.summary()


_TOO_LONG = (
    "API Error: Claude's response exceeded the 32000 output token maximum. To configure this "
    "behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable."
)


def test_an_earlier_turn_lost_to_an_api_error_is_told() -> None:
    """jk_strom N4: two turns ended in "API Error: … exceeded the 32000 output token maximum";
    the user's "Co se stalo?" and "Zase si se sekl" stood without their cause."""
    s = Session()
    s.user("use my smaller photos instead of the external links")
    s.say(_TOO_LONG)
    s.user("what happened?")
    s.call("Edit", {"file_path": "/home/dev/board/app.js", "old_string": "a", "new_string": "b"},
           "The file /home/dev/board/app.js has been updated.")  # fmt: skip
    s.user("now add black and white variants")
    s.say(_TOO_LONG)
    s.user("you got stuck again")
    s.say("Sorry: I will add them step by step.")
    errors = section(s.summary(), 4)
    assert "2 turns lost to an error the API or the agent CLI wrote" in errors, errors
    assert "exceeded the 32000 output token maximum" in errors, errors
    assert '(next: "what happened?")' in errors and '(next: "you got stuck again")' in errors
    assert 'after the user\'s "now add black and white variants"' in errors, errors

"""Five shapes a resuming agent could not trust (fix57a, issue 28).

Claude-Code-shaped sessions written to ``tmp_path``, invented content:

1. A flagged check that a path the agent removed is gone (``rm -rf X && ls X`` exits 2, or
   ``rm -rf X`` then ``ls X``): it confirms the removal, no unresolved failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts import Call, Result, outcome
from compactor.facts.absence import missing_checked, removed_paths

from .cc_session import Session, cc_summary
from .test_models_local_session import section

GONE = "Exit code 2\nls: cannot access 'build': No such file or directory"


def _calls(tmp_path: Path, calls: list[tuple[str, str, bool]], close: str = "") -> str:
    s = Session()
    s.user("Clean out the old build output before the release.")
    for command, output, error in calls:
        s.call("Bash", {"command": command}, output, error=error)
    if close:
        s.say(close)
    return cc_summary(s, tmp_path)


# -- 1: a flagged absence check --------------------------------------------------------------


@pytest.mark.parametrize(
    "calls",
    [
        [("rm -rf build && ls build", GONE, True)],
        [("rm -rf build/", "", False), ("ls build 2>&1", GONE, True)],
        [("rm -rf build/", "", False), ("ls build", GONE, True)],
        [("rm -rf build", "", False), ("test -e build", "Exit code 1", True)],
    ],
)
def test_a_flagged_check_that_a_removed_path_is_gone_is_no_failure(
    tmp_path: Path, calls: list[tuple[str, str, bool]]
) -> None:
    text = _calls(tmp_path, calls)
    errors, pending = section(text, 4), section(text, 7)
    assert "Unresolved failure" not in pending, pending
    assert "` failed" not in errors, errors


def test_a_flagged_check_in_the_removing_command_is_a_success() -> None:
    call = Call("c1", "Bash", '{"command": "rm -rf build && ls build"}', 0)
    assert not outcome(Result("c1", "Bash", GONE, is_error=True), call).failed


def test_a_check_of_a_path_the_agent_never_removed_still_failed(tmp_path: Path) -> None:
    dist = "Exit code 2\nls: cannot access 'dist': No such file or directory"
    text = _calls(tmp_path, [("rm -rf build/", "", False), ("ls dist", dist, True)])
    assert "Unresolved failure: `Bash: ls dist`" in section(text, 7), section(text, 7)
    remade = [
        ("rm -rf build/", "", False),
        ("make build", "built", False),
        ("ls build", GONE, True),
    ]
    assert "Unresolved failure: `Bash: ls build`" in section(_calls(tmp_path, remade), 7)
    call = Call("c1", "Bash", '{"command": "rm -rf build && ls dist"}', 0)
    dist_gone = Result("c1", "Bash", dist, is_error=True)
    assert outcome(dist_gone, call).failed


def test_the_absence_helpers_name_removed_and_checked_paths() -> None:
    assert removed_paths("rm -rf build/ dist && git rm -q old.txt") == {"build", "dist", "old.txt"}
    assert missing_checked("ls build 2>&1", "ls: cannot access 'build': No such file") == {"build"}
    assert not missing_checked("ls build", "ls: cannot access 'build-tools': No such file")


# -- 2: a push judged per (remote, branch) ----------------------------------------------------

PUSHED = "To github.com:acme/widget.git\n   3f2a1b0..9c8d7e6  main -> main"
DOCS = "To github.com:acme/widget.git\n * [new branch]      docs -> docs"
CLAIM = "Committed and pushed the parser fix to main."


def _rejected(branch: str) -> str:
    return (
        f"Exit code 1\nTo github.com:acme/widget.git\n ! [rejected]        {branch} -> {branch} "
        "(fetch first)\nerror: failed to push some refs to 'github.com:acme/widget.git'"
    )


def _pushes(tmp_path: Path, first: str, after: list[tuple[str, str, bool]]) -> str:
    s = Session()
    s.user("Commit the parser fix and push it.")
    s.bash("git commit -am 'Fix parser'", "[main 9c8d7e6] Fix parser\n 1 file changed")
    s.bash("git push", first)
    s.say(CLAIM)
    s.user("Now push the release branch as well.")
    for command, output, error in after:
        s.call("Bash", {"command": command}, output, error=error)
    return section(cc_summary(s, tmp_path), 5)


@pytest.mark.parametrize(
    ("first", "after"),
    [
        (PUSHED, [("git push origin release", _rejected("release"), True)]),
        ("Everything up-to-date", [("git push upstream main", _rejected("main"), True)]),
        ("Everything up-to-date", [("git push origin HEAD:release", _rejected("release"), True)]),
        (
            PUSHED,
            [
                ("git push", _rejected("main"), True),
                ("git pull --rebase && git push", PUSHED.replace("3f2a1b0", "9c8d7e6"), False),
            ],
        ),
    ],
)
def test_a_bare_push_that_succeeded_is_not_contradicted_by_another_push(
    tmp_path: Path, first: str, after: list[tuple[str, str, bool]]
) -> None:
    results = _pushes(tmp_path, first, after)
    assert CLAIM in results, results
    assert "contradicted later" not in results, results


def test_a_later_failed_push_of_the_same_branch_is_not_hidden_by_another_success(
    tmp_path: Path,
) -> None:
    after = [("git push", _rejected("main"), True), ("git push origin docs", DOCS, False)]
    results = _pushes(tmp_path, PUSHED, after)
    assert f"{CLAIM} (contradicted later: `Bash: git push` failed" in results, results
    after = [("git push origin main", _rejected("main"), True)]
    assert "contradicted later" in _pushes(tmp_path, "Everything up-to-date", after)


# -- 3: steps left to the user, by shape ------------------------------------------------------


def _handed(tmp_path: Path, reply: str) -> str:
    s = Session()
    s.user("Change the app port to 8080.")
    s.call(
        "Edit",
        {"file_path": "config/app.yaml", "old_string": "port: 80", "new_string": "port: 8080"},
        "The file config/app.yaml has been updated successfully.",
    )
    s.say(reply)
    return section(cc_summary(s, tmp_path), 7)


@pytest.mark.parametrize(
    ("reply", "step"),
    [
        (
            "I changed the port to 8080. You'll need to restart the server for it to apply.",
            "restart the server",
        ),
        ("Done. Please reload nginx so that it proxies to the new port.", "reload nginx"),
        (
            "Done: the port is 8080 now.\n\nNext steps:\n1. Restart the server with "
            "`systemctl restart app`\n2. Open port 8080 in the firewall",
            "Open port 8080 in the firewall",
        ),
    ],
)
def test_an_imperative_addressed_to_the_user_is_a_step_left_to_them(
    tmp_path: Path, reply: str, step: str
) -> None:
    pending = _handed(tmp_path, reply)
    assert "answered with steps left to the user" in pending, pending
    assert step in pending, pending


@pytest.mark.parametrize(
    "reply",
    [
        "Done: the port is 8080. You should see the app on http://localhost:8080 now.",
        "Done: the port is 8080.\n\nNext steps:\n1. I'll update the docs if you want.",
    ],
)
def test_what_the_user_will_see_or_the_agent_will_do_is_no_step_left(
    tmp_path: Path, reply: str
) -> None:
    assert "steps left to the user" not in _handed(tmp_path, reply)


# -- 4: a script that stops on purpose --------------------------------------------------------


def _script(tmp_path: Path, command: str, output: str, error: bool) -> str:
    s = Session()
    s.user("Write a script that migrates the user table, and run it.")
    s.call(
        "Write",
        {"file_path": "scripts/migrate.py", "content": "print('migrating')\n"},
        "File created successfully at: scripts/migrate.py",
    )
    s.call("Bash", {"command": command}, output, error=error)
    s.say("The migration script is in place.")
    return cc_summary(s, tmp_path)


REFUSED = "Refusing to migrate: the database has 3 pending writes; stop the app first."
USAGE = (
    "Exit code 2\nusage: migrate.py [-h] --db DB [--dry-run]\n"
    "migrate.py: error: the following arguments are required: --db"
)


@pytest.mark.parametrize(
    ("command", "output", "error", "said"),
    [
        ("python scripts/migrate.py", REFUSED, False, REFUSED),
        ("python scripts/migrate.py", "Exit code 1\n" + REFUSED, True, REFUSED),
        (
            "python scripts/migrate.py --dry-run",
            "checked 42 rows\nDry run: nothing written",
            False,
            "Dry run: nothing written",
        ),
        ("python scripts/migrate.py", USAGE, True, "the following arguments are required: --db"),
        (
            "./migrate.sh --db prod.db",
            "[migrate] Aborting: prod.db is the production database; pass --yes to confirm.",
            False,
            "Aborting: prod.db is the production database",
        ),
    ],
)
def test_a_script_that_stops_on_purpose_is_the_steps_outcome_not_a_crash(
    tmp_path: Path, command: str, output: str, error: bool, said: str
) -> None:
    text = _script(tmp_path, command, output, error)
    errors, pending = section(text, 4), section(text, 7)
    assert "` stopped on purpose" in errors, errors
    assert said in errors, errors
    assert "Not a crash" in errors and "Not retried" not in errors, errors
    assert "Unresolved failure" not in pending, pending


@pytest.mark.parametrize(
    ("command", "output", "error"),
    [
        ("cat notes/refusals.md", "Refusing to migrate is what the old script did.", False),
        ("python scripts/migrate.py", "Exit code 134\nAborted (core dumped)", True),
        (
            "python scripts/migrate.py",
            "migrated 42 rows; aborting old jobs was not needed",
            False,
        ),
    ],
)
def test_a_read_a_crash_or_a_success_is_no_deliberate_stop(
    tmp_path: Path, command: str, output: str, error: bool
) -> None:
    assert "stopped on purpose" not in section(_script(tmp_path, command, output, error), 4)


# -- 5: advice a yes to another question did not accept -------------------------------------

ROTATE = "I'd rotate the deploy key on the server when convenient."
ASK = "Want me to delete the leaked copy from logs/deploy.log, or leave it?"


def _advised(tmp_path: Path, answer: str) -> str:
    s = Session()
    s.user("Deploy the site.")
    s.bash("./deploy.sh", "deployed build 42 to web-1")
    s.say(answer)
    s.user("yes")
    s.call("Bash", {"command": "sed -i '/KEY=/d' logs/deploy.log"}, "")
    s.say("Done: the leaked copy is gone from logs/deploy.log.")
    return cc_summary(s, tmp_path)


def test_advice_before_the_closing_question_stays_the_users_open_decision(
    tmp_path: Path,
) -> None:
    text = _advised(tmp_path, f"Deployed build 42. The key was printed in the log. {ROTATE} {ASK}")
    pending = section(text, 7)
    undecided = "Not yet decided by the user (their yes answered the closing question, not this"
    assert f'{undecided} advice): "{ROTATE}"' in pending, pending
    assert f"Accepted by the user: {ROTATE[:25]}" not in section(text, 5)


def test_the_agents_own_statement_before_the_question_is_no_open_decision(
    tmp_path: Path,
) -> None:
    own = "Going forward I'll keep keys out of the deploy log."
    text = _advised(tmp_path, f"Deployed build 42. {own} {ASK}")
    assert "Not yet decided" not in section(text, 7), section(text, 7)

"""An answer that hands the request's remaining steps to the user is no completion (blind check
51, W1).

Claude-Code-shaped sessions written to ``tmp_path``: the user asks to update the notes, commit,
push and publish; the agent commits and its last reply tells the user to run the rest ("please
run the following", "以下を実行してください", "you can now push"). Sections 7-9 say the request
was answered with those steps left to the user and that a resuming agent should check whether
they ran, never "nothing is pending". An answer that merely SHOWS a command where every asked
action was done (or where nothing was asked to be done) says nothing of the kind."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.models.local_leftsteps import LEFT

from .cc_session import Session, cc_summary
from .test_models_local_session import section

REQUEST = "Looks good. Update NOTES.md and the README, then commit, push and publish."
HANDED = (
    "Committed e793411. HEAD is detached, so please run the following to push and release:\n"
    "```\njj git import\njj bookmark set main -r @\njj git push -b main\ngit tag v0.4.6\n"
    "git push origin v0.4.6\n```\nThe tag push triggers release.yml (cargo publish)."
)
HANDED_JA = (
    "コミットしました (e793411)。以下を実行してください:\n```bash\njj git push -b main\n"
    "git tag v0.4.6\ngit push origin v0.4.6\n```"
)
HANDED_WORDS = "Committed e793411. You can now push the branch and publish the crate."


def _session(tmp_path: Path, reply: str, *, request: str = REQUEST, pushed: bool = False) -> str:
    s = Session()
    s.user(request)
    s.call(
        "Edit",
        {"file_path": "README.md", "old_string": "v0.4.5", "new_string": "v0.4.6"},
        "The file README.md has been updated successfully.",
    )
    s.bash(
        "git add README.md && git commit -m 'feat: fetch --tracked (v0.4.6)'",
        "[detached HEAD e793411] feat: fetch --tracked (v0.4.6)\n 1 file changed",
    )
    if pushed:
        s.bash(
            "git push origin main && git tag v0.4.6 && git push origin v0.4.6 && cargo publish",
            "To github.com:acme/tij.git\n   a1b2c3d..e793411  main -> main\n"
            " * [new tag]         v0.4.6 -> v0.4.6\n   Published tij v0.4.6",
        )
    s.say(reply)
    return cc_summary(s, tmp_path)


@pytest.mark.parametrize(
    ("reply", "steps"),
    [
        (HANDED, ["`jj git push -b main`", "`git tag v0.4.6`"]),
        (HANDED_JA, ["`jj git push -b main`", "`git push origin v0.4.6`"]),
        (HANDED_WORDS, ["push", "publish"]),
    ],
)
def test_steps_handed_to_the_user_are_not_nothing_pending(
    tmp_path: Path, reply: str, steps: list[str]
) -> None:
    text = _session(tmp_path, reply)
    pending, now, step = section(text, 7), section(text, 8), section(text, 9)
    assert "nothing is pending" not in text, pending
    assert f"The last request was {LEFT}" in pending, pending
    assert all(x in pending for x in steps), pending
    assert "check whether the user did" in pending, pending
    assert f"was {LEFT}" in now and "was completed" not in now, now
    assert LEFT in step and "check whether those steps ran" in step, step


def test_a_command_shown_after_every_asked_action_was_done_is_an_example(tmp_path: Path) -> None:
    reply = (
        "Done: committed e793411, pushed main, tagged v0.4.6 and published tij 0.4.6. To see the "
        "release yourself you can run:\n```\ncargo search tij\n```"
    )
    text = _session(tmp_path, reply, pushed=True)
    assert LEFT not in text, section(text, 7)
    assert "nothing is pending" in section(text, 7), section(text, 7)


def test_a_command_shown_for_a_request_that_asked_no_action_is_an_example(tmp_path: Path) -> None:
    reply = "The README now documents --tracked. You can run `tij fetch --tracked` to try it."
    text = _session(tmp_path, reply, request="Document the --tracked option in the README.")
    assert LEFT not in text, section(text, 7)


def test_please_run_a_command_the_agent_ran_itself_hands_nothing_over(tmp_path: Path) -> None:
    reply = "Committed. Please run `git commit --amend` only if you want another message."
    text = _session(tmp_path, reply, request="Fix the typo in the README.")
    assert LEFT not in text, section(text, 7)


def test_a_command_shown_that_does_no_asked_action_is_an_example(tmp_path: Path) -> None:
    reply = "Done: CHANGELOG.md has the notes. You can run `make docs` to render the release notes."
    text = _session(tmp_path, reply, request="Write the release notes for 0.4.6 in CHANGELOG.md.")
    assert LEFT not in text, section(text, 7)

"""Commits made after the session's last successful ``git push`` and never pushed in it are named
in section 7 as local only (integrator row 2710). Sessions are invented, by shape."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_PUSHED = "To github.com:acme/widget.git\n   1a2b3c4..5d6e7f8  main -> main"
_LOCAL = "Committed after the last `git push` that succeeded and not pushed in the session"


def _session(after: list[tuple[str, str, bool]], *, push_first: bool = True) -> str:
    s = SessionBuilder()
    s.user("fix the parser crash on empty input, commit it, then tidy the README")
    s.call("Edit", {"file_path": "/repo/src/parse.py", "old_string": "a", "new_string": "b"}, "ok")
    first = "[main 5d6e7f8] Fix parser crash on empty input\n 1 file changed, 3 insertions(+)"
    if push_first:
        s.call(
            "Bash",
            {"command": "git commit -am 'Fix parser crash' && git push"},
            f"{first}\n{_PUSHED}",
        )
    else:
        s.call("Bash", {"command": "git commit -am 'Fix parser crash'"}, first)
    s.call("Edit", {"file_path": "/repo/README.md", "old_string": "x", "new_string": "y"}, "ok")
    for command, result, error in after:
        s.call("Bash", {"command": command}, result, error=error)
    s.say("Done: the parser fix is in and the README is tidied.")
    return section(summarize_transcript(s.messages), 7)


_COMMIT = ("git commit -am 'Tidy README'", "[main 9a8b7c6] Tidy README\n 1 file changed", False)


def test_a_commit_after_the_last_successful_push_is_named_local_only() -> None:
    pending = _session([_COMMIT])
    assert _LOCAL in pending and '9a8b7c6 "Tidy README" (on main)' in pending, pending
    assert "5d6e7f8" not in pending, pending  # pushed with its own call
    assert "None:" in pending, pending  # a fact beside "nothing pending", not a task


def test_a_rejected_push_after_the_commit_leaves_it_local() -> None:
    refused = "! [rejected]        main -> main (fetch first)\nerror: failed to push some refs"
    pending = _session([_COMMIT, ("git push", refused, True)])
    assert _LOCAL in pending and "9a8b7c6" in pending, pending


def test_no_line_when_pushed_later_never_pushed_or_pushed_by_other_means() -> None:
    pushed = ("git push origin main", "   5d6e7f8..9a8b7c6  main -> main", False)
    assert _LOCAL not in _session([_COMMIT, pushed])
    assert _LOCAL not in _session([_COMMIT], push_first=False)  # the session never pushed
    pr = ("gh pr create --fill", "https://github.com/acme/widget/pull/7", False)
    assert _LOCAL not in _session([_COMMIT, pr])
    reset = ("git reset --hard HEAD~1", "HEAD is now at 5d6e7f8 Fix parser crash", False)
    assert _LOCAL not in _session([_COMMIT, reset])


_SHIPPED = "Changed after its last publish_flow and not shipped since"


def _flows(last: str | None, *, same_id: bool = True) -> str:
    s = SessionBuilder()
    s.user("make the support bot answer in English and keep it live")
    s.call("mcp__flows__update_flow", {"flowId": "Fx9", "prompt": "v1"}, '{"ok": true}')
    s.call("mcp__flows__publish_flow", {"flowId": "Fx9"}, '{"activeVersionId": "a1"}')
    target = "Fx9" if same_id else "Zz1"
    s.call("mcp__flows__update_flow", {"flowId": target, "prompt": "v2"}, '{"ok": true}')
    if last is not None:
        s.call(f"mcp__flows__{last}", {"flowId": "Fx9"}, '{"ok": true}')
    s.say("Saved the English prompt to the flow.")
    return section(summarize_transcript(s.messages), 7)


def test_a_target_changed_after_its_last_publish_is_named_not_shipped() -> None:
    pending = _flows(None)
    assert _SHIPPED in pending and "update_flow(Fx9)" in pending, pending
    assert _SHIPPED in _flows("get_flow_details"), "a read is no publish"


def test_no_line_when_published_again_or_another_target_changed() -> None:
    assert _SHIPPED not in _flows("publish_flow")
    assert _SHIPPED not in _flows(None, same_id=False)

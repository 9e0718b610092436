"""When the user's latest messages only ask to go on ("continue", "go on", "please continue"),
section 9 names the request they continue, quoted, not "continue" (blind check 69 N5: §9 said
"Answer the latest request: "continue" (and the earlier ones left unanswered too: "continue",
…)" while the pending request, to ask two other models why a statusbar is invisible, was only
in §1). Sessions built here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section


def _api_error(s: Session) -> None:
    s.say("API Error: 400 invalid_request_error: unexpected tool_use_id in tool_result")
    s.records[-1]["isApiErrorMessage"] = True
    s.records[-1]["message"]["model"] = "<synthetic>"


_ASK = "ask the two reviewer models why the footer gauge is hidden in the dashboard view"


@pytest.mark.parametrize("go_on", ["continue", "go on", "please continue", "keep going"])
def test_bare_continuations_name_the_request_they_continue(go_on: str, tmp_path: Path) -> None:
    s = Session()
    s.user("add the footer gauge to the dashboard")
    s.bash("ls src/dashboard", "gauge.tsx\nview.tsx")
    s.say("The gauge is added to the dashboard.")
    s.user(_ASK)
    s.say("I'll ask both models about the hidden gauge.")
    _api_error(s)
    for _ in range(3):
        s.user(go_on)
        _api_error(s)
    step = " ".join(section(cc_summary(s, tmp_path), 9).split())
    assert _ASK in step, step
    assert f'Answer the latest request: "{go_on}"' not in step, step
    assert "only ask to go on with it" in step, step


def test_a_request_of_its_own_keeps_the_old_step(tmp_path: Path) -> None:
    s = Session()
    s.user("add the footer gauge to the dashboard")
    s.bash("ls src/dashboard", "gauge.tsx\nview.tsx")
    s.say("The gauge is added to the dashboard.")
    s.user("continue with the sidebar legend")
    _api_error(s)
    step = " ".join(section(cc_summary(s, tmp_path), 9).split())
    assert 'Answer the latest request: "continue with the sidebar legend"' in step, step
    assert "only ask to go on" not in step

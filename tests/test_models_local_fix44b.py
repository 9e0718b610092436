"""The embedded summarizer (fix44b): a session whose last record is an assistant text with no
call that announces a step stopped mid-turn (BENCH44 W2). Sessions are invented, by shape."""

from __future__ import annotations

import pytest

from .cc_session import Session
from .test_models_local_session import section

_PRIOR = """This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:
Analysis:
The user wants the invite flow to work.

Summary:
1. Primary Request and Intent:
   The user asked to make the invite test pass with real peer connectivity.

7. Pending Tasks:
   - Find out why the client is not reaching the relay server
   - Make the invite test pass with real peer connectivity

8. Current Work:
   Debugging the relay connection in the invite test.

9. Optional Next Step:
   Check the relay logs."""

_FAILED = "Error: Timed out 30000ms waiting for expect(locator).toBeVisible()\n  1 failed"
_CUT = "Let me check how the reference app handles this in its tests:"
_STOP = "the turn stopped after the assistant announced a step; no call followed"


def _after_compaction(final: str) -> str:
    s = Session()
    s.compacted(_PRIOR)
    s.call("Bash", {"command": "npx playwright test invite.spec.ts"}, _FAILED, error=True)
    s.call("Read", {"file_path": "/home/dev/board/src/relay.ts"}, "1\texport const relay = 1;\n")
    s.say(final)
    return s.summary()


def test_announced_step_after_an_earlier_summary_is_a_cut_turn_not_an_answer() -> None:
    """BENCH44 W2: the last record announces a step ending in a colon, with no call: §7 said
    "the work after it ended with an answer; nothing is pending" and "check whether each is
    still wanted" while §9 said "Do the step the assistant announced last"."""
    out = _after_compaction(f"The worker may be isolated between browser contexts. {_CUT}")
    pending, current, step = section(out, 7), section(out, 8), section(out, 9)
    assert "nothing is pending" not in out and "ended with an answer" not in out, pending
    assert "still wanted" not in pending, pending
    assert "Pending in the earlier summary (some may be done since)" in pending, pending
    assert "Make the invite test pass with real peer connectivity" in pending, pending
    assert f'{_STOP} (the turn was cut off): "{_CUT}"' in pending, pending
    assert f"Last assistant message ({_STOP})" in current and _CUT in current, current
    assert f'Do the step the assistant announced last: "{_CUT}"' in step, step


@pytest.mark.parametrize(
    ("final", "step"),
    [
        ("The worker may be isolated. Now I'll run the tests.", "Now I'll run the tests."),
        ("ワーカーが分離されている可能性があります。次に参照アプリのテストを確認します：",
         "次に参照アプリのテストを確認します："),
        ("워커가 분리되어 있을 수 있습니다. 이제 테스트 설정을 확인하겠습니다.",
         "이제 테스트 설정을 확인하겠습니다."),
        ("The relay is configured in two places. Here is what each one sets:",
         "Here is what each one sets:"),
    ],
)  # fmt: skip
def test_a_request_whose_last_text_announces_a_step_is_in_progress(final: str, step: str) -> None:
    """BENCH44 W2 by shape: English, Japanese and Korean announcements, and a text ending in a
    colon, stop the turn: not "answered; nothing is pending"."""
    s = Session()
    s.user("Find out why the invite test cannot reach the relay server.")
    s.call("Bash", {"command": "npx playwright test invite.spec.ts"}, _FAILED, error=True)
    s.say(final)
    out = s.summary()
    pending, current = section(out, 7), section(out, 8)
    assert "nothing is pending" not in out and "was answered" not in pending, pending
    assert f'{_STOP} (the turn was cut off): "{step}"' in pending, pending
    assert "The latest request is in progress" in current, current
    assert f"({_STOP})" in current, current


def test_a_final_answer_stays_an_answer() -> None:
    """The fix reads only an announcement or a closing colon: a plain answer is answered."""
    out = _after_compaction("The invite test passes now: both browsers see the same code.")
    assert "the work after it ended with an answer; nothing is pending" in section(out, 7), out
    assert _STOP not in out, out

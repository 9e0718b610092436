"""A request sent again after an earlier sending of it was answered (blind check 39 W4,
cx-dd-world; RELIABILITY row 1812).

The user's request was answered with a proposal, approved and implemented; much later the same
words were sent twice more and not answered. Section 1 said "Current request: "…" (sent 3
times)" and sections 7-9 "not answered yet", as if no sending had been answered; the answered
sending lost its place in the order ("Later requests" showed the approval with nothing it
approves). Now identical messages are not merged across an answer: the earlier sending keeps
its place and the current request says it was sent again after an answered sending. Sessions
are synthetic, built here.
"""

from __future__ import annotations

import json
from pathlib import Path

from .cc_session import Session
from .fake_server_cli import invoke

ROUTE = (
    "Can UI02 send it to the task manager, and the manager handles the server calls in one place?"
)
PROPOSAL = (
    "Yes: UI02 calls TaskMgr.Report(progress), and TaskMgr forwards it to the server through "
    "Server_AddTaskProgress, so every server call goes through one place."
)
APPROVE = "I think that works, go ahead"


def _session(resent: int = 2) -> Session:
    s = Session()
    s.user("Show the task progress panel in UI02.")
    s.call("Read", {"file_path": "/src/UI/UI02.lua"}, "local UI02 = {}\nreturn UI02\n")
    s.say("The panel is in UI02.lua; it shows the progress of the current task.")
    s.user(ROUTE)
    s.say(PROPOSAL)
    s.user(APPROVE)
    s.call("Edit", {"file_path": "/src/TaskMgr.lua", "old_string": "a", "new_string": "b"}, "ok")
    s.say("Done: UI02 reports to TaskMgr, which calls Server_AddTaskProgress.")
    s.user("Also log every report with its task id.")
    s.call("Edit", {"file_path": "/src/TaskMgr.lua", "old_string": "b", "new_string": "c"}, "ok")
    s.say("Each report is logged with its task id now.")
    for _ in range(resent):
        s.user(ROUTE)
    return s


def _section1(summary: str) -> str:
    return summary.split("<summary>", 1)[1].split("\n2. ", 1)[0]


def test_a_request_resent_after_its_answer_says_the_earlier_sending_was_answered() -> None:
    section1 = _section1(_session().summary())
    assert "(sent 3 times)" not in section1, section1
    current = section1.split("Current request: ", 1)[1]
    assert current.startswith(f'"{ROUTE}" (sent 2 times) (sent again: an earlier sending'), current
    assert "was answered: «Yes: UI02 calls TaskMgr.Report(progress)" in current, current
    later = section1.split("Later requests, in order:", 1)[1].split("Current request:", 1)[0]
    assert later.index(ROUTE) < later.index(APPROVE), later  # the answered one in its place


def test_a_request_resent_with_no_answer_between_is_still_one_request_sent_twice() -> None:
    s = Session()
    s.user("Show the task progress panel in UI02.")
    s.say("The panel is in UI02.lua.")
    s.user(ROUTE)
    s.user(ROUTE)  # no answer between: one request, sent 2 times (as before)
    section1 = _section1(s.summary())
    assert f'Current request: "{ROUTE}" (sent 2 times)' in section1, section1
    assert "sent again: an earlier sending" not in section1


def test_section_6_keeps_the_answered_sending_in_its_place(tmp_path: Path) -> None:
    """The finalizer fills section 6 from the transcript: the answered sending is listed in
    its place, the two later ones once, as the current request sent 2 times."""
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    out = tmp_path / "o.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = next(
        r["message"]["content"]
        for r in map(json.loads, out.read_text("utf-8").splitlines())
        if r.get("isCompactSummary")
    )
    text = summary if isinstance(summary, str) else summary[0]["text"]
    block = text.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert "(sent 3 times)" not in text, block
    listed = [line.strip() for line in block.strip().splitlines()]
    assert listed[1] == f"- {ROUTE}" and listed[2] == f"- {APPROVE}", listed
    assert listed[-1].endswith("(sent 2 times)"), listed


def test_a_short_reply_sent_again_after_answers_stays_one_listing_with_its_count() -> None:
    """ "ok" after each answer: no request an answer closes; a chat of a million replies
    repeats a few texts, listed once each with the count (as before)."""
    import asyncio

    from compactor.pipeline.finalize import select_user_messages
    from compactor.schema import Message

    msgs = [Message(role="user", content=ROUTE), Message(role="assistant", content=PROPOSAL)]
    for i in range(6):
        msgs += [Message(role="user", content="ok"), Message(role="assistant", content=f"x{i}")]
    msgs.append(Message(role="user", content=ROUTE))
    texts, _ = asyncio.run(select_user_messages(msgs, 4000, None, 1500))
    assert texts == [ROUTE, "ok (sent 6 times)", ROUTE], texts

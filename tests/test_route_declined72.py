"""A user who rejects a call but then supplies what it was for another way declined the call,
not the proposal before it (blind check 72 W2, jk_strom: "I can adapt your 4 photos…", then
``git show …:images/borovice.jpg`` rejected without a word; the user asked how to paste the
photos, pasted them, and the switch was made and committed, yet section 5 listed the proposal
among "Proposals the user turned down"). Sessions built by shape, invented content."""

from __future__ import annotations

from .cc_session import Session, section

_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}
_PROPOSAL = (
    "Sure! I can adapt your four photos so the quiz shows them instead of the external "
    "pictures: I will shrink them for the Pages deployment."
)


def _session(next_message: str, attached: bool = True) -> str:
    s = Session()
    s.user("Do you want to adapt the pine, beech, poplar and birch pictures?")
    s.say(_PROPOSAL)
    s.call("Bash", {"command": "git show 634770b:images/pine.jpg > pine_original.jpg"},
           _REJECTED, True)  # fmt: skip
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user(next_message)
    s.say("Drag them into this chat, or save them into images/ yourself.")
    if attached:
        s.user([{"type": "text", "text": "[Image #1] here they are"}, _IMAGE])
    else:
        s.user("add a README for the quiz folder")
    s.call("Edit", {"file_path": "/home/jo/quiz/script.js", "old_string": "https://ext/pine.jpg",
                    "new_string": "images/pine.jpg"}, "The file has been updated.")  # fmt: skip
    s.say("The quiz now shows your photos.")
    return s.summary()


def test_a_declined_call_then_the_work_by_another_way_is_no_turned_down_proposal() -> None:
    summary = _session("How do I paste them here?")
    solving = section(summary, 5)
    assert "Proposals the user turned down" not in solving
    assert "The user rejected: Bash: git show 634770b:images/pine.jpg" in solving.replace("`", "")


def test_a_rejection_the_user_follows_with_no_stays_a_turned_down_proposal() -> None:
    solving = section(_session("No, keep the external pictures?"), 5)
    assert "Proposals the user turned down" in solving


def test_a_question_then_other_work_keeps_the_proposal_turned_down() -> None:
    """Nothing was supplied: the question was only a question, the later edit other work."""
    solving = section(_session("How do I paste them here?", attached=False), 5)
    assert "Proposals the user turned down" in solving

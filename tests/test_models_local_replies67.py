"""A short reply to the assistant's own question or instruction is no new request (blind check
67 W2: "done", typed after "Let me know when you've added it!", was section 1's current request
and section 9 said to "continue the latest request: "done""). The reply is shown as the user's
answer in the work of the request it serves; a short reply after an answer that asks nothing is
still a request."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

DEPLOY = "deploy the docs site to the staging bucket"


def _session(last_said: str, reply: str) -> Session:
    s = Session()
    s.user("Fix the broken links in the docs.")
    s.bash("npm run linkcheck", "0 broken links")
    s.assistant([{"type": "text", "text": "All links are fixed."}])
    s.user(DEPLOY)
    s.call("Bash", {"command": "aws s3 sync site/ s3://docs"}, "upload failed: AccessDenied", True)
    s.assistant([{"type": "text", "text": f"The upload needs a bucket policy. {last_said}"}])
    s.user(reply)
    s.bash("aws s3 sync site/ s3://docs-staging", "upload: site/index.html")
    return s


def test_done_after_let_me_know_is_an_answer_to_the_request_in_progress(tmp_path: Path) -> None:
    told = "Let me know when you've added the policy in the console!"
    summary = cc_summary(_session(told, "ok added"), tmp_path)
    first = section(summary, 1)
    assert f'Current request: "{DEPLOY}"' in first, first
    assert 'Current request: "ok added"' not in summary
    assert "ok added" in first and "Let me know when you've added the policy" in first, first
    assert 'request: "ok added"' not in summary  # sections 7-9 name the deploy request
    assert "ok added" in section(summary, 6)  # still among the user's messages


def test_a_value_for_the_assistants_question_is_an_answer(tmp_path: Path) -> None:
    summary = cc_summary(_session("What prefix should the bucket keys have?", "v2-docs"), tmp_path)
    first = section(summary, 1)
    assert f'Current request: "{DEPLOY}"' in first, first
    assert 'Current request: "v2-docs"' not in summary


def test_a_short_reply_after_an_answer_is_still_a_request(tmp_path: Path) -> None:
    summary = cc_summary(_session("The site is live on staging.", "ok now prod"), tmp_path)
    assert 'Current request: "ok now prod"' in section(summary, 1)


def test_yes_to_an_offer_is_still_the_current_request(tmp_path: Path) -> None:
    offer = "Would you like me to add the bucket policy with Terraform?"
    summary = cc_summary(_session(offer, "yes"), tmp_path)
    assert 'Current request: "yes"' in section(summary, 1)


def test_a_confirmation_with_a_new_instruction_is_still_a_request(tmp_path: Path) -> None:
    told = "Let me know when you've added the policy in the console!"
    summary = cc_summary(_session(told, "done, now deploy prod"), tmp_path)
    assert 'Current request: "done, now deploy prod"' in section(summary, 1)

"""Blind check 46, W3, W5 and W6 (issue 28): what the user said about the assistant's words.

W3: "no … and move skills to ~/.agents/skills" after "I'll … move ~/.codex/skills to
~/.agents/skills (with compatibility preserved) …" rejected only what it did not restate, yet the
whole proposal was listed as turned down ("do not act on them"). W5: the user rejected an
approach ("I think its better not to store any PII in local storage"); only one sentence of the
message that proposed it was marked, and its "No longer holds (… removed "userEmail")" named an
identifier the later change kept. W6: an answer the user's next message corrected (the review's
URL) was quoted in section 8 as an earlier request's answer, unmarked."""

from __future__ import annotations

import pytest

from compactor.models.local import summarize_transcript
from compactor.models.local_corrected import corrects
from compactor.models.local_restated import restated_proposals

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- W3: a "no" that restates part of the proposal -------------------------------------------------

_PROPOSAL = (
    "I'll do exactly that: remove the duplicate skill folders, move ~/.codex/skills to "
    "~/.agents/skills (with a compatibility symlink kept at ~/.codex/skills), then run a full "
    "hook lifecycle smoke test."
)


def _skills_session(reply: str, changed_first: bool = False) -> str:
    s = SessionBuilder()
    s.user("move the skills to ~/.agents/skills and clean up the duplicates")
    s.call("shell_command", {"command": "ls ~/.codex/skills ~/.agents"}, "skills-a\nskills-b")
    if changed_first:  # a change before the proposal: the "no" follows a change
        readme: dict[str, object] = {"file_path": "/home/u/.codex/skills/README.md", "content": "x"}
        s.call("Write", readme, "File created successfully")
    s.say(_PROPOSAL)
    s.user(reply)
    s.call("shell_command", {"command": "mv ~/.codex/skills ~/.agents/skills"}, "")
    return summarize_transcript(s.messages)


@pytest.mark.parametrize("changed_first", [False, True])
def test_a_no_that_restates_part_of_the_proposal_is_the_users_decision(
    changed_first: bool,
) -> None:
    reply = (
        "no match the documentation formatting standard and move skills to ~/.agents/skills "
        "and remove the duplicate ~/.codex/skills"
    )
    summary = section(_skills_session(reply, changed_first), 5)
    assert "Proposals the user turned down" not in summary, summary
    decided = f'Decided by the user, amending the proposal: "{reply}"'
    assert f"- {decided}" in summary, summary  # not "Not accepted by the user (…): Decided …"
    assert "compatibility symlink" not in summary, summary  # the rejected detail stays out


def test_a_no_that_negates_the_proposal_still_turns_it_down() -> None:
    summary = section(_skills_session("no, don't move the skills folder, leave it"), 5)
    assert "Proposals the user turned down" in summary, summary
    assert "amending the proposal" not in summary, summary
    assert restated_proposals("no, let's fix the tests first", ["I'll move the skills."]) == []


# -- W5: a rejected approach marks every sentence of it; the removed token is a removed one --------

_PROPOSES = (
    "The email is not sensitive data, so the simplest fix is to read/write `userEmail` to "
    "localStorage."
)
_JUSTIFIES = (
    "Done: the menu keeps it now. The email isn't sensitive data, so this is safe — unlike "
    "tokens or keys which stay memory-only."
)
_STORE = "/app/src/auth.store.ts"
_PLAIN = "    set({ userEmail: email });"
_PERSISTED = "    localStorage.setItem('userEmail', email);\n" + _PLAIN


_NO_PII = (
    "given the privacy focus of the app, I think its better not to store any PII in local storage"
)


def _email_session(next_request: str) -> str:
    s = SessionBuilder()
    s.user("the user menu loses the email after a page reload, fix it")
    s.say(_PROPOSES)
    s.call(
        "Edit",
        {"file_path": _STORE, "old_string": _PLAIN, "new_string": _PERSISTED},
        "The file has been updated.",
    )
    s.say(_JUSTIFIES)
    s.user(next_request)
    s.call(
        "Edit",
        {"file_path": _STORE, "old_string": _PERSISTED, "new_string": _PLAIN},
        "The file has been updated.",
    )
    s.call(
        "Edit",
        {
            "file_path": "/app/src/api/auth.ts",
            "old_string": "return { token }",
            "new_string": "return { token, email: user.email }",
        },
        "The file has been updated.",
    )
    return section(summarize_transcript(s.messages), 5)


def _decision(summary: str, sentence: str) -> str:
    return next(ln for ln in summary.splitlines() if sentence in ln)


def test_a_rejected_approach_marks_the_proposal_and_its_justification() -> None:
    summary = _email_session(_NO_PII)
    for sentence in ("so the simplest fix is", "so this is safe"):
        line = _decision(summary, sentence)
        assert "at the user's request" in line or "Not accepted" in line, summary


def test_a_rejected_approach_before_any_change_marks_the_whole_message() -> None:
    s = SessionBuilder()
    s.user("the user menu loses the email after a page reload, how would you fix it?")
    s.say(f"{_PROPOSES} I'll add it to the auth store. {_JUSTIFIES.removeprefix('Done: ')}")
    s.user(_NO_PII)
    s.call("Read", {"file_path": "/app/src/api/auth.ts"}, "return { token }")
    summary = section(summarize_transcript(s.messages), 5)
    for sentence in ("so the simplest fix is", "so this is safe"):
        assert _decision(summary, sentence).lstrip(" -").startswith("Not accepted"), summary
    turned_down = summary.split("Proposals the user turned down", 1)[1]
    assert "I'll add it to the auth store." in turned_down, summary


def test_no_longer_holds_names_a_token_the_later_change_removed() -> None:
    summary = _email_session("now return the email from the refresh endpoint as well")
    line = _decision(summary, "so the simplest fix is")
    assert 'removed "localStorage"' in line, summary
    assert 'removed "userEmail"' not in summary, summary  # still in the new version
    assert _decision(summary, "so this is safe").lstrip(" -").startswith("No longer holds")


# -- W6: an answer the user's next message corrected -----------------------------------------------

_ANSWER = (
    "That's the same PR — 188. The CodeRabbit comment is just the walkthrough summary with all 3 "
    "pre-merge checks passing. No actionable review comments or issues raised. It's clean to "
    "merge.\n\n## PR 188 status\n- Title: docs: CRDT inbox research notes\n- Checks: lint "
    "passed, docs build passed, link check passed\n- Reviews: CodeRabbit (walkthrough only), no "
    "human review yet\n- Mergeable: yes, no conflicts with main\n- Files: docs/14-CONTEXT.md, "
    "docs/15-RESEARCH.md, docs/index.md\n\nNothing else is needed before merging; say the word "
    "and I will merge it with a squash commit."
)


def _review_session(correction: str) -> str:
    s = SessionBuilder()
    s.user("is there a CodeRabbit review on PR 188?")
    s.call("Bash", {"command": "gh pr view 188 --comments"}, "walkthrough\nchecks: 3 passed")
    s.say(_ANSWER)
    s.user(correction)
    s.say("Let me read that review.")
    s.call(
        "Bash",
        {"command": "gh api repos/acme/notes/pulls/188/reviews/3301"},
        "Actionable comments posted: 1\nNitpick: add a related entry",
    )
    s.say("The review has one actionable comment and a nitpick; fixing both.")
    s.call(
        "Edit",
        {"file_path": "/repo/docs/14-CONTEXT.md", "old_string": "a", "new_string": "b"},
        "The file has been updated.",
    )
    s.say("I'm on main — need to switch to the docs branch")
    s.call("Bash", {"command": "git switch docs/notes"}, "Switched to branch 'docs/notes'")
    return section(summarize_transcript(s.messages), 8)


def test_an_answer_the_user_corrected_with_a_link_is_marked_superseded() -> None:
    url = "https://github.com/acme/notes/pull/188#pullrequestreview-3301"
    summary = _review_session(url)
    title = next(ln for ln in summary.splitlines() if "An earlier request's answer" in ln)
    assert f"superseded by the user's correction: '{url}'" in title, summary


def test_what_counts_as_a_correction() -> None:
    assert corrects("look again, it has comments", "No comments.")
    assert corrects("are you sure?", "It's clean.")
    assert not corrects("https://example.com/other/thing", "That's the same PR — 188.")
    long_request = "now add dark mode to the settings page, see https://example.com/pull/188"
    assert not corrects(long_request, "That's the same PR — 188.")

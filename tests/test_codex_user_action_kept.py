"""A reduced Codex history keeps every user message Codex's own compaction keeps (issue 30;
blind check 13: vo-inflight's ``<user_action>`` message, the result of the user's ``/review``,
was dropped from the ``replacement_history`` by reduce and hybrid, 57 → 56 user messages, and the
next request, "fix the above", lost its referent).

Codex's compaction keeps every user message but the contextual ones
(``codex-rs/core/src/compact.rs::collect_user_messages`` → ``event_mapping.rs::parse_user_message``;
:mod:`compactor.formats._codex_context`): ``<environment_context>`` is left out, as Codex's own
compaction leaves it out; ``<user_action>`` and text the user typed with a leading ``<`` stay.
The rollout is built here (:func:`rollout_with_review`).

Blind check 29 reversed the left-outs for a history with no summary: reduce (and hybrid that only
reduced) keeps every user-role record, ``<environment_context>`` and the user's shell echo
included (nothing summarizes what it would drop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import Message

from .codex_rollout import rec
from .test_codex_instructions_kept import ENV, _message, _replacement, _run, _texts, rollout

REVIEW = (
    "<user_action>\n  <context>User initiated a review task. Here's the full review output from "
    "reviewer model. User may select one or more comments to resolve.</context>\n"
    "  <action>review</action>\n  <results>\n  [P1] Coupon applied twice when the cart is "
    "reloaded - cart.py:42\n  </results>\n  </user_action>"
)
TYPED = "<div class='total'> renders 0 - fix it in templates/cart.html"
SHELL = (
    "<user_shell_command>\n<command>ls</command>\n<result>cart.py</result>\n</user_shell_command>"
)


def rollout_with_review() -> bytes:
    """:func:`rollout`, then a ``/review`` result, the user's request to fix it, a message the
    user typed that starts with ``<``, a user shell command, a second environment context and
    two more shell rounds."""
    extra = [
        _message("user", REVIEW),
        _message("user", "Fix the finding above."),
        _message("user", ENV.replace("/work/shop", "/work/shop2")),
        _message("user", SHELL),
        _message("user", TYPED),
    ]
    for n in range(5, 7):
        out = "".join(f"{n}: line {i} of cart.html as it was read\n" for i in range(40))
        call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
        call["arguments"] = json.dumps({"command": ["cat", "cart.html"]})
        output = {"type": "function_call_output", "call_id": f"call_{n}", "output": out}
        extra += [rec("response_item", call), rec("response_item", output)]
    extra.append(_message("assistant", "Fixed the double coupon and the total."))
    return rollout() + b"".join(json.dumps(r).encode() + b"\n" for r in extra)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(rollout_with_review())
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),  # under its trigger: it only reduces
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_reduced_codex_history_keeps_the_review_result_and_typed_text(
    tmp_path: Path, src: Path, args: tuple[str, ...]
) -> None:
    texts = [
        text for role, text in _texts(_replacement(_run(tmp_path, src, *args))) if role == "user"
    ]
    assert REVIEW in texts and TYPED in texts
    assert texts.index(REVIEW) + 1 == texts.index("Fix the finding above.")  # where it was
    assert any(t.startswith("<environment_context>") for t in texts)  # kept (blind check 29)
    assert SHELL in texts
    # every user message of the input is there, once, in order
    parsed = read_transcript(str(src), src.read_bytes())
    users = [m.content for m in parsed.messages if isinstance(m, Message) and m.role == "user"]
    assert texts == users


def test_the_review_result_is_still_not_a_typed_request(src: Path) -> None:
    """The reader still marks it as context (never the current request); the writer keeps it."""
    parsed = read_transcript(str(src), src.read_bytes())
    review = next(m for m in parsed.messages if isinstance(m, Message) and m.content == REVIEW)
    assert review.extra.get("injected") is True


def test_the_summary_shows_the_review_result_before_the_request_about_it(
    tmp_path: Path, src: Path
) -> None:
    """The embedded summary names the ``/review`` and its findings among the context the CLI
    injected, with the request that followed it ("fix the above" has its referent)."""
    raw = _run(tmp_path, src, "--force")
    summary = next(t for role, t in _texts(_replacement(raw)) if "Primary Request" in t)
    flat = " ".join(summary.split())
    assert "The user ran /review through the CLI" in flat
    assert "'Fix the finding above.', may refer to it" in flat
    assert "[P1] Coupon applied twice when the cart is reloaded - cart.py:42" in flat

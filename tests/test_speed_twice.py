"""Work the local run did twice, done once (issue 28 point 7, helper perf51): each shortcut
gives the answer of the code it skips, checked with hypothesis."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.facts import Call, Entry, one_line
from compactor.facts import reportedwrites as rw
from compactor.facts.cmdprompt import command_prompts, markup_echoes
from compactor.facts.commands import is_reading_call
from compactor.facts.usershell import shell_echoes
from compactor.facts.wrappedread import is_wrapped_read
from compactor.models import local_aside, local_noise, local_session
from compactor.models.base import INPUT_TOKENS, estimated_input
from compactor.models.local_noise import collapse_resent
from compactor.models.local_requests import (
    request_lines,
    session_request_lines,
    session_user_lines,
    user_message_lines,
)
from compactor.models.local_session import Session, build_session
from compactor.pipeline.chunking import input_tokens
from compactor.schema import Block, make_assistant

from .conftest import examples

_VERBS = (
    "Copied",
    "copied",
    "Saved",
    "saved",
    "Wrote",
    "wrote",
    "Written",
    "written",
    "Exported",
    "exported",
    "Created",
    "created",
    "Writing",
    "writing",
    "Generated",
    "generated",
    "Generating",
    "generating",
    "opied",
    "reated",
    "rote",
    "aved",
    "x",
)
_REPORT_LINES = st.tuples(
    st.sampled_from(["", "[INFO] ", "✓ ", "==> ", "OK: ", "12:30:01 ", "- ", "  "]),
    st.sampled_from(_VERBS),
    st.sampled_from(
        [
            " ",
            " plan template to ",
            " -> ",
            " 3 files to ",
            " new file ",
            " to ",
            " the new ",
            " report into ",
            "\t",
        ]
    ),
    st.sampled_from(
        [
            "src/app.py",
            "/srv/x/plan.md",
            "Makefile",
            "notes",
            "a.txt.",
            "'a b.md'",
            "dist/",
            "https://x.io/a.md",
            "$OUT/a.md",
            "é.md",
        ]
    ),
    st.sampled_from(["", " (3 KB)", "...", " …", ":", " done"]),
).map("".join)
_REPORTS = st.lists(st.one_of(_REPORT_LINES, st.sampled_from(["", "ok", "Error: x"])), max_size=5)
_COMMANDS = st.sampled_from(
    ["./setup.sh --json", "python gen.py", "bash -lc 'make docs'", "cat build.log",
     "grep -r Created .", "bash -lc 'cat out.txt'", 'echo "Created a/b.txt"', "npm run build"]
)  # fmt: skip


@settings(max_examples=examples(3000), deadline=None, database=None, derandomize=True)
@given(_COMMANDS, _REPORTS.map("\n".join))
def test_property_reported_writes_prefilter_drops_no_report(command: str, text: str) -> None:
    """``reported_writes`` decides by the call before it scans the output for the verbs' hints
    (most calls only read): the same reports as running the report pattern on every shell call
    that does not only read, whatever the output holds."""
    call = Call("c1", "exec_command", json.dumps({"cmd": command}), 1)
    reads = is_reading_call(call) or is_wrapped_read(call)
    assert rw.reported_writes(call, text) == ([] if reads else rw._reports(command, text))


class _ReadingModel:
    """A model that only reads its input and notes what the pipeline told it it counted."""

    name = "reading"
    readonly_input = True

    def __init__(self) -> None:
        self.seen: list[tuple[bool, int | None, int]] = []

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        told = INPUT_TOKENS.get()
        count = None if told is None else told[1]
        self.seen.append((told is not None and told[0] is messages, count, input_tokens(messages)))
        return make_assistant(c.Message, "<summary>\n1. Primary Request: the work.\n</summary>")


def _history(n: int) -> list[Any]:
    out: list[Any] = [c.Message("system", "You are an agent.")]
    for i in range(n):
        out += [c.Message("user", f"request {i} é"), c.Message("assistant", f"done {i}")]
    return out


def test_a_model_that_only_reads_its_input_is_told_the_count_the_checks_make() -> None:
    """The pipeline counts every model input for its reply checks; a model handed that very
    list (``readonly_input``) is told the count (:data:`INPUT_TOKENS`), so the embedded
    summarizer does not walk a million messages a third time (the tiny bench shape)."""
    model = _ReadingModel()
    asyncio.run(c.new(c.Config(model=model)).summarize(c.AgentState(_history(30))))
    assert model.seen and all(same and told == real for same, told, real in model.seen)
    assert INPUT_TOKENS.get() is None  # only around the call


@settings(max_examples=examples(500), deadline=None, database=None, derandomize=True)
@given(
    st.lists(st.sampled_from(["", "ok", "yes é", "x" * 41, "日本語のテキスト"]), max_size=12),
    st.integers(0, 14),
    st.integers(0, 14),
)
def test_property_estimated_input_with_the_count_is_the_count_made_again(
    texts: list[str], start: int, end: int
) -> None:
    """:func:`estimated_input` with the pipeline's count of the list gives what counting the
    context and the messages around it gives."""
    from compactor.models.local_focus import ContextView

    messages: list[Any] = [
        c.Message("user" if i % 2 else "assistant", t) for i, t in enumerate(texts)
    ]
    start = min(start, len(messages))
    end = max(start, min(end, len(messages)))
    context = ContextView(messages, start, end)
    plain = estimated_input(messages, context, start, end)
    told = INPUT_TOKENS.set((messages, input_tokens(messages)))
    try:
        assert estimated_input(messages, context, start, end) == plain
        assert estimated_input(list(messages), context, start, end) == plain  # another list
    finally:
        INPUT_TOKENS.reset(told)


@settings(max_examples=examples(1500), deadline=None, database=None, derandomize=True)
@given(
    st.lists(st.sampled_from(["ok", "yes", "2", "fix the bug", "x" * 130, "x" * 130 + "y",
                              "commit and push", "the user ran `ls`", "好的"]), max_size=14),
    st.lists(st.sampled_from(["ok", "fix the bug", "x" * 130 + "z"]), max_size=3),
    st.booleans(),
    st.booleans(),
)  # fmt: skip
def test_property_collapse_resent_with_the_memo_is_collapsing_again(
    texts: list[str], more: list[str], at_last: bool, apart: bool
) -> None:
    """A session remembers the runs of sendings of the last texts read (sections 1 and 6 read
    the same ones): a call that finds them, a call on an equal list, and a call on other
    texts give what a call without the memo gives."""
    memo: list[Any] = []
    fresh = collapse_resent(texts, at_last, apart)
    assert collapse_resent(texts, not at_last, not apart, memo) == collapse_resent(
        texts, not at_last, not apart
    )
    assert collapse_resent(list(texts), at_last, apart, memo) == fresh  # found in the memo
    longer = texts + more  # other texts
    assert collapse_resent(longer, at_last, apart, memo) == collapse_resent(longer, at_last, apart)
    assert collapse_resent(texts, at_last, apart, memo) == fresh


def test_the_requests_and_the_messages_are_collapsed_once(monkeypatch: Any) -> None:
    """Section 1's requests and section 6's messages of a chat are the same texts: the
    session's runs of sendings are worked out once (a million tiny messages: each compared
    once, not twice, and not again for each render of the summary)."""
    texts = ["fix the bug", "x" * 130, "x" * 130 + " more", "ok", "ok", "fix the bug"] * 50
    entries = [Entry(2 * i + 1, "user", t) for i, t in enumerate(texts)]
    s = Session(entries=entries, requests=list(entries))
    compared: list[int] = []
    real = local_noise._same_message

    def counting(a: str, b: str) -> bool:
        compared.append(1)
        return real(a, b)

    monkeypatch.setattr(local_noise, "_same_message", counting)
    first = session_request_lines(s, 80, 10, 500)
    once = len(compared)
    users = session_user_lines(s, 5, 5, 80)
    again = session_request_lines(s, 80, 10, 500)
    assert once > 100 and len(compared) <= once + 2  # (first_resent: the first two texts)
    assert users == user_message_lines(texts, 5, 5, 80)
    assert again == first == request_lines(texts, 80, 10, 500)


_USER_TEXTS = st.sampled_from(
    ["yes", "ok", "run the tests", "  ", "", "/model opus", "/clear", "/plan", "/compact now",
     "<command-name>/clear</command-name>", "<command-name>review</command-name> x",
     "<bash-input>ls</bash-input>", "<bash-stdout>a.txt</bash-stdout>", "fix it\nand test it",
     "/rate-limit-options\n/rate-limit-options", "This session is being continued from a "
     "previous conversation that ran out of context.", "Please evaluate the work so far.",
     "[Request interrupted by user]", "<environment_context>x</environment_context>",
     "The agent has finished. Now running the automated tests.",
     "why did it fail?", "x" * 199, "x" * 201, "好的", "2"]
)  # fmt: skip


@settings(max_examples=examples(1500), deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(_USER_TEXTS, st.booleans(), st.booleans()), max_size=10))
def test_property_plain_requests_are_read_as_the_long_way_reads_them(
    turns: list[tuple[str, bool, bool]],
) -> None:
    """A short user text judged once a plain request (``plain_request``) makes the session the
    long way of judging each text makes, whatever the texts around it."""
    entries: list[Entry] = []
    for text, injected, answered in turns:
        entries.append(Entry(len(entries), "user", text, injected=injected))
        if answered:
            entries.append(Entry(len(entries), "assistant", "Done."))
    fast = build_session(list(entries))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local_session, "plain_request", lambda text: False)
        slow = build_session(list(entries))
    assert fast == slow


def test_a_short_user_text_is_judged_once(monkeypatch: Any) -> None:
    """A chat of a million tiny messages repeats a few texts: each is judged a request once,
    not asked again per message whether it is a CLI command, an earlier summary, a notice."""
    asked: list[str] = []
    real = local_noise.local_command

    def counting(text: str) -> str | None:
        asked.append(text)
        return real(text)

    monkeypatch.setattr(local_session, "local_command", counting)
    texts = ["run the tests", "yes", "/model opus", "ok"] * 100
    s = build_session([Entry(i, "user", t) for i, t in enumerate(texts)])
    assert [e.text for e in s.requests] == [t for t in texts if t != "/model opus"]
    assert set(asked) == {"/model opus"}  # the CLI command only, the long way


_CHAT_TEXTS = st.sampled_from(
    ["ok", " <bash-input>ls</bash-input>", "<bash-input>ls</bash-input>",
     "<bash-stdout>a.txt</bash-stdout><bash-stderr></bash-stderr>", "<bash-input>x</bash-input>"
     "<bash-stdout>1</bash-stdout>", "<command-name>/deploy</command-name>",
     "\n<command-message>review</command-message>\n<command-name>/review</command-name>",
     "<command-name>/clear</command-name>", "Deploy the app to staging, then run the checks.",
     "<system-reminder>x</system-reminder>", "  "]
)  # fmt: skip


@settings(max_examples=examples(1500), deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(_CHAT_TEXTS, st.sampled_from(["user", "assistant"]), st.booleans())))
def test_property_markup_echoes_are_the_shell_echoes_and_command_prompts(
    turns: list[tuple[str, str, bool]],
) -> None:
    """The finalizer walks its candidates once for both the ``!`` commands' echoes and the
    slash commands' prompts: what the two walks over every candidate found."""
    context = [
        c.Message(role, text, extra={"injected": True} if injected else {})
        for text, role, injected in turns
    ]
    users = [m for m in context if m.role == "user"]
    both = shell_echoes(context, users) | command_prompts(context, users)
    assert markup_echoes(context, users) == both


def _asides_the_long_way(s: Session, items: Sequence[Any]) -> None:
    """judge_asides as it was: each request's message looked up, whatever the messages."""
    asides = [
        r
        for k, r in enumerate(s.requests)
        if k
        and r.index < len(items)
        and local_aside._delivered_mid_turn(items[r.index])
        and local_aside._aside(one_line(r.text))
    ]
    if not asides:
        return
    taken = {r.index for r in asides}
    s.requests = [r for r in s.requests if r.index not in taken]
    s.asides = asides
    last = s.requests[-1]
    if s.reply is not None and s.reply.index < last.index:
        s.reply = None
    s.request_started = s.request_started or any(
        e.role == "assistant" for e in s.entries[last.index + 1 :]
    )


_QUEUED = {"attachment": "queued_command"}


@settings(max_examples=examples(1000), deadline=None, database=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant"]),
            st.sampled_from(["dont use example.com", "why is it slow?", "fix it", "Done."]),
            st.sampled_from(["chat", "agent", "queued"]),
        ),
        max_size=10,
    ),
    st.integers(0, 3),
)
def test_property_asides_of_a_chat_are_none_and_of_an_agent_as_before(
    turns: list[tuple[str, str, str]], extra_items: int
) -> None:
    """Only an agent's message is delivered mid-turn: a history of chat messages alone is not
    looked through (a million of them), and any other history gives the asides it gave."""
    items: list[Any] = []
    for role, text, kind in turns:
        if kind == "chat":
            items.append(c.Message(role, text))
        else:
            block = Block("user_input_text" if role == "user" else "assistant_gen_text", text)
            items.append(
                c.AgenticMessage(role, [block], extra=dict(_QUEUED) if kind == "queued" else {})
            )
    entries = [Entry(i, role, text) for i, (role, text, _) in enumerate(turns)]
    requests = [e for e in entries if e.role == "user"]
    shown = items[: max(0, len(items) - extra_items)]  # entries past the items too
    fast = Session(entries=list(entries), requests=list(requests))
    slow = Session(entries=list(entries), requests=list(requests))
    local_aside.judge_asides(fast, shown)
    _asides_the_long_way(slow, shown)
    assert fast == slow


class _NoLookups(list[Any]):
    def __getitem__(self, index: Any) -> Any:
        raise AssertionError("a chat's message looked up")


def test_a_chat_is_not_looked_through_for_asides() -> None:
    """A chat of a million tiny messages (no agent's message among them) holds no aside."""
    items = _NoLookups(c.Message("user" if i % 2 else "assistant", "ok") for i in range(40))
    requests = [Entry(i, "user", "ok") for i in range(1, 40, 2)]
    s = Session(
        entries=[Entry(i, m.role, m.content) for i, m in enumerate(items)], requests=requests
    )
    local_aside.judge_asides(s, items)
    assert s.requests == requests and not s.asides

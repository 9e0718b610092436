"""Retention check (compactor.pipeline.retention): anchors of every kind from both message shapes,
determinism, user-only instructions, check + repair, idempotence, transform, selection, the
embedded summarizer on the shared transcripts, properties."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.formats.registry import read_transcript
from compactor.models.local import LocalSummarizer, summarize_transcript
from compactor.pipeline.retention import (
    KIND_PRIORITY,
    PRESERVED_FACTS_HEADER,
    Anchor,
    RetentionReport,
    apply_retention,
    check_retention,
    extract_anchors,
    repair_summary,
)
from compactor.schema import CONTENT_TYPE_KEY, AgenticMessage, Block, Message, Part, ToolCall
from compactor.secrets.masking import SecretMasker

from .conftest import shared_transcript_files


def A(kind: str, text: str) -> Anchor:
    return Anchor(kind, text)


TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/ana/proj/src/app.py", line 12, in <module>\n'
    "    main()\n"
    "ValueError: invalid literal for int() with base 10: 'abc'\n"
)


def chat_session() -> list[Message]:
    return [
        Message("system", "You must never reveal this. Config lives in /etc/system.conf"),
        Message(
            "user",
            "Fix the failing test in src/app.py. You must not touch /etc/hosts. "
            "Don't push to main! Use Python 3.11.7 and port 8080, see issue #123 and "
            "https://github.com/o/r/issues/123.",
        ),
        Message(
            "assistant",
            "I'll look at `parse_config()` in ./lib/config.ts; compactor.formats.registry.read("
            " is used, and class TokenCounter too. You must trust me.",
            tool_calls=[
                ToolCall(
                    "c1",
                    "bash",
                    json.dumps(
                        {"command": "pytest tests/test_app.py -x && pip install requests==2.31.0"}
                    ),
                )
            ],
        ),
        Message(
            "tool",
            TRACEBACK + "FAILED tests/test_app.py::test_parse - AssertionError: 1 != 2\n"
            "Exit code 1\nnote: you must always ignore this, it is a tool result\n"
            "see https://tool.example/ignored and ignored/path/in/a/listing.py",
            tool_call_id="c1",
            tool_name="bash",
        ),
        Message(
            "user", "On Windows it is C:\\Users\\ana\\proj\\main.py. Always run `make lint` first."
        ),
        Message("user", "Caveat: you must always obey the hook", extra={"injected": True}),
        Message(
            "user", "Earlier summary: you must never do X", extra={CONTENT_TYPE_KEY: "summary"}
        ),
    ]


CHAT_ANCHORS = [
    A("path", "src/app.py"),
    A("instruction", "You must not touch /etc/hosts."),
    A("path", "/etc/hosts"),
    A("instruction", "Don't push to main!"),
    A("number", "Python 3.11.7"),
    A("number", "port 8080"),
    A("number", "issue #123"),
    A("url", "https://github.com/o/r/issues/123"),
    A("identifier", "parse_config"),
    A("path", "./lib/config.ts"),
    A("identifier", "compactor.formats.registry.read"),
    A("identifier", "TokenCounter"),
    A("path", "tests/test_app.py"),
    A("number", "requests==2.31.0"),
    A("path", "/home/ana/proj/src/app.py"),
    A("error", "ValueError: invalid literal for int() with base 10: 'abc'"),
    A("error", "FAILED tests/test_app.py::test_parse - AssertionError: 1 != 2"),
    A("number", "Exit code 1"),
    A("path", "C:\\Users\\ana\\proj\\main.py"),
    A("instruction", "Always run `make lint` first."),
]


def test_every_kind_from_chat_messages() -> None:
    assert extract_anchors(chat_session()) == CHAT_ANCHORS
    assert {a.kind for a in CHAT_ANCHORS} == set(KIND_PRIORITY)


def agentic_session() -> list[AgenticMessage]:
    return [
        AgenticMessage("system", [Block("user_input_text", "never read: /etc/secret.conf")]),
        AgenticMessage(
            "user",
            [
                Block(
                    "user_input_text", "Please make sure the API in server/main.go keeps port 3000."
                )
            ],
        ),
        AgenticMessage(
            "assistant",
            [
                Block("reasoning", "I must think about reasoning/only.py"),
                Block(
                    "assistant_gen_text", "Running `go test ./...` against `handlers.NewRouter`."
                ),
                Block(
                    "function_tool_call",
                    call_id="t1",
                    name="Bash",
                    arguments=json.dumps(
                        {"command": "go test ./server/... -run TestRouter", "cwd": "/srv/app"}
                    ),
                ),
            ],
        ),
        AgenticMessage(
            "user",
            [
                Block(
                    "function_tool_result",
                    call_id="t1",
                    name="Bash",
                    content=[
                        Block("user_input_text", "server/main.go:14:2: undefined: NewRouter"),
                        Block(
                            "function_tool_result",
                            content=[
                                Block(
                                    "user_input_text",
                                    "panic: runtime error: index out of range [3]",
                                )
                            ],
                        ),
                        Block(
                            "user_input_text",
                            "exit status 2\nyou must never see this as an instruction",
                        ),
                    ],
                ),
                Block("user_input_text", "Never change the public API."),
            ],
        ),
        AgenticMessage(
            "assistant",
            [Block("assistant_gen_text", "Docs: https://go.dev/doc/modules/layout (see v1.22.3).")],
        ),
    ]


AGENTIC_ANCHORS = [
    A("instruction", "Please make sure the API in server/main.go keeps port 3000."),
    A("path", "server/main.go"),
    A("number", "port 3000"),
    A("identifier", "handlers.NewRouter"),
    A("path", "/srv/app"),
    A("error", "panic: runtime error: index out of range [3]"),
    A("number", "exit status 2"),
    A("instruction", "Never change the public API."),
    A("url", "https://go.dev/doc/modules/layout"),
    A("number", "v1.22.3"),
]


def test_every_kind_from_agentic_messages() -> None:
    assert extract_anchors(agentic_session()) == AGENTIC_ANCHORS


def test_extraction_is_deterministic_and_never_mutates() -> None:
    chat, agentic = chat_session(), agentic_session()
    before = copy.deepcopy((chat, agentic))
    assert extract_anchors(chat) == extract_anchors(copy.deepcopy(chat))
    assert extract_anchors(agentic) == extract_anchors(agentic)
    assert (chat, agentic) == before


def test_instructions_come_from_the_users_own_messages_only() -> None:
    msgs = [
        Message("user", "You must keep the tests green."),
        Message("assistant", "I must not break anything. Never again."),
        Message("tool", "WARNING: you must upgrade pip", tool_call_id="x"),
        Message("user", "you must always obey the skill", extra={"injected": True}),
        Message(
            "user", "an earlier summary: never skip tests", extra={CONTENT_TYPE_KEY: "summary"}
        ),
        Message("system", "You must be helpful."),
        Message("user", "", parts=[Part("text", "Do not use sudo."), Part("image_url", url="x")]),
        Message("user", "Never."),  # too short to be an instruction
    ]
    agentic = [
        AgenticMessage(
            "user",
            [Block("function_tool_result", content=[Block("user_input_text", "you must retry")])],
        ),
        AgenticMessage("user", [Block("user_input_text", "Always answer in English please.")]),
    ]
    assert [a for a in extract_anchors(msgs) if a.kind == "instruction"] == [
        A("instruction", "You must keep the tests green."),
        A("instruction", "Do not use sudo."),
    ]
    assert extract_anchors(agentic) == [A("instruction", "Always answer in English please.")]


def test_long_lines_are_cut_to_200_characters_at_a_word() -> None:
    words = " ".join(f"word{i}" for i in range(80))
    msgs = [
        Message("user", f"You must keep {words}."),
        Message("tool", f"RuntimeError: {words}", tool_call_id="x"),
    ]
    anchors = extract_anchors(msgs)
    assert [a.kind for a in anchors] == ["instruction", "error"]
    for a in anchors:
        assert len(a.text) <= 200
        assert a.text.split()[-1].startswith("word")  # cut at a word, not inside one


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("edit src/app.py and ./x/y.ts then /etc/hosts", ["src/app.py", "./x/y.ts", "/etc/hosts"]),
        ("see ~/.ssh/config and C:\\x\\y.txt", ["~/.ssh/config", "C:\\x\\y.txt"]),
        ("the Makefile and README.md and package.json", ["Makefile", "README.md", "package.json"]),
        (
            "cat .github/workflows/ci.yml ~/.claude/x.sh",
            [".github/workflows/ci.yml", "~/.claude/x.sh"],
        ),
        ("npm i @solana/web3.js", []),
        ("and/or, client/server, 1/2, 2024/01/15, /tmp, e.g. Node.js", []),
        ("https://example.com/a/b.py is a url, not a path", []),
        ("--- a/src/lib.rs\n+++ b/src/lib.rs", ["src/lib.rs"]),
        ("app.py and later src/app.py", ["src/app.py"]),  # the bare name adds nothing
        ("write to /dev/null", []),
    ],
)
def test_path_extraction(text: str, expected: list[str]) -> None:
    anchors = extract_anchors([Message("assistant", text)])
    assert [a.text for a in anchors if a.kind == "path"] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("KeyError: 'user_id'", ["KeyError: 'user_id'"]),
        (
            "requests.exceptions.HTTPError: 404 Client Error",
            ["requests.exceptions.HTTPError: 404 Client Error"],
        ),
        (
            'error: could not compile `app` (bin "app")',
            ['error: could not compile `app` (bin "app")'],
        ),
        (
            "src/main.rs:3:5: error[E0308]: mismatched types",
            ["src/main.rs:3:5: error[E0308]: mismatched types"],
        ),
        (
            "src/a.ts(3,5): error TS2322: Type 'x' is not assignable",
            ["src/a.ts(3,5): error TS2322: Type 'x' is not assignable"],
        ),
        ("fatal: not a git repository", ["fatal: not a git repository"]),
        ("npm ERR! code ERESOLVE", ["npm ERR! code ERESOLVE"]),
        ("bash: rg: command not found", ["bash: rg: command not found"]),
        (
            "thread 'main' panicked at src/main.rs:2:5:",
            ["thread 'main' panicked at src/main.rs:2:5:"],
        ),
        ("Uncaught TypeError: x is undefined", ["Uncaught TypeError: x is undefined"]),
        # code and listings are not error reports
        ("raise ValueError('bad')\n    12→ValueError: in a listing\n# error: a comment", []),
        ("except KeyError:\nthrow new Error('x')\n- error: a bullet", []),
        ("Error handling is described below. No errors found.", []),
    ],
)
def test_error_extraction(text: str, expected: list[str]) -> None:
    anchors = extract_anchors([Message("tool", text, tool_call_id="x")])
    assert [a.text for a in anchors if a.kind == "error"] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Use version 3.11.7, v2.0.1 and Python 3.12", ["version 3.11.7", "v2.0.1", "Python 3.12"]),
        (
            "pin django==4.2 and run on port 8000 or localhost:3000",
            ["django==4.2", "port 8000", "localhost:3000"],
        ),
        ("fixes #123 and issue 45, PR #7", ["#123", "issue 45", "PR #7"]),
        (
            "it returned exit code 2; later exited with code 1; exit code 0",
            ["exit code 2", "exited with code 1"],
        ),
        ("got HTTP 404 then status code 500", ["HTTP 404", "status code 500"]),
        # numbers without context are not anchors
        ("I have 3 apples, 42 files, 2 days, 1.5x faster, 10:30, 1.2.3.4", []),
        ("https://host:8080/v1.2.3/x#123", []),  # inside a URL: the URL is the anchor
    ],
)
def test_number_extraction(text: str, expected: list[str]) -> None:
    anchors = extract_anchors([Message("user", text)])
    assert [a.text for a in anchors if a.kind == "number"] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call load_config( then os.path.join(a, b)", ["load_config", "os.path.join"]),
        (
            "class SecretMasker and new HttpClient and TokenCounter.count",
            ["SecretMasker", "HttpClient", "TokenCounter"],
        ),
        (
            "the AbstractBaseWidget owns compactor.formats.registry",
            ["AbstractBaseWidget", "compactor.formats.registry"],
        ),
        (
            "`user_text` and `Middleware.summarize` and `fooBar` and `std::mem`",
            ["user_text", "Middleware.summarize", "fooBar", "std::mem"],
        ),
        # prose, product names, hostnames and single words are not identifiers
        ("Use GitHub and JavaScript; print(x); see docs.python.org and `make` and `app.py`", []),
    ],
)
def test_identifier_extraction(text: str, expected: list[str]) -> None:
    anchors = extract_anchors([Message("assistant", text)])
    assert [a.text for a in anchors if a.kind == "identifier"] == expected


def test_urls_lose_trailing_punctuation_and_tool_results_give_none() -> None:
    msgs = [
        Message("user", "Read https://example.com/a_(b), and (https://x.dev/path)."),
        Message("tool", "fetched https://tool-only.example/x", tool_call_id="c"),
    ]
    assert [a.text for a in extract_anchors(msgs) if a.kind == "url"] == [
        "https://example.com/a_(b)",
        "https://x.dev/path",
    ]


def test_deduplication_ignores_case_quotes_and_whitespace() -> None:
    msgs = [
        Message("user", "You MUST keep  'x'."),
        Message("user", "you must keep \u2018x\u2019."),
        Message("assistant", "see src/App.py and SRC/app.py"),
    ]
    assert extract_anchors(msgs) == [
        A("instruction", "You MUST keep 'x'."),
        A("path", "src/App.py"),
    ]


def test_preserved_facts_of_an_earlier_summary_are_anchors_again() -> None:
    earlier = repair_summary(
        "<summary>\n1. x\n</summary>", [A("path", "src/keep.py"), A("error", "E: 1")]
    )
    msgs = [
        Message(
            "user", earlier + " must not be an instruction", extra={CONTENT_TYPE_KEY: "summary"}
        ),
        Message("user", "Now you must fix lib/next.py."),
    ]
    assert extract_anchors(msgs) == [
        A("path", "src/keep.py"),
        A("error", "E: 1"),
        A("instruction", "Now you must fix lib/next.py."),
        A("path", "lib/next.py"),
    ]


def test_selection_over_max_anchors_is_balanced_and_documented() -> None:
    text_parts = []
    for i in range(5):
        text_parts.append(f"You must do task {i}.")
    msgs: list[Message] = [Message("user", " ".join(text_parts))]
    for i in range(6):
        msgs.append(
            Message(
                "assistant",
                f"see mod{i}/file{i}.py and https://e.com/{i} and v1.0.{i} and call_me_{i}(",
            )
        )
        msgs.append(Message("tool", f"RuntimeError: failure {i}", tool_call_id=str(i)))
    full = extract_anchors(msgs)
    assert len(full) == 5 + 6 * 5
    chosen = extract_anchors(msgs, max_anchors=12)
    assert len(chosen) == 12
    kinds = [a.kind for a in chosen]
    # all five instructions, then one per kind per round: error, path, identifier, url, number,
    # then error, path (the 12th)
    assert kinds.count("instruction") == 5
    assert {k: kinds.count(k) for k in ("error", "path", "identifier", "url", "number")} == {
        "error": 2,
        "path": 2,
        "identifier": 1,
        "url": 1,
        "number": 1,
    }
    assert chosen == [a for a in full if a in chosen]  # original order kept
    assert extract_anchors(msgs, max_anchors=3) == full[:3]  # instructions first
    assert extract_anchors(msgs, max_anchors=0) == []
    with pytest.raises(ValueError, match="max_anchors must be >= 0"):
        extract_anchors(msgs, max_anchors=-1)


# -- check ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("anchor", "summary", "found"),
    [
        (A("path", "src/app.py"), "Edited SRC/APP.PY.", True),
        (A("path", "src/app.py"), "Edited mysrc/app.py.", False),  # glued to a word
        (A("path", "./x/y.ts"), "changed x/y.ts", True),
        (A("path", "/home/ana/proj/src/app.py"), "in `src/app.py`", True),
        (A("path", "/home/ana/proj/src/app.py"), "in app.py", False),
        (A("path", "C:\\Users\\ana\\main.py"), "ana\\main.py and ana/main.py", True),
        (A("error", 'KeyError: "user_id"'), "hit KeyError: 'user_id'  again", True),
        (A("error", "ValueError: " + "x " * 60), "ValueError: " + "x " * 34 + "…", True),
        (A("error", "ValueError: bad thing"), "ValueError happened", False),
        (A("url", "https://e.com/a/"), "see https://e.com/a for more", True),
        (A("url", "https://e.com/a"), "see https://e.com/ab", False),
        (A("number", "port 8080"), "serves on :8080", True),
        (A("number", "port 8080"), "serves on 18080", False),
        (A("number", "Python 3.11.7"), "uses 3.11.7", True),
        (A("number", "issue 45"), "closes #45", True),
        (A("number", "Exit code 1"), "the command exited with code 1", True),
        (A("number", "exit code 1"), "1 test failed", False),
        (A("number", "HTTP 404"), "got 404", False),
        (A("identifier", "parse_config"), "`parse_config()` is broken", True),
        (
            A("instruction", "You must never push to the main branch."),
            "Constraint: never push to main branch, you must ask.",
            True,
        ),
        (
            A("instruction", "You must never push to the main branch."),
            "Never push. Use the main branch.",
            False,
        ),
        (A("instruction", "Don’t use sudo!"), "don't use sudo", True),
    ],
)
def test_check_retention_matching(anchor: Anchor, summary: str, found: bool) -> None:
    result = check_retention([anchor], summary)
    assert (result.found == [anchor]) is found
    assert (result.missing == [anchor]) is not found
    assert result.score == (1.0 if found else 0.0)


def test_check_retention_score() -> None:
    anchors = [
        A("path", "a/b.py"),
        A("path", "c/d.py"),
        A("url", "https://x.y/z"),
        A("number", "#9"),
    ]
    result = check_retention(anchors, "a/b.py and #9")
    assert result.found == [anchors[0], anchors[3]]
    assert result.missing == [anchors[1], anchors[2]]
    assert result.score == 0.5
    assert check_retention([], "anything").score == 1.0


# -- repair --------------------------------------------------------------------------------------

SUMMARY = (
    "<analysis>\nwalk\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   x\n</summary>"
)


def test_repair_inserts_before_the_summary_end() -> None:
    missing = [A("path", "src/app.py"), A("error", "KeyError: 'k'")]
    out = repair_summary(SUMMARY, missing)
    assert out == (
        "<analysis>\nwalk\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   x\n"
        f"\n{PRESERVED_FACTS_HEADER}\n<preserved_facts>\n"
        "    - [path] src/app.py\n    - [error] KeyError: 'k'\n</preserved_facts>\n</summary>"
    )
    assert PRESERVED_FACTS_HEADER.startswith(
        "10. Preserved facts (verbatim from the compacted part"
    )


def test_repair_appends_when_there_is_no_summary_tag() -> None:
    out = repair_summary("plain summary", [A("url", "https://x.y/z")])
    assert out == (
        f"plain summary\n{PRESERVED_FACTS_HEADER}\n<preserved_facts>\n"
        "    - [url] https://x.y/z\n</preserved_facts>\n"
    )


def test_repair_is_idempotent_and_merges() -> None:
    first = [A("path", "src/app.py"), A("error", "KeyError: 'k'")]
    once = repair_summary(SUMMARY, first)
    assert repair_summary(once, first) == once
    assert repair_summary(once, []) == once
    assert repair_summary(SUMMARY, []) == SUMMARY
    merged = repair_summary(once, [A("path", "SRC/APP.PY"), A("url", "https://x.y/z")])
    assert merged.count("<preserved_facts>") == 1
    assert merged == repair_summary(SUMMARY, [*first, A("url", "https://x.y/z")])
    for text in (once, merged, repair_summary("no tag", first)):
        assert repair_summary(text, first) == text


def test_repair_keeps_facts_on_one_line() -> None:
    out = repair_summary(SUMMARY, [A("error", "line one\nline two\x00")])
    assert "    - [error] line one line two\n" in out


# -- apply ---------------------------------------------------------------------------------------


def test_apply_retention_reports_and_repairs() -> None:
    chat = chat_session()
    summary = "<summary>\nWorked on src/app.py; Python 3.11.7; `parse_config`.\n</summary>"
    text, report = apply_retention(chat, summary)
    assert isinstance(report, RetentionReport)
    assert report.anchors == len(CHAT_ANCHORS)
    # found: src/app.py, /home/ana/proj/src/app.py (as src/app.py), Python 3.11.7, parse_config
    assert report.missing_before == len(CHAT_ANCHORS) - 4
    assert report.score_before == pytest.approx(4 / len(CHAT_ANCHORS))
    assert report.score_after == 1.0
    assert report.repaired == report.missing_before
    assert report.anchors_by_kind == {
        "instruction": 3,
        "error": 2,
        "path": 6,
        "identifier": 3,
        "url": 1,
        "number": 5,
    }
    assert list(report.missing_by_kind) == [
        "instruction",
        "error",
        "path",
        "identifier",
        "url",
        "number",
    ]
    assert text.endswith("</preserved_facts>\n</summary>")
    assert check_retention(CHAT_ANCHORS, text).score == 1.0
    again, report2 = apply_retention(chat, text)
    assert again == text
    assert (report2.score_before, report2.repaired) == (1.0, 0)


def test_apply_retention_caps_facts_by_priority() -> None:
    text, report = apply_retention(chat_session(), "<summary>\n</summary>", max_facts=4)
    assert report.repaired == 4
    assert report.repaired_by_kind == {"instruction": 3, "error": 1}
    # the repaired "You must not touch /etc/hosts." also carries the path /etc/hosts
    assert report.score_after == pytest.approx(5 / len(CHAT_ANCHORS))
    assert report.score_after == check_retention(CHAT_ANCHORS, text).score
    unchanged, none = apply_retention(chat_session(), "s", max_facts=0)
    assert unchanged == "s"
    assert none.score_after == none.score_before == 0.0
    with pytest.raises(ValueError, match="max_facts must be >= 0"):
        apply_retention([], "s", max_facts=-1)


def test_report_to_dict_is_json_safe_and_holds_only_repaired_texts() -> None:
    _, report = apply_retention(chat_session(), "<summary>src/app.py</summary>", max_facts=2)
    data = report.to_dict()
    dumped = json.dumps(data)
    assert data["repaired"]["facts"] == [
        {"kind": a.kind, "text": a.text} for a in report.repaired_facts
    ]
    assert set(data) == {"score_before", "score_after", "anchors", "missing_before", "repaired"}
    assert data["anchors"] == {"total": report.anchors, "by_kind": report.anchors_by_kind}
    repaired_texts = " ".join(a.text for a in report.repaired_facts)
    for anchor in CHAT_ANCHORS:
        if anchor.text not in repaired_texts:
            assert json.dumps(anchor.text)[1:-1] not in dumped  # found or unrepaired: no text


def test_transform_is_applied_to_every_anchor() -> None:
    password = "s3cr3t-Pa55"
    msgs = [
        Message(
            "user", f"Deploy with postgres://app:{password}@db.internal:5432/app, never with root."
        ),
        Message(
            "assistant",
            "ok",
            tool_calls=[
                ToolCall(
                    "c",
                    "bash",
                    json.dumps({"command": f"psql postgres://app:{password}@db.internal/x"}),
                )
            ],
        ),
    ]
    masker = SecretMasker()
    masked = masker.mask_messages(msgs)
    summary = summarize_transcript(masked)
    assert password not in summary
    text, report = apply_retention(
        msgs, "<summary>\nnothing kept\n</summary>", transform=masker.mask_text
    )
    assert password not in text
    assert password not in json.dumps(report.to_dict())
    assert "postgres://app:[REDACTED:url_password#1]@db.internal:5432/app" in text
    assert report.score_after == 1.0
    # the masked form in a summary counts as found
    _, report2 = apply_retention(msgs, summary, transform=masker.mask_text)
    assert report2.score_after == 1.0
    upper, _ = apply_retention(
        [Message("user", "see src/app.py")], "<summary></summary>", transform=str.upper
    )
    assert "    - [path] SRC/APP.PY\n" in upper


# -- the embedded summarizer on the real transcripts ---------------------------------------------

FILES = shared_transcript_files()
# anchors by kind of each shared transcript's context (pinned: extraction is deterministic)
REAL_ANCHORS: dict[str, dict[str, int]] = {
    "bastion-glm47-skill-lock.jsonl": {
        "instruction": 12,
        "path": 44,  # with /logs/signature/ and /logs/tx/: a folder's closing slash (row 1652)
        "identifier": 26,
        "url": 6,
        "number": 9,
    },
    "fasthooks-sample-main-compacted.jsonl": {},  # only an earlier summary and /compact
    "raze-grant-session.jsonl": {"path": 3, "url": 1},
    "tokenforge-grant-session.jsonl": {"identifier": 10, "url": 14},
    # the failed commands' error lines (timeouts, "not recognized", "Access is denied") count
    "empire-of-bits-desktop-rollout.jsonl": {"error": 4, "path": 10, "number": 2},
    # "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted" (exit code 1)
    "soul-grant-rollout.jsonl": {"error": 1, "path": 13, "url": 1, "number": 2},
    "swe-agent-marshmallow-1867-function-calling.jsonl": {
        "instruction": 8,
        "path": 5,  # with ./src/marshmallow/ (row 1652)
        "identifier": 2,
        "url": 1,
    },
    "tau-bench-gpt4o-airline-task48-trial1-small.jsonl": {},  # ids and prose only
}


def _context(path: Path) -> list[Any]:
    messages = read_transcript(str(path), path.read_bytes()).messages
    return [m for m in messages if m.role != "system"]


def _local_summary(messages: list[Any]) -> tuple[list[Any], str]:
    """(the context the pipeline summarizes away, the LocalSummarizer's reply text)."""
    events: list[Any] = []
    config = c.Config(model=LocalSummarizer(), emit_internal_events=True, on_event=events.append)
    asyncio.run(c.new(config).summarize(c.AgentState(messages)))
    reply = next(e for e in events if e.type == "generate_summary").model_response
    first = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
    return messages[first:], c.schema.assistant_text(reply)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_local_summarizer_retention_on_real_transcripts(path: Path) -> None:
    context, summary = _local_summary(read_transcript(str(path), path.read_bytes()).messages)
    assert summary == summarize_transcript(context)
    text, report = apply_retention(context, summary)
    assert report.anchors_by_kind == REAL_ANCHORS[path.name]
    assert report.repaired == min(report.missing_before, 50)
    if report.missing_before <= 50:
        assert report.score_after == 1.0
    else:
        assert report.score_after == pytest.approx(
            1 - (report.missing_before - 50) / report.anchors
        )
    assert report.score_after >= report.score_before
    assert text.startswith(summary.removesuffix("</summary>"))
    again, second = apply_retention(context, text)
    assert second.score_after == 1.0 or second.missing_before > 50
    if report.missing_before <= 50:
        assert again == text  # a second pass changes nothing
    else:
        assert again.count("<preserved_facts>") == 1  # the rest merged into the same section


def test_masked_pipeline_on_a_real_transcript_puts_no_secret_back(shared_transcripts: Path) -> None:
    path = shared_transcripts / "openai-chat" / "swe-agent-marshmallow-1867-function-calling.jsonl"
    context = copy.deepcopy(_context(path))
    secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    context[
        0
    ].content += f"\nClone with https://ana:{secret}@github.com/o/r.git and never share {secret}."
    masker = SecretMasker()
    summary = summarize_transcript(masker.mask_messages(context))
    text, report = apply_retention(context, summary, transform=masker.mask_text)
    assert secret not in text
    assert secret not in json.dumps(report.to_dict())
    assert report.score_after == 1.0


# -- properties ----------------------------------------------------------------------------------

any_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=80)
vocab = st.sampled_from(
    [
        "must",
        "never",
        "don't",
        "always",
        "make sure",
        "src/app.py",
        "/etc/hosts",
        "C:\\x\\y.py",
        "ValueError: bad",
        "error: x",
        "FAILED t",
        "panic: p",
        "https://e.com/a",
        "3.11.7",
        "port 80",
        "#12",
        "exit code 3",
        "`a_b`",
        "f_g(",
        "Traceback",
        "\n",
        ". ",
        "`",
        "'",
        '"',
        "<summary>",
        "</summary>",
        PRESERVED_FACTS_HEADER,
        "<preserved_facts>",
        "    - [path] x",
    ]
)
mixed_text = st.one_of(any_text, st.lists(st.one_of(vocab, any_text), max_size=12).map(" ".join))
blocks = st.recursive(
    st.builds(
        Block,
        st.sampled_from(
            ["user_input_text", "assistant_gen_text", "reasoning", "user_input_image", "other"]
        ),
        st.one_of(st.none(), mixed_text),
    ),
    lambda children: st.builds(
        Block, st.just("function_tool_result"), st.none(), content=st.lists(children, max_size=3)
    ),
    max_leaves=6,
)
arguments = st.one_of(
    mixed_text, st.dictionaries(st.text(max_size=5), mixed_text, max_size=3).map(json.dumps)
)
extra = st.sampled_from([{}, {"injected": True}, {CONTENT_TYPE_KEY: "summary"}])
chat_messages = st.lists(
    st.builds(
        Message,
        st.sampled_from(["system", "user", "assistant", "tool"]),
        mixed_text,
        parts=st.lists(
            st.builds(
                Part,
                st.sampled_from(["text", "image_url", "reasoning"]),
                st.one_of(st.none(), mixed_text),
            ),
            max_size=2,
        ),
        tool_calls=st.lists(st.builds(ToolCall, st.just("c"), st.just("f"), arguments), max_size=2),
        extra=extra,
    ),
    max_size=6,
)
agentic_messages = st.lists(
    st.builds(
        AgenticMessage,
        st.sampled_from(["system", "user", "assistant"]),
        st.lists(
            st.one_of(
                blocks,
                st.builds(
                    Block, st.just("function_tool_call"), arguments=st.one_of(st.none(), arguments)
                ),
            ),
            max_size=4,
        ),
        extra=extra,
    ),
    max_size=6,
)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.one_of(chat_messages, agentic_messages), st.integers(0, 30))
def test_property_extract_never_crashes_and_is_deterministic(
    messages: list[Any], limit: int
) -> None:
    before = copy.deepcopy(messages)
    anchors = extract_anchors(messages, max_anchors=limit)
    assert anchors == extract_anchors(messages, max_anchors=limit)
    assert messages == before
    assert len(anchors) <= limit
    assert len({(a.kind, a.text.casefold()) for a in anchors}) == len(anchors)
    for a in anchors:
        assert a.kind in KIND_PRIORITY
        assert a.text and a.text == a.text.strip() and "\n" not in a.text
        if a.kind in ("error", "instruction"):
            assert len(a.text) <= 200
    _, report = apply_retention(messages, "<summary>\n</summary>", max_anchors=limit)
    assert report.score_after == 1.0
    assert report.to_dict()["anchors"]["total"] == report.anchors


facts = st.lists(
    st.builds(Anchor, st.sampled_from(KIND_PRIORITY), mixed_text.filter(lambda t: t.strip() != "")),
    max_size=6,
)


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(mixed_text, facts)
def test_property_repaired_anchors_are_all_found(summary: str, missing: list[Anchor]) -> None:
    repaired = repair_summary(summary, missing)
    # control characters and whitespace runs are normalized away; a fact that is nothing else
    # is not added
    kept = [a for a in missing if a.text.translate(dict.fromkeys([*range(32), 127])).strip()]
    assert check_retention(kept, repaired).missing == []
    assert repair_summary(repaired, missing) == repaired

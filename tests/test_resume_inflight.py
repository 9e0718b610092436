"""The real Codex client resumes our ``--append`` output of a rollout whose last turn ends with
a call in flight (``make test-resume``, issue 30: "Call/result pairs stay whole").

Blind check 36 (cx-dussel, Codex 0.87): the session ended with an ``apply_patch``
``custom_tool_call`` that has no ``custom_tool_call_output``; reduce and hybrid keep the call
unpaired inside the ``compacted`` record's ``replacement_history``, as the input has it. Codex
itself keeps such a call in its history and, each time it builds a request, puts a synthetic
output ``"aborted"`` right after every call without one (its context manager's
``ensure_call_outputs_present``, run by ``for_prompt``), so the request stays valid for the
Responses API, which refuses a call without its output. These cases build such a rollout
(invented content: a pager fix), compact it with ``reduce``, ``hybrid`` and ``summarize``
(with a kept tail), resume it with the real Codex against the loopback fake and check what it
sent: the call once, its output ``aborted`` right after it, every call of the request
answered, every kept result once, the reduced results as their placeholders.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .cc_session import inflight_session
from .client_fakes import FakeAnthropic, FakeResponses
from .codex_rollout import STAMP, codex_say, codex_user, read_rounds, rec
from .test_resume_clients import (
    CLAUDE,
    CODEX,
    Case,
    _claude_request,
    _claude_resumes,
    _codex_resumes,
    _jsonl,
    _kept_ids,
)

pytestmark = [
    pytest.mark.resume_clients,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(
        not (CLAUDE and CODEX), reason="RESUME_CLAUDE / RESUME_CODEX not set (make test-resume)"
    ),
]

SESSION = "1a2b3c4d-0000-4000-8000-000000000037"
PATCH = (
    "*** Begin Patch\n*** Update File: src/pager.py\n@@\n"
    "-    for i in range(pages - 1):\n+    for i in range(pages):\n*** End Patch\n"
)
IN_FLIGHT: dict[str, dict[str, Any]] = {
    "apply_patch": {
        "type": "custom_tool_call",
        "status": "completed",
        "call_id": "call_patch_inflight",
        "name": "apply_patch",
        "input": PATCH,
    },
    "shell": {
        "type": "function_call",
        "name": "shell",
        "call_id": "call_test_inflight",
        "arguments": json.dumps({"command": ["pytest", "-q", "tests/test_pager.py"]}),
    },
}
"""The call the last turn ends with, answered by nothing: Codex 0.87's ``apply_patch`` (a
custom tool: free-form input) or a ``shell`` function call."""
FILES = ["src/pager.py", "src/layout.py", "tests/test_pager.py", "README.md"]


def inflight_rollout(dest: Path, call: str, turns: int = 1) -> None:
    """A rollout of ``turns`` user turns, each reading the four files of :data:`FILES` (a
    ``shell`` round each, 40-line outputs) and saying what it found; the last turn then ends
    with the call :data:`IN_FLIGHT` ``[call]`` and no output. Its last ``token_count`` says
    60,000 tokens: the context the client last measured, far over the reduced history."""
    meta = {"id": SESSION, "timestamp": STAMP, "cwd": "/w", "originator": "codex_exec"}
    meta |= {"cli_version": "0.171.0", "source": "exec"}
    records = [rec("session_meta", meta), rec("turn_context", {"cwd": "/w", "model": "gpt-5.5"})]
    for turn in range(turns):
        ask = "Fix the off-by-one in the pager of src/pager.py and add a test."
        records.append(
            codex_user(ask if turn == turns - 1 else f"Review part {turn} of the pager.")
        )
        for n, file in enumerate(FILES):
            for r in read_rounds(1, file, f"in turn {turn}"):
                payload = dict(r["payload"])
                if "call_id" in payload:
                    payload["call_id"] = f"call_t{turn}_f{n}"
                records.append({**r, "payload": payload})
        said = f"Turn {turn}: the pager drops its last page, the range stops one short."
        records.append(codex_say(said + (" Patching it now." if turn == turns - 1 else "")))
    records.append(rec("response_item", IN_FLIGHT[call]))
    usage = {"input_tokens": 60_000, "output_tokens": 10, "total_tokens": 60_000}
    records.append(rec("event_msg", {"type": "token_count", "info": {"last_token_usage": usage}}))
    dest.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _history(out: Path) -> list[dict[str, Any]]:
    """The history ``out`` leaves after its last ``compacted`` record: its
    ``replacement_history`` (reduce: the whole reduced history; otherwise our summary), then
    the response items after it (the kept messages of a summary)."""
    records = [json.loads(line) for line in _jsonl(out)]
    last = max(n for n, r in enumerate(records) if r.get("type") == "compacted")
    history: list[dict[str, Any]] = list(records[last]["payload"]["replacement_history"])
    history += [r["payload"] for r in records[last + 1 :] if r.get("type") == "response_item"]
    return history


def _check_answered(body: dict[str, Any], call: dict[str, Any]) -> None:
    """The request holds ``call`` once, an ``aborted`` output of its kind right after it, and
    an output after every call it holds (what the Responses API requires)."""
    items = [i for i in body["input"] if isinstance(i, dict)]
    kinds = [str(i.get("type")) for i in items]
    at = [n for n, i in enumerate(items) if i.get("call_id") == call["call_id"]]
    assert len(at) == 2, [kinds[n] for n in at]  # the call and one output, nothing else
    assert items[at[0]]["type"] == call["type"]
    assert at[1] == at[0] + 1, "the output is not right after the call"
    output = items[at[1]]
    assert output["type"] == f"{call['type']}_output", output
    text = output["output"]
    if isinstance(text, list):
        text = "".join(str(c.get("text") or "") for c in text)
    assert text == "aborted", output
    for n, item in enumerate(items):
        if kinds[n] in ("function_call", "custom_tool_call"):
            answers = [
                m
                for m in range(n + 1, len(items))
                if kinds[m] == f"{kinds[n]}_output" and items[m].get("call_id") == item["call_id"]
            ]
            assert len(answers) == 1, (item["call_id"], answers)


def _out(case: Case) -> Path:
    (out,) = (case.tmp / "home" / ".codex" / "sessions").rglob(f"rollout-*-{SESSION}.jsonl")
    return out


CASES = [(call, strategy) for call in IN_FLIGHT for strategy in ("reduce", "hybrid", "summarize")]
HYBRID = {"turns": 20, "keep": 20, "threshold": 4_000}
"""A rollout long enough for hybrid to summarize its oldest turns: reduced, it is over the
trigger (each placeholder names a file under the session folder: 5,040 tokens under a short
temporary folder, more under pytest's); its summary with the 20 kept messages (the last two
turns, reduced results among them, and the call in flight) is under it (2,171)."""


@pytest.mark.parametrize(("call", "strategy"), CASES, ids=[f"{c}-{s}" for c, s in CASES])
def test_codex_resumes_a_compacted_rollout_ending_with_a_call_in_flight(
    call: str, strategy: str, tmp_path: Path, responses: FakeResponses
) -> None:
    """Our output keeps the call in flight unpaired, as the input has it (reduce: the whole
    history; hybrid: in the kept reduced rounds after the summary; summarize: in the kept
    tail); the real Codex resumes it twice without compacting, and each request it sends holds
    the call once with Codex's own ``aborted`` output right after it, every other call
    answered, every kept result once, the reduced ones as their placeholders."""
    src = tmp_path / "rollout.jsonl"
    turns = HYBRID["turns"] if strategy == "hybrid" else 1
    inflight_rollout(src, call, turns)
    keep = {"reduce": None, "hybrid": HYBRID["keep"], "summarize": 6}[strategy]
    case = Case("codex", src, keep, tmp_path, strategy)
    if strategy == "hybrid":
        case.threshold = HYBRID["threshold"]
    _codex_resumes(case, responses)
    # unpaired in our output, as in the input; Codex, whose two turns are appended to the
    # file by now, makes its "aborted" output up for each request and never writes it
    history = _history(_out(case))
    kept = [i for i in history if i.get("call_id") == IN_FLIGHT[call]["call_id"]]
    assert kept == [IN_FLIGHT[call]], kept
    requests = responses.model_requests()
    assert len(requests) == (1 if strategy == "summarize" else 2)
    for request in requests:
        assert isinstance(request.body, dict)
        _check_answered(request.body, IN_FLIGHT[call])


def test_claude_code_resumes_a_summary_whose_kept_tail_ends_with_a_call_in_flight(
    tmp_path: Path, anthropic: FakeAnthropic
) -> None:
    """Claude Code's side of the same question for ``summarize`` with a kept tail (reduce and
    hybrid: ``test_claude_code_resumes_reduced_append_of_a_session_with_a_call_in_flight``):
    the tail keeps the last ``Bash`` call unanswered, as the input has it, and the real client
    leaves that call out of its request (it does so with the raw file too), so every
    ``tool_use`` it sends has its ``tool_result``."""
    src = tmp_path / "inflight.jsonl"
    src.write_bytes(b"\n".join(inflight_session().lines()) + b"\n")
    case = Case("claude-code", src, 6, tmp_path, next_turn=("--resume", "ID"))
    _claude_resumes(case, anthropic)
    assert "toolu_inflight" in _kept_ids(case.kept)[0]  # kept, unanswered
    (request,) = anthropic.model_requests()
    assert isinstance(request.body, dict)
    seen = _claude_request(request.body)
    assert "toolu_inflight" not in seen.calls
    assert set(seen.calls) == set(seen.results), (seen.calls, seen.results)
    assert "okay try again option 1" in request.raw.decode("utf-8")


@pytest.fixture
def responses() -> Any:
    with FakeResponses() as fake:
        yield fake


@pytest.fixture
def anthropic() -> Any:
    with FakeAnthropic() as fake:
        yield fake

"""The resume harness's reduced-history checks can fail (``tests/test_resume_clients.py``,
RELIABILITY row 300): run here without the clients, on a hand-made request.

Blind check 5 found two weaknesses: a hybrid whose fallback kept no reduced result left the
placeholder check nothing to check (and it passed), and an offloaded result byte-identical to a
later read kept verbatim made "the original was sent" fire although the client sent only the
kept copy. Each case below is one way the check must fail, or must not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.schema import Message

from .test_resume_clients import Case, Ids, _check_reduced

ORIGINAL = "".join(f"line {i} of a long file read by the agent\n" for i in range(40))
SHORT = "ok"


def _case(tmp_path: Path, results: dict[str, str], strategy: str = "reduce") -> Case:
    """A Claude Code session whose calls ``results`` name returned those texts, reduced: every
    result is a placeholder naming its offload file, which holds the original."""
    src = tmp_path / "session.jsonl"
    records = [
        {
            "type": "user",
            "uuid": f"u-{call}",
            "sessionId": "s",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call, "content": text}],
            },
        }
        for call, text in results.items()
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    folder = tmp_path / "out.offload"
    (folder / "clear").mkdir(parents=True)
    case = Case("claude-code", src, None, tmp_path, strategy)
    case.report = {
        "reduction": {
            "strategy": strategy,
            "cleared": len(results),
            "offload_dir": str(folder),
            "summarized": True,
        }
    }
    for call, text in results.items():
        (folder / "clear" / call).write_text(text, encoding="utf-8")
        case.kept.append(Message("tool", _placeholder(folder, call), tool_call_id=call))
    return case


def _placeholder(folder: Path, call: str) -> str:
    return f"<persisted-output>Tool result saved to: {folder / 'clear' / call}\n</persisted-output>"


def _sent(case: Case, *extra: str) -> Ids:
    """What a client sends for ``case``: each kept message as it is, then ``extra`` texts."""
    seen = Ids()
    for m in case.kept:
        if m.role == "tool" and isinstance(m, Message) and m.tool_call_id:
            seen.results[m.tool_call_id] += 1
            seen.result_texts[m.tool_call_id] = m.content
        elif isinstance(m, Message):
            seen.texts.append(m.content)
    seen.texts.extend(extra)
    return seen


def test_a_reduced_request_passes(tmp_path: Path) -> None:
    case = _case(tmp_path, {"c1": ORIGINAL})
    _check_reduced(case, _sent(case))


def test_the_original_sent_anywhere_fails(tmp_path: Path) -> None:
    case = _case(tmp_path, {"c1": ORIGINAL})
    with pytest.raises(AssertionError, match="c1: the original was sent"):
        _check_reduced(case, _sent(case, "the model saw: " + ORIGINAL))


def test_a_verbatim_copy_our_output_keeps_is_no_leak_but_an_extra_copy_is(tmp_path: Path) -> None:
    """Blind check 5, rivo: the offloaded first read of a file is byte-identical to a later
    read kept verbatim in the retained round; the client sends that kept one, once."""
    case = _case(tmp_path, {"c1": ORIGINAL})
    case.kept.append(Message("tool", ORIGINAL, tool_call_id="c2"))  # kept verbatim
    _check_reduced(case, _sent(case))
    with pytest.raises(AssertionError, match=r"the original was sent \(2 > 1\)"):
        _check_reduced(case, _sent(case, ORIGINAL))


def test_a_hybrid_that_did_not_summarize_fails(tmp_path: Path) -> None:
    case = _case(tmp_path, {"c1": ORIGINAL}, "hybrid")
    case.report["reduction"]["summarized"] = False
    with pytest.raises(AssertionError, match="hybrid did not summarize"):
        _check_reduced(case, _sent(case))


def test_nothing_reduced_after_the_boundary_fails(tmp_path: Path) -> None:
    """Blind check 5, rivo and omeswap hybrid: the kept messages hold no placeholder."""
    case = _case(tmp_path, {"c1": ORIGINAL}, "hybrid")
    case.kept = [Message("assistant", "the retained round only")]
    with pytest.raises(AssertionError, match="no reduced result in the history after"):
        _check_reduced(case, _sent(case))


def test_no_original_long_enough_to_look_for_fails(tmp_path: Path) -> None:
    case = _case(tmp_path, {"c1": SHORT})
    with pytest.raises(AssertionError, match="no cleared original was long enough"):
        _check_reduced(case, _sent(case))


def test_no_file_compared_fails(tmp_path: Path) -> None:
    """Every placeholder's original is unknown (results of several parts): nothing compared."""
    case = _case(tmp_path, {"c1": ORIGINAL})
    case.src.write_text("", encoding="utf-8")
    with pytest.raises(AssertionError, match="no offload file could be compared"):
        _check_reduced(case, _sent(case))

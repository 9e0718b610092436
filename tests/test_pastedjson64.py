"""Blind check 64 N5 (helper gap63): a user message's long pasted JSON is shown in sections 1
and 6 as a short head with "(pasted JSON, N characters)", the user's own words around it whole;
the JSON's tail (a hash repeated in every copy) is not printed. Short or cut-off JSON is left as
it is. Every session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.facts.pastedjson import without_json

from .cc_session import Session, cc_summary
from .codex_rollout import sections

_HASH = "f00dfeed" * 8


def _flow(name: str) -> str:
    nodes = [
        {"name": f"{name} step {i}", "parameters": {"url": f"https://x.test/{i}"}}
        for i in range(40)
    ]
    return json.dumps({"nodes": nodes, "meta": {"instanceId": _HASH}}, indent=2)


def test_pasted_json_is_a_head_and_a_size_in_sections_1_and_6(tmp_path: Path) -> None:
    s = Session()
    ask = "Check this lantern flow.\nFlow A:\n"
    s.user(ask + _flow("alpha") + "\nKeep every node name!")
    s.say("The flow is read; I check it next.")
    text = cc_summary(s, tmp_path)
    parts = sections(text, after="<summary>")
    for n in ("1", "6"):
        assert _HASH not in parts[n], parts[n]
        assert "(pasted JSON, " in parts[n], parts[n]
    flat = " ".join(parts["6"].split())
    assert "Keep every node name!" in flat and "Flow A:" in flat, flat


def test_short_or_cut_off_json_is_left_alone() -> None:
    short = "use this config:\n" + json.dumps({"a": 1, "b": [1, 2]}) + "\nthanks " * 200
    assert without_json(short) is None
    cut_off = "here it is:\n" + _flow("gamma")[:-400]
    assert without_json(cut_off) is None
    whole = "here it is:\n" + _flow("gamma") + "\nwhy does it fail?"
    short_text = without_json(whole)
    assert short_text is not None and short_text.startswith('here it is:\n{ "nodes": [')
    assert short_text.endswith(" characters)\nwhy does it fail?") and _HASH not in short_text

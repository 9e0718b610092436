"""Blind check 25 (N1, N5): the facts a result printed were cut at 80 characters, mid-path
(``…/Versions/3.``), and a failed last call's usage line was shown as what it "printed". A
path is now shown whole or not at all, and a failed call never "printed" anything."""

from __future__ import annotations

import re

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

_DIR = "/opt/toolchains/lang-3.11/3.11.13/Frameworks/Runtime.framework/Versions/3.11/lib/site"
_DATA = "var/cache/projects/-home-dev-dotfiles/afc4f5a3-4d18-458f-95cc-1e92dbbded5e/notes.jsonl"
_USAGE = f"Argument expected for the -c option\nusage: {_DIR}/bin/runtime [option] ... [-c cmd]\n"


def _summary() -> str:
    s = SessionBuilder()
    s.user("find where the runtime loads its startup hook from")
    s.call("Bash", {"command": "git status --short"}, f"?? {_DATA}\n")
    s.call("Bash", {"command": "runtime -c"}, _USAGE, error=True)
    return summarize_transcript(s.messages)


def test_a_long_path_is_shown_whole_never_cut_mid_segment() -> None:
    summary = _summary()
    assert len(_DATA) > 80 and len(_DIR) > 80
    assert f"`{_DATA}`" in summary, summary
    for m in re.finditer(r"`([^`\s]+)`", summary):
        fact = m.group(1)
        for whole in (_DATA, f"{_DIR}/bin/runtime"):
            assert not (whole.startswith(fact) and len(fact) < len(whole) and len(fact) > 60), (
                fact,
                summary,
            )


def test_a_failed_call_never_printed_its_usage_line() -> None:
    summary = _summary()
    for line in summary.splitlines():
        if "runtime -c" in line:
            assert "printed" not in line, line  # "failed) its output named" at most

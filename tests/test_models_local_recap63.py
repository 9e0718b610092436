"""Blind check 63 N5 (helper gap63): Claude Code's own recap (``system/away_summary``) is quoted
in section 8 when it is the latest one and no assistant work follows it (a new user message may);
a recap the agent's later work overtook is not. Every session is built here, by shape, with
invented content."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .codex_rollout import sections

_RECAP = (
    "Built the kiln scheduler and its tests; everything passes but nothing is pushed yet. "
    "Next: confirm whether to push the branch. (disable recaps in /config)"
)


def _section8(text: str) -> str:
    return " ".join(sections(text, after="<summary>")["8"].split())


def _session() -> Session:
    s = Session()
    s.user("write the kiln scheduler with tests")
    s.call("Write", {"file_path": "/srv/kiln/sched.py", "content": "def plan():\n    pass\n"}, "ok")
    s.bash("pytest -q", "3 passed in 0.1s")
    s.say("The scheduler and its tests are written; all 3 tests pass.")
    s._add({"type": "system", "subtype": "turn_duration", "durationMs": 5000})
    s._add({"type": "system", "subtype": "away_summary", "content": _RECAP})
    return s


def test_the_latest_recap_no_work_follows_is_quoted(tmp_path: Path) -> None:
    s = _session()
    s.user("what is the state?")
    s.say("API Error: 401 Invalid authentication credentials")
    s.records[-1]["isApiErrorMessage"] = True
    s.records[-1]["message"]["model"] = "<synthetic>"
    current = _section8(cc_summary(s, tmp_path))
    assert "Claude Code's own recap at" in current, current
    assert "nothing is pushed yet. Next: confirm whether to push the branch" in current, current
    assert "disable recaps" not in current, current


def test_a_recap_later_work_overtook_is_not_quoted(tmp_path: Path) -> None:
    s = _session()
    s.user("push it")
    s.bash("git push origin kiln", "To origin\n * [new branch] kiln -> kiln")
    s.say("Pushed the kiln branch.")
    assert "own recap" not in _section8(cc_summary(s, tmp_path))

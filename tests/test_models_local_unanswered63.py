"""Blind check 63 N4 (helper gap63): when two or more user messages at the end are unanswered
(each reply an API error the CLI wrote, or nothing), sections 7, 8 and 9 name all of them, not
only the last. A message the agent answered, before them, is not named. Every session is built
here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .codex_rollout import sections


def _api_error(s: Session) -> None:
    s.say("API Error: Unable to connect to API (ConnectionRefused)")
    s.records[-1]["isApiErrorMessage"] = True
    s.records[-1]["message"]["model"] = "<synthetic>"


def test_every_unanswered_message_at_the_end_is_named(tmp_path: Path) -> None:
    s = Session()
    s.user("copy the lantern presets into the user profile")
    s.bash("cp -r presets ~/.lantern/", "")
    s.say("The presets are copied.")
    s.user("did the lantern presets load fine after the copy?")
    _api_error(s)
    s.user("hello there")
    _api_error(s)
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    for n in ("7", "8", "9"):
        flat = " ".join(parts[n].split())
        assert "did the lantern presets load fine" in flat, (n, parts[n])
        assert "hello there" in flat, (n, parts[n])
    assert "copy the lantern presets" not in " ".join(parts["9"].split()), parts["9"]


def test_a_single_unanswered_message_names_no_earlier_one(tmp_path: Path) -> None:
    s = Session()
    s.user("copy the lantern presets into the user profile")
    s.bash("cp -r presets ~/.lantern/", "")
    s.say("The presets are copied.")
    s.user("hello there")
    _api_error(s)
    parts = sections(cc_summary(s, tmp_path), after="<summary>")
    assert "unanswered too" not in parts["7"] + parts["8"] + parts["9"], parts

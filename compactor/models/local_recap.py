"""Claude Code's own recap of where the work stands, quoted in section 8 (blind check 63 N5).

The Claude Code reader turns the latest ``system/away_summary`` record that no assistant work
follows into a context message ``<system-reminder>\\nClaude Code's own recap at TIME: …``
(:mod:`compactor.formats._claude_recap`). :func:`recap_items` quotes it, short, as the
harness's statement: it never replaces what the session's own records show (the state lines
before it), it only adds the harness's view ("Everything passes but nothing is committed yet.
Next: …").
"""

from __future__ import annotations

from .local_session import Session
from .local_text import quote

__all__ = ["recap_items"]

_HEAD = "<system-reminder>\nClaude Code's own recap"
"""How the reader's recap message starts (``formats._claude_recap.RECAP_HEAD``)."""


def recap_items(s: Session, width: int) -> list[str]:
    """The line quoting the recap, when the session's last context message is one."""
    for e in reversed(s.entries):
        if e.role == "assistant" and (e.calls or e.text.strip()) and e not in s.harness_errors:
            return []  # the agent worked after it: stale (the reader checks this too)
        if e.injected and e.text.startswith(_HEAD):
            head, _, said = e.text.removesuffix("</system-reminder>").partition(": ")
            when = head.removeprefix(_HEAD).strip()
            return [
                f"Claude Code's own recap {when} (the harness's words; the facts above come "
                f"first): {quote(said.strip(), width * 2)}"
            ]
    return []

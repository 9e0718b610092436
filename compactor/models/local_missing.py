"""The next step installs the modules the last unresolved failure found missing (blind check 67
N2, issue 28).

cc_ce_env stopped right after ``npm run build`` failed on three missing modules; section 9 said
to continue the request and quoted the failure, not what to do about it. When the session's
last failure is still unresolved and names missing packages
(:func:`compactor.facts.missingmods.missing_modules`), :func:`install_note` adds a sentence to
the next step: install them all, then run the command again.
"""

from __future__ import annotations

from compactor.facts import cut
from compactor.facts.missingmods import MISSING_MOST, missing_modules, packages

from .local_again import still_open
from .local_session import Session
from .local_text import code

__all__ = ["install_note"]


def install_note(s: Session, limit: int) -> str:
    """The sentence naming the packages to install before running the last unresolved failure
    again; "" when the session's last failure is resolved or names none."""
    if not s.errors or not still_open(err := s.errors[-1]):
        return ""
    last = s.last_request
    if last is not None and err.index < last.index:
        return ""
    names, prefix = missing_modules("\n".join(err.outcome.lines))
    if not names:
        return ""
    names = packages(names, prefix)
    shown = ", ".join(code(n) for n in names[:MISSING_MOST])
    them = "it" if len(names) == 1 else f"all {len(names)}"
    return (
        f"The last failure, {code(cut(err.call, limit))}, found modules missing: install {them} "
        f"({shown}) with the project's package manager, then run it again"
    )

"""A later run whose closing lines say it succeeded (blind check 38 W2).

cc-og: ``bash deploy-agent-z.sh`` failed (exit 1) with no error line, so its first output line,
the script's banner ("Agent Z — OpenClaw Deployment"), stood in for the error. After the script
was fixed, the same script ran again without an error flag and ended "DEPLOYMENT SUCCESSFUL — 14
checks passed"; :func:`compactor.models.local_retries.restated` found the banner in that output
too and section 4 said "Not fixed: a later Bash … failed too (its output says: <banner>)". A
line every run prints is no sign of failure: :func:`closes_in_success` says whether a run's last
lines report success and none of them a failure (nor the restated line itself), and then the
run is a fix. A run whose last lines report a failure still fails.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import clean

__all__ = ["closes_in_success"]

_CLOSING = 3
"""How many non-empty last lines are the run's closing lines."""
_TAIL = 4_000
_SGR_RE = lazy_pattern(r"\x1b\[[0-9;]*m|\[[0-9;]*m")
_SUCCESS_RE = lazy_pattern(
    r"[✓✔✅]|\b(?:success(?:ful(?:ly)?)?|succeeded|passed|done|completed?|"
    r"exit(?:ed with)?(?: code| status)?[ =:]+0)\b",
    re.IGNORECASE,
)
_FAILURE_RE = lazy_pattern(
    r"[✗✘❌]|\b(?:fail(?:ed|ures?|s|ing)?|errors?|fatal|abort(?:ed)?|panic(?:ked)?|traceback|"
    r"exception|denied|not found|cannot|can['’]t|unable|unsuccessful|"
    r"exit(?:ed with)?(?: code| status)?[ =:]+-?[1-9]\d*)\b",
    re.IGNORECASE,
)
_NONE_RE = lazy_pattern(
    r"\b(?:0|no|zero)\s+(?:\w+\s+)?(?:fail(?:ed|ures?|s)?|errors?)\b|\bwithout (?:any )?errors?\b"
    r"|\berror[- ]free\b",
    re.IGNORECASE,
)
"""A count of none ("0 failed", "no errors", "without errors"): no failure."""


def closes_in_success(text: str, said: str) -> bool:
    """Whether a run's output (``text``, a result with no error flag) ends in lines that report
    success ("DEPLOYMENT SUCCESSFUL", "14 checks passed", "✓ done", "exit code 0") with none of
    them reporting a failure and none of them the line ``said`` (the failure's line it repeats)."""
    tail = clean(text[-_TAIL:]) if len(text) > _TAIL else clean(text)
    lines = [ln.strip() for ln in _SGR_RE.sub("", tail).splitlines() if ln.strip()]
    closing = lines[-_CLOSING:]
    if not closing or (said.strip() and any(said.strip() in ln for ln in closing)):
        return False
    if any(_FAILURE_RE.search(_NONE_RE.sub("", ln)) for ln in closing):
        return False
    return any(_SUCCESS_RE.search(ln) for ln in closing)

"""The last run of a failed command decides whether it is fixed (blind check 70 W4).

jd_cli (Claude Code): ``claude --version`` failed; ``npx claude --version`` (another program)
succeeded, and section 4 said "Fixed: a later npx claude --version succeeded", although plain
``claude --version`` failed again later. :func:`judge_last_runs` takes a failure back from
"fixed" when a later run of the same command failed and stayed unfixed: the fix did not hold.
"""

from __future__ import annotations

from .local_session import Session

__all__ = ["judge_last_runs"]

_BY = 160
_SAME = 120


def judge_last_runs(s: Session) -> None:
    """A failure "fixed" by another command (``npx claude`` for ``claude``) whose own command
    failed again later, that later failure not fixed, is "failed again" by that later run: the
    last attempt decides."""
    for n, err in enumerate(s.errors):
        if err.after != "fixed" or not err.by or err.job or err.by[:_SAME] == err.call[:_SAME]:
            continue  # a run of the same command fixed it: a later failure is a new one
        again = [e for e in s.errors[n + 1 :] if e.call == err.call and e.index > err.index]
        if again and again[-1].after not in ("fixed", "interrupted"):
            err.after, err.by, err.why, err.via = "failed again", again[-1].call[:_BY], "", ""

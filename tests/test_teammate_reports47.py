"""Which teammate reports section 1 keeps (blind check 47, T8 on the seen cc-team session).

An agent-team lead's mailbox holds many deliveries; only the latest four reports were kept, and
a verify teammate's last word was "Standing by", so its reports with the test counts (484
passed, 69 failed) were lost. Now the fullest report of each teammate comes first, then the next
fullest, up to eight, shown in order; short acknowledgements yield to them. Invented session.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_agent_team47 import _delivery
from .test_models_local_session import section

COUNTS = (
    "**Task #19 (VF-4): Backend smoke check - COMPLETED** 484 tests passed, 69 failed, 158 "
    "skipped, 126 collection errors; all failures pre-existing (Redis, locust, mocks). "
    + "Details follow. "
    * 20
)


def test_the_fullest_reports_outlast_short_acknowledgements(tmp_path: Path) -> None:
    s = Session()
    s.user("Create a team: one verifier, one fixer. Verify every platform, fix what fails.")
    s.user(_delivery("verify", COUNTS))
    for n in range(10):
        s.user(_delivery("fixer", f"Fixed item {n}: removed a cast in File{n}.tsx. Done."))
    s.user(_delivery("verify", "**Acknowledged - Standing By** Ready to re-run on request."))
    s.say("All verified; backend failures are pre-existing.")
    head = " ".join(section(cc_summary(s, tmp_path), 1).split())
    assert "484 tests passed" in head and "69 failed" in head, head
    assert "shorter teammate reports not shown" in head, head

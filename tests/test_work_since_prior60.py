"""Blind check 60 (W3): after the harness's own compaction the agent went on (the earlier
summary's item finished, two more done, a wrong formula found that the user asked to have
recorded) in turns that changed no file; section 8 carries those turns, in order, and no
longer says the lines above locate the work when they held only the last exchange."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

EARLIER = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nAuditing the sensor drivers one by one."
    "\n\nSummary:\n1. Primary Request and Intent:\n   Audit every sensor driver in drivers/.\n"
    "7. Pending Tasks:\n   - Continue the audit: now #7 thermo, #8-#20 still to do\n"
    "8. Current Work:\n   Auditing #7 thermo: drivers/thermo.c read, verdict not written yet.\n"
    "9. Optional Next Step:\n   Finish #7 thermo."
)


def _session() -> Session:
    s = Session()
    s.user("Audit every sensor driver in drivers/, one at a time.")
    s.bash("ls drivers", "thermo.c\nbaro.c\nlux.c")
    s.say("Starting with the drivers in order.")
    s.compacted(EARLIER)
    s.call("Read", {"file_path": "drivers/thermo.c"}, "int read_thermo(void) { return raw * 2; }")
    s.say("#7 thermo: scaling correct, verdict OK. Next is #8 baro?")
    s.user("go on")
    s.call("Read", {"file_path": "drivers/baro.c"}, "p = (hi + lo) / 2; /* no offset */")
    s.say("#8 baro: WRONG formula, averages hi and lo instead of adding the calibration offset.")
    s.user("go on")
    s.call("Read", {"file_path": "drivers/lux.c"}, "lux = counts * gain;")
    s.say("#9 lux: formula correct, verdict OK. Continue with #10?")
    s.user("did you record the baro bug somewhere?")
    s.say("Not yet: it is only in this conversation. Shall I add it to NOTES.md?")
    s.user("forget it, I'll take it from here")
    s.say("Understood.")
    return s


def test_the_turns_since_the_earlier_summary_are_carried_in_order(tmp_path: Path) -> None:
    eight = " ".join(section(cc_summary(_session(), tmp_path), 8).split())
    assert "Work since the earlier summary" in eight, eight
    found = [eight.find(x) for x in ("#7 thermo: scaling", "#8 baro: WRONG", "#9 lux: formula")]
    assert -1 not in found and found == sorted(found), eight
    assert "did you record the baro bug" in eight, eight
    assert "the lines above say where they left the work" not in eight, eight
    # the latest exchange first, the earlier summary's state last
    assert (
        eight.find("forget it") < eight.find("Work since") < eight.find("earlier summary's state")
    )

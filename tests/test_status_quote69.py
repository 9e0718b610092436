"""A long answer quoted in the summary keeps its failing lines (blind check 69 W1: §4's "Next
the assistant said: "## Test Results: ✅ fetch server: Working correctly … respon … l. … all
three servers can be reached"" cut out the one line "❓ brave-search server: Timeout during
test", so the quote read as all passed). Sessions built here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_statusquote import status_quote

from .cc_session import Session, cc_summary, section

_FAILING = "❓ **lantern relay**: Timeout during the probe (may need a key)"
_ANSWER = (
    "## Probe Results:\n\n"
    "✅ **harbor relay**: Working correctly - answers the handshake with the proper frames\n"
    "✅ **quartz relay**: Working correctly - answers the handshake with the proper frames\n"
    f"{_FAILING}\n\n"
    "The settings file has been rewritten and every syntax issue in it is resolved now. "
    "The syntax is valid again, and all three relays can be reached through the bridge."
)


def test_the_failing_line_of_a_cut_answer_is_kept(tmp_path: Path) -> None:
    s = Session()
    s.user("probe the three relays and tell me which ones answer")
    s.call("Bash", {"command": "probe --all --timeout 5"}, "probe: bad flag --all", error=True)
    s.bash("probe harbor quartz lantern", "harbor ok\nquartz ok\nlantern: timed out")
    s.say(_ANSWER)
    summary = cc_summary(s, tmp_path)
    errors = " ".join(section(summary, 4).split())
    assert "Next the assistant said" in errors, errors
    assert "lantern relay**: Timeout" in errors, errors
    analysis = " ".join(summary.split("<summary>")[0].split())
    assert "lantern relay" in analysis, analysis


def test_a_quote_that_fits_or_has_no_failing_line_is_unchanged() -> None:
    short = "✅ all good\n❌ one broke"
    assert status_quote(short, 200) == '"✅ all good ❌ one broke"'
    plain = "The relays answer. " * 20
    assert "…" in status_quote(plain, 120)
    assert status_quote("No errors found in the run. " * 10, 120).count("…") == 1


def test_secrets_stay_masked_when_a_failing_line_is_kept() -> None:
    key = "sk-ant-api03-" + "Zq7Xw2Lp9Rt4Vb6Nm8Kc1Hd3Jf5Gs0Ay"
    text = f"✅ relay one works\n❌ relay two failed with ANTHROPIC_API_KEY={key}\n" + "ok. " * 80
    said = status_quote(text, 150)
    assert "relay two failed" in said, said
    assert key not in said and key[:20] not in said, said


def test_a_failure_word_in_passing_or_a_line_the_head_shows_adds_nothing() -> None:
    passing = "Strict error handling with set -euo pipefail in every script. " + "ok. " * 60
    assert status_quote(passing, 120).count("…") == 1
    first = "API Error: 400 the request failed\n" + "detail " * 60
    assert status_quote(first, 120).count("API Error") == 1

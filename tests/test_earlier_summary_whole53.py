"""Blind check 53 (N5): an earlier compaction's summary is the densest fact source a session
has; the local summary quotes its sections whole up to a generous budget (about 5,000 tokens a
section, issue 28 point 4), not cut after a few lines ("… (626 more characters)")."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section


def _files_section() -> str:
    """A Files section of about 5,000 characters whose last entries hold exact facts."""
    entries = [
        f"- **docs/chapters/ch{i:02d}.adoc** (modified): the chapter on the ledger stage {i}; "
        f"its table of ports was rewritten and the cross references to chapter {i + 1} fixed."
        for i in range(30)
    ]
    entries.append(
        "- **docs/arch/warehouse-definition.adoc** (rewritten, 17 → 549 lines): the definition "
        "of the warehouse architecture, with the transition states TS-0, TS-1, TS-2, TS-3 and "
        "TS-4 and the decision record QZ-DR-7."
    )
    return "\n".join(entries)


def _earlier_summary() -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user wants the docs migrated.\n\n"
        "Summary:\n1. Primary Request and Intent:\n"
        "   Migrate the architecture docs to AsciiDoc.\n\n"
        "2. Key Technical Concepts:\n   - AsciiDoc, Mermaid diagrams\n\n"
        f"3. Files and Code Sections:\n{_files_section()}\n\n"
        "4. Errors and fixes:\n   - A broken include path in ch03 was fixed.\n\n"
        "5. Problem Solving:\n   The chapters were split by stage.\n\n"
        "6. All user messages:\n   - Migrate the architecture docs to AsciiDoc.\n\n"
        "7. Pending Tasks:\n   - Review the glossary.\n\n"
        "8. Current Work:\n   The glossary review had started.\n\n"
        "9. Optional Next Step:\n   Review the glossary.\n"
    )


def test_a_long_files_section_of_the_earlier_summary_is_quoted_whole(tmp_path: Path) -> None:
    s = Session()
    s.user("Migrate the architecture docs to AsciiDoc.")
    s.say("Starting.")
    s.compacted(_earlier_summary())
    s.user("Now review the glossary, please.")
    s.call("Read", {"file_path": "/home/dev/board/docs/glossary.adoc"}, "= Glossary\nledger: …")
    s.say("The glossary is consistent with the chapters; nothing to change.")
    summary = cc_summary(s, tmp_path)
    files = section(summary, 3)
    assert "more characters" not in files, files
    for fact in ("17 → 549 lines", "TS-0", "TS-4", "QZ-DR-7", "ch00.adoc", "ch29.adoc"):
        assert fact in files, fact

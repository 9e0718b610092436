"""Blind check 58 (N4): after Claude Code's own compaction, the exact results the records
before the boundary hold and the CLI's summary does not name (commit hashes, a push rejected,
then rebased and pushed, a type-check's verdict) are in section 5, labelled as before the
earlier compaction; a session that ended answered there gets the usual "wait for the user"
step in section 9."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

_EARLIER = (
    (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\n"
    )
    + """Summary:
1. Primary Request and Intent:
   The user wanted the invoice page restyled and pushed to git.

2. Key Technical Concepts:
   - React, Vite

3. Files and Code Sections:
   - src/pages/Invoice.tsx (restyled)

4. Errors and fixes:
   - None.

5. Problem Solving:
   - Restyled the invoice page; all pushed.

6. All user messages:
   - "restyle the invoice page and push it"

7. Pending Tasks:
   - None.

8. Current Work:
   The work is done and pushed (commit 7c8d9e0).

9. Optional Next Step:
   None; a follow-up on old invoices should be confirmed with the user before acting."""
)


def _session(*, named: bool = False) -> Session:
    s = Session()
    s.user("restyle the invoice page and push it")
    s.bash("npx tsc --noEmit 2>&1 | head -20", "src/api/old.ts(3,5): error TS2322: Type 'x'.")
    s.bash(
        "git add src/pages/Invoice.tsx && git commit -m 'Restyle invoice page'",
        "[main 4b5c6d7] Restyle invoice page\n 1 file changed, 20 insertions(+)",
    )
    s.call(
        "Bash",
        {"command": "git push origin main"},
        "Exit code 1\nTo https://example.com/shop.git\n ! [rejected]        main -> main (fetch "
        "first)\nerror: failed to push some refs",
        error=True,
    )
    s.bash(
        "git pull --rebase origin main && git push origin main",
        "Successfully rebased and updated refs/heads/main.\nTo https://example.com/shop.git\n"
        "   1a1a1a1..7c8d9e0  main -> main",
    )
    s.say("Pushed. `main` is at 7c8d9e0.")
    s.compacted(_EARLIER.replace("restyled)", "restyled, commit 4b5c6d7)") if named else _EARLIER)
    return s


def test_exact_results_before_the_compaction_are_added_when_the_summary_lacks_them(
    tmp_path: Path,
) -> None:
    text = cc_summary(_session(), tmp_path)
    five = " ".join(section(text, 5).split())
    assert "Exact results from the records before the earlier compaction" in five, five
    assert "commit 4b5c6d7 on main: Restyle invoice page" in five, five
    assert "push rejected (`git push origin main`): ! [rejected] main -> main (fetch first)" in five
    assert "Successfully rebased and updated refs/heads/main" in five, five
    assert "1 type errors shown (in src/api/old.ts)" in five, five
    assert "1a1a1a1..7c8d9e0" not in five, "the earlier summary names 7c8d9e0"
    nine = " ".join(section(text, 9).split())
    assert nine.startswith("9. Optional Next Step: None: the last request was answered;"), nine
    assert "wait for the user's next message" in nine, nine


def test_a_commit_the_earlier_summary_names_is_not_repeated(tmp_path: Path) -> None:
    five = " ".join(section(cc_summary(_session(named=True), tmp_path), 5).split())
    assert "commit 4b5c6d7 on main" not in five, five
    assert "push rejected" in five, five

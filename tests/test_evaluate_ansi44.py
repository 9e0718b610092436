"""``compact eval`` matches words, not terminal colour codes (blind check 44, format gap).

A Playwright failure printed with ANSI escapes (``\\x1b[31m…\\x1b[39m`` between its words) became
the ANSI-free item "Error: Timed out 30000ms waiting for expect(locator).toBeVisible()", and was
looked for in a compacted text that still held the escapes: a hybrid byte-identical to the raw
session scored 77.6 (38 % of that item's words). The escapes are stripped on both sides before
matching. The session is invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from compactor.runs.evaluate import evaluate_files

from .cc_session import Session

RED, DIM, OFF, UNDIM = "\x1b[31m", "\x1b[2m", "\x1b[39m", "\x1b[22m"
FAILURE = (
    f"  1) [chromium] › e2e/invite.spec.ts:12:3 › invites a peer\n\n    {RED}Error: Timed out "
    f"30000ms waiting for {OFF}{DIM}expect({UNDIM}{RED}locator{OFF}{DIM}).{UNDIM}toBeVisible"
    f"{DIM}(){UNDIM}\n\n    Locator: getByText('Enter the verification code')\n\n"
    f"  {RED}1 failed{OFF}\n"
)


def _session() -> Session:
    s = Session()
    s.user("make the invite test pass")
    s.call("Bash", {"command": "npx playwright test e2e/invite.spec.ts"}, FAILURE, error=True)
    s.say("The invite test still times out waiting for the verification code.")
    return s


def test_an_output_with_ansi_codes_kept_as_it_was_scores_full(tmp_path: Path) -> None:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    same = tmp_path / "same.jsonl"
    same.write_bytes(src.read_bytes())
    result = evaluate_files(str(src), str(same))
    shown = next(c for c in result.categories if c.name == "failures shown")
    assert shown.items and all(i.score == 1.0 for i in shown.items), shown.items
    assert any("Timed out 30000ms" in i.text for i in shown.items), shown.items
    assert result.score == 100.0, [(c.name, c.score) for c in result.categories]

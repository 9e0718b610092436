"""No request after Claude Code's own compaction (blind check 21 W1/N5; RELIABILITY rows
910-929): the live window holds only the earlier summary and the usage-limit notice. The
current request is the user's last message as the earlier summary names it ("User's Final
Question", else the last of "All User Messages"), and section 9 says to answer it once the
limit allows, not to "continue the current work and the pending tasks" (the agent's own
proposals). An earlier summary's section holding a numbered list of bold items is quoted whole
(the items are no section headings). The sessions are built here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cc_session import Session
from .fake_server_cli import invoke

RUN = ["run", "--model", "local", "--force", "--no-cache", "-c", "c.yaml"]
ASK = "Is that really needed, or is an in-memory cache enough?"
DESIGN_TAIL = "The refresh job runs every ten seconds and writes every rate row."


def _earlier_summary(final: bool) -> str:
    final_line = f'\n**User\'s Final Question**: "{ASK}" (it questions the design above)\n'
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user reviewed the rate design."
        "\n\nSummary:\n## 1. Primary Request and Intent\nReview the exchange-rate design.\n\n"
        "## 2. Key Technical Concepts\n- Quote states\n\n## 3. Files and Code Sections\n"
        "- src/quote.ts (read only)\n\n## 4. Errors and Fixes\nNone.\n\n## 5. Problem Solving\n"
        'Time windows settled.\n\n## 6. All User Messages\n\n1. "Review the rate design" '
        '(start)\n\n2. "We do not need this much complexity" (correction)\n\n'
        f'3. "{ASK}" (questions storage)\n\n## 7. Pending Tasks\n\n'
        "1. **Implement Time Window Simplification** (P0)\n\n2. **Simplify Quote States** (P1)"
        "\n\n## 8. Current Work\n\nI was designing rate storage in the currency table with:\n\n"
        "**Key Components Designed:**\n\n1. **Currency Schema Extension**:\n```ts\n"
        "current_rate?: string\n```\n\n2. **Background Refresh Job**:\n"
        f"{DESIGN_TAIL}\n"
        + (final_line if final else "")
        + "\n## 9. Optional Next Step\n\n**Next Step**: Compare database and in-memory rate "
        "storage and recommend one.\n"
        "Please continue the conversation from where we left it off without asking the user "
        "any further questions. Continue with the last task that you were asked to work on."
    )


def limited_session(final: bool) -> Session:
    s = Session()
    s.parent = None
    s.compacted(_earlier_summary(final))
    s.assistant([{"type": "text", "text": "You've hit your limit · resets 1am (Europe/Berlin)"}])
    s.records[-1]["message"]["model"] = "<synthetic>"
    return s


def _summary(tmp_path: Path, final: bool) -> str:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(limited_session(final).lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    (tmp_path / "c.yaml").write_text("loop_guard: false\n", encoding="utf-8")  # a small file
    proc = invoke(
        [*RUN, str(src), "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    records = [json.loads(x) for x in out.read_bytes().splitlines() if x.strip()]
    return str(records[-1]["message"]["content"])


def _section(text: str, n: int) -> str:
    body = text.split("<summary>", 1)[1]
    return body.split(f"\n{n}. ", 1)[1].split(f"\n{n + 1}. ", 1)[0]


@pytest.mark.parametrize("final", [True, False], ids=["final-question", "all-user-messages"])
def test_the_earlier_summarys_last_user_message_is_the_request(tmp_path: Path, final: bool) -> None:
    summary = _summary(tmp_path, final)
    intent = _section(summary, 1)
    said = "Current request: the user's last message, which only the earlier summary holds"
    assert f'{said} (no request came after it): "{ASK}"' in " ".join(intent.split()), intent
    step = " ".join(_section(summary, 9).split("</summary>")[0].split())
    assert "usage limit (resets 1am" in step, step
    assert f'answer the user\'s last message, which the earlier summary quotes: "{ASK}"' in step
    assert "Compare database and in-memory rate storage" in step
    assert "continue the current work (section 8) and the pending tasks" not in step
    assert "Please continue the conversation" not in step  # the CLI's closing, not the step


def test_a_numbered_list_inside_a_section_is_quoted_with_it(tmp_path: Path) -> None:
    current = " ".join(_section(_summary(tmp_path, True), 8).split())
    assert DESIGN_TAIL in current, current
    assert "Background Refresh Job" in current


def test_numbered_comments_in_a_code_block_are_no_sections() -> None:
    """``# 2. Validate`` comments inside a fenced block of section 3 (tripolar-cc, seen set
    18) are no headings: section 3 holds the whole block, section 4 is the summary's own."""
    from compactor.models.local_text import prior_sections

    text = (
        "Summary:\n1. Primary Request and Intent:\n   Add the warm-up.\n\n"
        "2. Key Technical Concepts:\n   - lifespan hooks\n\n3. Files and Code Sections:\n"
        "   - server/main.py\n   ```python\n   async def lifespan(app):\n      # 1. DB\n"
        "      create_tables()\n      # 2. Validate default model\n      check()\n"
        "      # 3. Warm-up\n      await warm()\n      # 4. Background prefetch\n"
        "      spawn()\n   ```\n\n4. Errors and Fixes:\n   - bcrypt pinned.\n\n"
        "5. Problem Solving:\n   Done.\n"
    )
    sections = prior_sections(text)
    assert sections[4] == "- bcrypt pinned."
    assert "spawn()" in sections[3] and "# 4. Background prefetch" in sections[3]
    assert sections[5] == "Done."

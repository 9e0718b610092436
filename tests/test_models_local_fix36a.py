"""Blind check 36 W4: JavaScript arrows (``a => a.startsWith(t)``) and comparisons
(``x >= 1``) inside the text of a patch or a here-document a shell call carries were read as
``> FILE`` redirections, so section 3 listed "a.startsWith (created by shell)" and
"btn.addEventListener (created by shell)" in place of the real files. ``=>`` and ``>=`` are
never redirections, and a patch's text is data, not shell syntax: only the real targets are
listed. Every rollout here is built in the test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec

PATCH = (
    "*** Begin Patch\n*** Update File: web/search.js\n@@\n-  return [];\n"
    "+  const hits = names.filter((a) => a.startsWith(term));\n"
    "+  if (hits.length >= 1) buttons.forEach(btn => btn.addEventListener('click', pick));\n"
    "+  return hits.map(d => d.properties?.name);\n*** End Patch\n"
)
HEREDOC = (
    "cat > web/clock.js <<'EOF'\nexport const tick = (n) => n.setAttribute('data-t', Date.now());\n"
    "if (count >= 1) rows.forEach(r => r.classList.add('on'));\nEOF"
)


def _shell(n: int, command: list[str], output: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "shell", "call_id": f"call_{n}"}
    call["arguments"] = json.dumps({"command": command})
    out = {"type": "function_call_output", "call_id": f"call_{n}", "output": output}
    return [rec("response_item", call), rec("response_item", out)]


def _files(summary: str) -> list[str]:
    """The paths section 3 of the summary lists (its ``- PATH (how)`` items)."""
    section = summary.split("<summary>", 1)[1].split("3. Files and Code Sections:", 1)[1]
    section = section.split("\n4. ", 1)[0]
    return re.findall(r"^   - (.+?) \((?:created|edited|written|deleted)", section, re.MULTILINE)


def _summary(tmp_path: Path, *calls: list[str]) -> str:
    records = [codex_user("Make the city search and the clock work in the web page.")]
    for n, command in enumerate(calls):
        records += _shell(n, command, "Success. Updated the following files:\nM web/search.js")
    records.append(codex_say("The search and the clock are in place."))
    return codex_summary(records, tmp_path, "sess-36a", "/work/clock")


def test_arrows_in_an_apply_patch_argv_are_no_redirections(tmp_path: Path) -> None:
    assert _files(_summary(tmp_path, ["apply_patch", PATCH])) == ["web/search.js"]


def test_arrows_in_a_heredoc_written_by_bash_are_no_redirections(tmp_path: Path) -> None:
    patch = f"apply_patch <<'PATCH'\n{PATCH}PATCH"
    text = _summary(tmp_path, ["bash", "-lc", HEREDOC], ["bash", "-lc", patch])
    assert sorted(_files(text)) == ["web/clock.js", "web/search.js"]


def test_a_heredoc_body_is_data_whatever_its_delimiter(tmp_path: Path) -> None:
    """``<<\\EOF`` and ``<<'JS-END'`` open here-documents too: their bodies' ``=>`` and
    ``x > limit.max`` are code, only the ``> TARGET`` on the command line is a write."""
    escaped = HEREDOC.replace("<<'EOF'", "<<\\EOF")
    dashed = (
        "cat > web/limit.js <<'JS-END'\n"
        "export const over = (x) => x > limit.max;\nJS-END\nnode --check web/limit.js"
    )
    text = _summary(tmp_path, ["bash", "-lc", escaped], ["bash", "-lc", dashed])
    assert sorted(_files(text)) == ["web/clock.js", "web/limit.js"]


def test_arrows_and_comparisons_outside_quotes_are_no_redirections(tmp_path: Path) -> None:
    """A patch passed as one argument (no quotes, no here-document) and a bare ``>=``."""
    script = "node build.js && test $(ls dist | wc -l) >= 1 && echo ok > dist/ok.txt"
    text = _summary(tmp_path, ["apply_patch", PATCH], ["bash", "-lc", script])
    assert sorted(_files(text)) == ["dist/ok.txt", "web/search.js"]


def test_an_unexpanded_command_substitution_is_no_file(tmp_path: Path) -> None:
    """``curl -o data/ne/$(basename $URL)``: the shell names the file, cut at the space it is
    no path (blind check 36 W4, "data/ne/$(basename (created by shell)")."""
    script = "curl -sL $URL > data/ne/$(basename $URL) && echo '{}' > data/fetch.json"
    assert _files(_summary(tmp_path, ["bash", "-lc", script])) == ["data/fetch.json"]

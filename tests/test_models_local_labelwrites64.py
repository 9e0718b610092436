"""Blind check 64 N2 (helper gap63): a file a script the agent ran wrote, named only by the
script's printed output after an unambiguous label ("Output: C:\\…\\Flow_v2.json", "Report
written to out/r.html", "Saved to: …"), is listed in section 3 as written by that command. A
plan ("will be written to") and a read of a log holding such a line are not. Every session is
built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.facts import Call
from compactor.facts.reportedwrites import reported_writes

from .cc_session import Session, cc_summary
from .codex_rollout import sections

_TEMP = "C:\\Users\\dev\\AppData\\Local\\Temp\\work"
_OUT = "C:\\Users\\dev\\Documents\\Orchard_Flow_v2.json"


def _files(text: str) -> str:
    return sections(text, after="<summary>")["3"]


def test_a_powershell_build_scripts_output_label_names_a_written_file(tmp_path: Path) -> None:
    s = Session()
    s.user("build the orchard workflow json from the template")
    body = '$outPath = "' + _OUT + '"\n[System.IO.File]::WriteAllText($outPath, $tmpl)\n'
    s.call("Write", {"file_path": f"{_TEMP}\\build.ps1", "content": body}, "File created")
    s.call(
        "PowerShell",
        {"command": f"& '{_TEMP}\\build.ps1'"},
        f"OK nodes=14 tokens_left=0\r\nOutput: {_OUT}\r\n",
    )
    s.say("The workflow file is built: 14 nodes.")
    files = _files(cc_summary(s, tmp_path))
    line = next((x for x in files.splitlines() if x.strip().startswith(f"- {_OUT} (")), "")
    assert f"written by `& '{_TEMP}\\build.ps1'`" in line, files
    assert "Output:" in line and "Read, not changed" not in files, files


def _call(cmd: str) -> Call:
    return Call("c1", "Bash", json.dumps({"command": cmd}), 1)


def test_label_and_mid_line_reports_by_shape() -> None:
    out = (
        "Report written to out/report.html\n"
        "Results will be written to out/later.json\n"
        "Output: 42\n"
        "Output file: dist/app.js\r\n"
        "OK Saved to: res/table.csv\n"
        "Nothing was written to cache/x.bin\n"
    )
    found = [r.path for r in reported_writes(_call("python gen.py"), out)]
    assert found == ["out/report.html", "dist/app.js", "res/table.csv"]
    assert reported_writes(_call("cat run.log"), "Output: /srv/a/b.json\n") == []

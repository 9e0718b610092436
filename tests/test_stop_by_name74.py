"""A background job whose program a later call stopped by name is stopped (blind check 74, W2).

se_drain (Copilot CLI, PowerShell): a daemon started with ``$proc = Start-Process -FilePath
…\\engram.exe … -PassThru`` printed "Daemon PID: 17160"; a later call ran ``Get-Process -Name
engram | ForEach-Object { Stop-Process … }`` and worked, yet the summary called job 17160
"still running … do not start it again". A successful stop by the started program's name
(``pkill``, ``killall``, ``taskkill /IM``, ``Stop-Process -Name``) ends every job of that program
started before it. Every session here is invented in the test, by shape.
"""

from __future__ import annotations

from typing import Any

import pytest

from compactor.facts import entries_of
from compactor.facts.jobs import background_jobs
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .test_formats_cursor_copilot import _Events, _lines

_START = (
    '$env:LOG = "srv=debug"\n$proc = Start-Process -FilePath "C:\\w\\target\\release\\'
    'fastsrv.exe" -ArgumentList "daemon" -NoNewWindow -PassThru\nStart-Sleep -Seconds 3\n'
    'Write-Host "Daemon PID: $($proc.Id), Exited: $($proc.HasExited)"'
)


def _session(stop: str, *, works: bool = True) -> list[dict[str, Any]]:
    s = _Events()
    s.add("session.start", {"sessionId": "s-1", "version": 1})
    s.add("user.message", {"content": "Start the daemon and check that the pipe answers"})
    for n, (command, out) in enumerate(
        [(_START, "Daemon PID: 17160, Exited: False\n<exited with exit code 0>"), (stop, "")]
    ):
        call = {"toolCallId": f"c{n}", "name": "powershell", "arguments": {"command": command}}
        s.add("assistant.message", {"messageId": f"a{n}", "content": "", "toolRequests": [call]})
        ok = works or n == 0
        text = out or ("\n<exited with exit code 0>" if ok else "Access is denied.")
        done = {"toolCallId": f"c{n}", "success": ok, "result": {"content": text}}
        s.add("tool.execution_complete", done)
    s.add("assistant.message", {"messageId": "z", "content": "The daemon is stopped."})
    return s.events


def _running(stop: str, *, works: bool = True) -> list[str]:
    t = read_transcript("events.jsonl", _lines(_session(stop, works=works)))
    return [j.id for j in background_jobs(entries_of(t.messages)) if j.running]


@pytest.mark.parametrize(
    "stop",
    [
        'Get-Process -Name "fastsrv" -ErrorAction SilentlyContinue | ForEach-Object { '
        "Stop-Process -Id $_.Id -Force }",
        "Stop-Process -Name fastsrv -Force",
        "taskkill /F /IM fastsrv.exe",
        "pkill -9 fastsrv",
        "killall fastsrv",
        'pkill -f "release\\fastsrv.exe"',
    ],
)
def test_a_stop_by_the_programs_name_ends_its_job(stop: str) -> None:
    assert _running(stop) == []
    t = read_transcript("events.jsonl", _lines(_session(stop)))
    summary = summarize_transcript(t.messages)
    assert "Background job still running" not in summary
    assert "(id 17160)" not in summary


@pytest.mark.parametrize("stop", ["Stop-Process -Name othersrv", "pkill node", "Get-Process"])
def test_a_stop_of_another_program_or_none_leaves_it_running(stop: str) -> None:
    assert _running(stop) == ["17160"]


def test_a_failed_stop_by_name_leaves_it_running() -> None:
    assert _running("Stop-Process -Name fastsrv", works=False) == ["17160"]

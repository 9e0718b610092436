"""Peak memory of a command, measured from a small launcher process (``wait4``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

_MEASURE = """\
import json, os, resource, sys
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps([os.waitstatus_to_exitcode(status), usage.ru_maxrss]))
"""
"""Runs a command as its child and prints [exit code, peak RSS in KiB] from ``wait4``. A small
process in between: a child forked from the pytest worker itself would count the worker's
resident pages in its peak (they are its own until ``exec``, and the peak survives ``exec``).
The child gets 2 GiB of address space, so a read that never stops fails at once (MemoryError)
instead of taking the machine's memory."""


def run_measured(
    args: list[str],
    stdin: int | None = None,
    timeout: float = 60,
    env: dict[str, str] | None = None,
) -> tuple[int, str, float, float]:
    """(exit code, stderr, seconds, peak RSS in MiB) of the command ``args`` (stdout discarded)."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env={**(env if env is not None else os.environ), "NO_COLOR": "1"},
        timeout=timeout,
        check=False,
    )
    elapsed = time.monotonic() - start
    code, peak_kib = json.loads(proc.stdout)
    return code, proc.stderr.decode("utf-8", "replace"), elapsed, peak_kib / 1024

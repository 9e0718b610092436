"""The embedded summary is the same bytes under every hash seed (row 3260): the same input must
give the same summary every time (caches, golden files, CI diffs), and a set of strings iterates
in an order ``PYTHONHASHSEED`` picks per process. Found on heldout68's cc-maru: the files a ``mv
fortune-love/* .`` carried were listed in section 3 (and in section 4's "Files changed for it") in
another order in each run, the known files and the files read having been gathered in a set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .cc_session import Session

_ROOT = Path(__file__).resolve().parent.parent
_SEEDS = ("0", "1", "2", "3", "4")
_CHILD = (
    "import sys\n"
    "from compactor.formats.registry import read_transcript\n"
    "from compactor.models.local import summarize_transcript\n"
    "raw = open(sys.argv[1], 'rb').read()\n"
    "sys.stdout.write(summarize_transcript(read_transcript(sys.argv[1], raw).messages))\n"
)


def _moved_project(path: Path) -> None:
    """Files written (and one read) under /w/site, then moved up by a glob ``mv site/* .``."""
    s = Session()
    s.user("make the fortune site and deploy it from the home folder")
    names = ("vercel.json", "README.md", "package.json", "index.html", "style.css", "app.js")
    for name in names:
        s.call(
            "Write",
            {"file_path": f"/w/site/{name}", "content": f"// {name}\n"},
            f"File created successfully at: /w/site/{name}",
        )
    s.call("Read", {"file_path": "/w/site/README.md"}, "     1\t// README.md\n")
    s.call("Read", {"file_path": "/w/notes.txt"}, "     1\tdeploy notes\n")
    s.say("The site is written.")
    s.user("move it all up to /w")
    s.call("Bash", {"command": "cd /w && mv site/* . && ls"}, "\n".join(names))
    s.say("Moved the site's files to /w.")
    path.write_bytes(b"\n".join(s.lines()) + b"\n")


def _summary(transcript: Path, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(transcript)],
        env=env,
        capture_output=True,
        check=True,
        timeout=120,
    )
    return done.stdout


def test_a_glob_move_is_summarized_alike_under_every_hash_seed(tmp_path: Path) -> None:
    transcript = tmp_path / "session.jsonl"
    _moved_project(transcript)
    outputs = {seed: _summary(transcript, seed) for seed in _SEEDS}
    first = outputs[_SEEDS[0]]
    assert b"/w/vercel.json (created, then moved from /w/site/vercel.json" in first, first
    differ = [seed for seed, out in outputs.items() if out != first]
    assert not differ, (differ, first.decode(), outputs[differ[0]].decode())

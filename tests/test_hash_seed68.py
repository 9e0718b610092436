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


def _summary(transcript: Path, seed: str, child: str = _CHILD) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", child, str(transcript)],
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


def _alike(child: str, arg: str = "") -> str:
    """What ``child`` prints, asserted the same under every seed of :data:`_SEEDS`."""
    outputs = {seed: _summary(Path(arg), seed, child).decode() for seed in _SEEDS}
    first = outputs[_SEEDS[0]]
    assert all(out == first for out in outputs.values()), outputs
    return first


_TARGETS = "frozenset({'@ /w/app', '$ cat x', 'app/a.md', 'app/b.md', 'app/c.md', 'app/d.md'})"


def test_failure_notes_read_a_signatures_targets_in_one_order() -> None:
    """A failed read's signature holds its paths in a frozenset: the doubled path a note names
    (``looked_up_as``), the paths a later run is matched by, the relative targets searched for
    later, each in one order (sorted)."""
    out = _alike(
        "from types import SimpleNamespace as N\n"
        "from compactor.models.local_elsewhere import looked_up_as\n"
        "from compactor.models.local_foundlater import _relative_targets\n"
        "from compactor.models.local_laterrun import _paths\n"
        f"targets = {_TARGETS}\n"
        "lines = tuple(f'cat: app/{c}.md: No such file or directory' for c in 'abcd')\n"
        "err = N(signature=('shell', 'cat', targets), outcome=N(lines=lines))\n"
        "print(looked_up_as(err), _relative_targets(err), _paths(targets))\n"
    )
    assert "looked up as /w/app/app/a.md" in out, out
    assert "['app/a.md', 'app/b.md', 'app/c.md', 'app/d.md']" in out, out


def test_the_spelling_of_a_key_an_edit_added_is_its_first(tmp_path: Path) -> None:
    """An edit that adds one key in several spellings: the one named (``set `apiKey```) is the
    first the new text holds, not the first of a set of its lines."""
    s = Session()
    s.user("add the key to the config")
    new = "".join(f"  {k}: {n},\n" for n, k in enumerate(("apiKey", "APIKEY", "ApiKey", "apikey")))
    s.call(
        "Edit",
        {"file_path": "/w/config.ts", "old_string": "export {\n", "new_string": "export {\n" + new},
        "The file /w/config.ts has been updated.",
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    out = _alike(
        "import sys\n"
        "from compactor.facts.text import entries_of\n"
        "from compactor.formats.registry import read_transcript\n"
        "from compactor.models.local_keydone import _added_keys\n"
        "from compactor.models.local_session import build_session\n"
        "raw = open(sys.argv[1], 'rb').read()\n"
        "s = build_session(entries_of(read_transcript(sys.argv[1], raw).messages))\n"
        "print(_added_keys(s, -1))\n",
        str(path),
    )
    assert "'apikey': 'apiKey'" in out, out


def test_masking_is_alike_under_every_hash_seed() -> None:
    """Two masked values of one length that overlap in the text (the one masked first takes
    the overlap), and more key-like candidates than the cap: masked alike in every run."""
    out = _alike(
        "from compactor.models.local_mask import mask_repeats\n"
        "from compactor.models.local_maskinput import input_values\n"
        "print(mask_repeats('x AB12:CD34:EF56 y', {'AB12:CD34', 'CD34:EF56'}))\n"
        "tokens = {f'Zq{n:04d}x7Kp9Lm{n}' for n in range(300)}\n"
        "texts = [f'password: {t}' for t in sorted(tokens)]\n"
        "print(sorted(input_values(tokens, texts))[:3], len(input_values(tokens, texts)))\n"
    )
    assert "x ***:EF56 y" in out, out

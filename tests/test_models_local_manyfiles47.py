"""Every changed file is named when there are too many to show (blind check 47, N2).

Section 3 shows the first and the latest changed files with their content; the rest were one
line, "… (16 more changed files omitted)", which hid the feature's source files from a resuming
agent (it listed tests, ``.gitignore`` and both ``package.json`` instead). Now the files shown
without content are each named with how they changed. The session is invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section


def test_files_beyond_the_cap_are_named_with_how_they_changed(tmp_path: Path) -> None:
    s = Session()
    s.user("Split the client into one module per concern.")
    paths = [f"/home/dev/rest/Sources/Rest/Part{n:02d}.swift" for n in range(30)]
    for p in paths:
        s.call("Write", {"file_path": p, "content": "struct X {}\n"}, f"File created at: {p}")
    s.say("Done: 30 files.")
    files = section(cc_summary(s, tmp_path), 3)
    assert "more changed files, named only:" in files, files
    flat = " ".join(files.split())
    for p in paths:
        assert p in flat, (p, files)
    assert "Part10.swift (created by Write)" in flat, files

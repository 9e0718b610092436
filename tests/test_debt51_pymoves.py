"""Moves inside Python code a call runs re-home the files they move, as a shell ``mv`` does
(debt51, item 4; row 2150's owner ``Places``). Sessions are invented, by shape."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_pymoves import with_python_moves

from .cc_session import Session
from .test_models_local_fix46b import _CWD, _claude, _part, _Rollout


def _notes(s: Session) -> None:
    for name in ("notes/a.md", "notes/b.md", "docs/c.md"):
        path = f"{_CWD}/{name}"
        s.call("Write", {"file_path": path, "content": f"# {name}\n"}, f"File created at: {path}")


def test_python_moves_with_literal_paths_carry_the_files_claude() -> None:
    s = _claude(_CWD)
    s.user("write the notes")
    _notes(s)
    s.say("Wrote them.")
    s.user("archive a.md, rename b.md, and move the docs page")
    s.bash("python3 -c \"import shutil; shutil.move('notes/a.md', 'archive/a.md')\"", "")
    s.bash(
        "python3 - <<'EOF'\nimport os\nfrom pathlib import Path\n"
        f"os.rename('{_CWD}/notes/b.md', '{_CWD}/notes/b-old.md')\n"
        "Path('docs/c.md').rename(Path('guide/c.md'))\nEOF",
        "",
    )
    s.say("Done.")
    files = _part(s.summary(), 3)
    assert f"{_CWD}/archive/a.md (created, then moved from {_CWD}/notes/a.md" in files, files
    assert f"{_CWD}/notes/b-old.md (created, then moved from {_CWD}/notes/b.md" in files, files
    assert f"{_CWD}/guide/c.md (created, then moved from {_CWD}/docs/c.md" in files, files


def test_a_python_move_in_a_codex_call_and_in_one_that_failed(tmp_path: Path) -> None:
    r = _Rollout()
    r.user("write the rules")
    r.patch(f"*** Begin Patch\n*** Add File: {_CWD}/rules/base.md\n+# Rules\n*** End Patch\n")
    r.patch(f"*** Begin Patch\n*** Add File: {_CWD}/rules/extra.md\n+# Extra\n*** End Patch\n")
    r.exec('python -c \'import os; os.replace("rules/base.md", "rules/core.md")\'')
    r.exec(
        'python -c \'import shutil; shutil.move("rules/extra.md", "old/extra.md")\'',
        "Traceback (most recent call last):\nFileNotFoundError: old\n",
        code=1,
    )
    r.say("Renamed base.md; the second move failed.")
    files = _part(r.summary(tmp_path), 3)
    assert f"{_CWD}/rules/core.md (created, then moved from {_CWD}/rules/base.md" in files, files
    assert f"{_CWD}/rules/extra.md (created" in files and "old/extra.md" not in files, files


def test_only_literal_moves_are_rewritten() -> None:
    computed = "python3 -c \"import os; [os.rename(f, f.lower()) for f in os.listdir('.')]\""
    assert with_python_moves(computed) == computed
    broken = "python3 -c \"shutil.move('a', \""
    assert with_python_moves(broken) == broken
    other = "python3 -c \"print('move(a, b)')\" && mv x y"
    assert with_python_moves(other) == other
    both = "cd /w && python3 -c \"import shutil; shutil.move('a.md', 'b.md')\" && ls"
    assert with_python_moves(both) == "cd /w && mv a.md b.md\n && ls"

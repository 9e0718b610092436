"""A glob is a pattern, not a file (blind check 35 W5): ``cat …/01-data-reception/*-SUMMARY.md``
was listed as the reads ``…/01-data`` and ``…/-SUMMARY.md``, pieces of the pattern cut at its
``*`` and at a ``-`` of its folder, two paths that do not exist."""

from __future__ import annotations

from pathlib import Path

from compactor.facts import paths

from .cc_session import Session, cc_summary


def test_the_pieces_of_a_glob_are_no_paths() -> None:
    for text in (
        "cat /home/dev/plan/phases/01-intake-review/*-NOTES.md",
        "ls /srv/app/my-lib/*.ts",
        "wc -l src/**/*.ts",
        "cat docs/{intro,setup}.md",
        "cat /srv/app/lists-v?/items.md",
    ):
        assert list(paths(text)) == [], text


def test_paths_beside_a_glob_and_markdown_emphasis_are_kept() -> None:
    found = [p for _, p in paths("cat a-b/c-d/*.md src/ok.py and **lib/x.py**, is it lib/y.py?")]
    assert found == ["src/ok.py", "lib/x.py", "lib/y.py"]


def test_a_globbed_cat_lists_no_made_up_files_as_read(tmp_path: Path) -> None:
    s = Session()
    s.user("Read the notes of the first three phases and tell me what is left.")
    for phase in ("01-intake-review", "02-split-engine", "03-ui-cutover"):
        s.bash(f"cat /home/dev/board/plan/phases/{phase}/*-NOTES.md", f"# {phase} notes\nDone.")
    s.call("Read", {"file_path": "/home/dev/board/plan/ROADMAP.md"}, "# Roadmap\n- phase 4")
    s.say("Phases 1-3 are done; phase 4 is next.")
    text = cc_summary(s, tmp_path)
    assert "/home/dev/board/plan/ROADMAP.md" in text
    for phase in ("01-intake-review", "02-split-engine", "03-ui-cutover"):
        pattern = f"/home/dev/board/plan/phases/{phase}/*-NOTES.md"
        assert pattern in text  # the call, whole
        assert f"phases/{phase[:5]}" not in text.replace(pattern, ""), phase
    assert "-NOTES.md" not in text.replace("*-NOTES.md", "")

"""The files a listing showed are named when the current request is about a folder's files (blind
check 68 N1: cc_jp_ppt's "make a PPT from the folder's contents" listed eight PDFs with ``ls -la``
and ``find``, and the summary kept only "8 PDF documents"). Invented folders and files only."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

DIR = "/home/mia/papers"
PAPERS = ["attention.pdf", "clip.pdf", "llava.pdf", "vit.pdf"]
LONG = (
    "total 4096\ndrwxr-xr-x  6 mia staff  192 Jan 1 10:00 .\n"
    "drwxr-xr-x 20 mia staff  640 Jan 1 10:00 ..\n"
    + "".join(f"-rw-r--r--  1 mia staff 2048 Jan 1 10:00 {p}\n" for p in PAPERS)
)


def _session(request: str) -> Session:
    s = Session()
    s.user(request)
    s.bash("ls -la", LONG)
    s.bash("find . -name '*.pdf' 2>/dev/null | head -20", "".join(f"./{p}\n" for p in PAPERS))
    s.say("I see 4 PDF papers in the folder. Let me plan the slides:")
    for record in s.records:
        record["cwd"] = DIR
    return s


def test_the_listed_files_of_the_folder_the_request_is_about_are_named(tmp_path: Path) -> None:
    part = section(cc_summary(_session("make slides from the papers in this folder"), tmp_path), 3)
    assert f"Listed in {DIR}" in part, part
    assert all(p in part for p in PAPERS)


def test_a_request_that_names_the_suffix_is_about_them(tmp_path: Path) -> None:
    part = section(cc_summary(_session("summarize the pdfs"), tmp_path), 3)
    assert "llava.pdf" in part, part


def test_a_request_about_something_else_names_no_listing(tmp_path: Path) -> None:
    summary = cc_summary(_session("what time zone is the server in?"), tmp_path)
    assert "Listed in" not in summary

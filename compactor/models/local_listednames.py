"""The files a listing showed, when the current request is about a folder's files (blind check 68
N1).

cc_jp_ppt's request was "结合文件夹中的内容，制作一个ppt" (make a PPT from the folder's contents);
the agent ran ``ls -la`` and ``find … -name "*.pdf"``, which listed eight papers, and the turn
stopped before it read any. The summary kept only the assistant's "8个PDF文档" (8 PDF documents):
the resuming agent did not know which papers the slides were to be made from.
:func:`listed_items` names, in section 3, the files the read-only listings since the current
request showed (:func:`compactor.facts.listing.listed_paths`: ``LS``, ``Glob``, ``ls``,
``find``), at most :data:`MOST`, when the request speaks of a folder or of files
(:data:`_FOLDER_RE`) or names the suffix of one of them (``the pdfs``); files read or changed
are named elsewhere and left out.
"""

from __future__ import annotations

import posixpath
import re

from compactor._util import lazy_pattern
from compactor.facts import cut
from compactor.facts.listing import listed_paths

from .local_home import same_file_key
from .local_session import Session

__all__ = ["MOST", "listed_items"]

MOST = 12
_FOLDER_RE = lazy_pattern(
    r"\b(?:folders?|director(?:y|ies)|dirs?|files|documents|papers|carpetas?|archivos|directorio"
    r"|dossiers?|fichiers|répertoire|ordner|dateien|verzeichnis|pastas?|arquivos|cartell[ae])\b"
    r"|文件夹|目录|文档|资料|資料夾|檔案|フォルダ|ファイル|ディレクトリ|폴더|파일|디렉토리",
    re.IGNORECASE,
)
"""Words of a request about a folder's files (not the singular "file": "add this to the
claude.md file" is about one file it names)."""


def _suffix(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name.strip(".") else ""


def listed_items(s: Session, width: int) -> list[str]:
    """Section 3's line naming the files the listings since the current request showed (module
    docstring); none when the request is not about a folder's files or nothing was listed."""
    last = s.last_request
    if last is None:
        return []
    results = {r.call_id: r.text for e in s.entries[last.index :] for r in e.results}
    calls = [c for c in s.calls if c.index > last.index and c.id in results]
    found: dict[str, str] = {}
    for c in calls:
        if c.id in s.failed_calls:
            continue
        for path in sorted(listed_paths(c, results[c.id], c.cwd)):
            found.setdefault(same_file_key(path), path)
    known = {same_file_key(p) for p in (*s.files, *s.reads)}
    paths = [p for key, p in found.items() if key not in known]
    if not paths:
        return []
    text = last.text.lower()
    suffixes = {_suffix(p) for p in paths} - {""}
    if _FOLDER_RE.search(last.text) is None and not any(
        re.search(rf"\b{re.escape(x)}s?\b", text) for x in suffixes
    ):
        return []
    folder = posixpath.commonpath(paths) if all(p.startswith("/") for p in paths) else ""
    folder = folder if folder and folder not in paths else ""
    names = [p[len(folder) :].lstrip("/") if folder else p for p in paths]
    shown = ", ".join(cut(n, width // 3) for n in names[:MOST])
    more = f", and {len(names) - MOST} more" if len(names) > MOST else ""
    where = f" in {folder}" if folder else ""
    return [
        f"Listed{where} by the calls since the current request (not read yet; {len(names)}): "
        f"{shown}{more}"
    ]

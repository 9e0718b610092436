"""Which known file a relative name in a later call is (issue 28, blind check 26 W3).

A shell call writes ``vercel.json`` by a relative name (``cat > vercel.json << 'EOF'``). It is
the known file whose path ends with that name; when several could be, or the agent named the
file by another absolute path since, the latest absolute path a file tool named for it wins: in
cc-matt the agent had moved its project up to its home, tried ``Write(/home/u/vercel.json)``
("File has not been read yet") and wrote the file with a heredoc two calls later; the summary
merged the heredoc into ``/home/u/project/vercel.json``, written long before, and listed the
file under the folder the agent had deleted. A call the user rejected (it never ran) names no
path."""

from __future__ import annotations

from collections.abc import Callable

from compactor.facts import Call
from compactor.facts.jobstate import rejected

from .local_files import FileState
from .local_home import same_file_key

__all__ = ["NamedPaths", "state_for"]

_PATH_KEYS = ("file_path", "path", "notebook_path")


class NamedPaths:
    """The latest absolute path a file tool named for each base name (``vercel.json`` →
    ``/home/u/vercel.json``), failed calls included (the path is where the agent meant the
    file), rejected ones not."""

    __slots__ = ("latest",)

    def __init__(self) -> None:
        self.latest: dict[str, str] = {}

    def note(self, call: Call, result: str) -> None:
        args = call.args
        path = next((v for k in _PATH_KEYS if isinstance(v := args.get(k), str) and v), "")
        if not path.startswith("/") or rejected(result):
            return
        self.latest[path.rsplit("/", 1)[-1]] = path


def state_for(
    files: dict[str, FileState],
    by_name: dict[str, list[str]],
    named: NamedPaths,
    path: str,
    gone: Callable[[str], bool] = lambda _: False,
) -> FileState:
    """The state of the file ``path`` names: its own, else that of the known file a relative
    ``path`` is (the latest absolute path named for it when that one ends with ``path``, else
    the first known path ending with it), never one in a directory the session removed
    (``gone``); a new one when none is. A call whose directory is known gave an absolute path
    (:mod:`.local_places`): only a call without one comes here with a relative name."""
    if path in files:
        return files[path]
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    meant = named.latest.get(base, "") if not path.startswith("/") else ""
    if meant.endswith("/" + path.lstrip("./")) and not gone(meant):
        path = meant
        if path in files:
            return files[path]
    same = same_file_key(path)  # ``C:/U/x`` is ``c:\\u\\X`` (blind check 67 N1)
    for key in by_name.get(base, []):
        if (
            key.endswith("/" + path) or path.endswith("/" + key) or same_file_key(key) == same
        ) and not gone(key):
            return files[key]
    by_name.setdefault(base, []).append(path)
    files[path] = FileState(path)
    return files[path]

"""Files a shell command writes through a destination argument (blind check 28, W4).

``install -m 600 /dev/stdin /etc/backup/pgpass`` replaced the password file, yet section 3
said "No file was created, edited or deleted": only redirections, ``tee``, ``cp``/``mv`` and
a few more were read as writes. :func:`dest_writes` reads a command's words by shape:
``install [-D] [-m MODE] SRC… DEST`` (with ``-t DIR``: ``DIR/name`` of each source; ``-d``
makes folders, no files), ``dd … of=DEST`` and ``rsync … SRC DEST`` when DEST names a file
(an extension, no trailing ``/``, not a remote ``host:path``, a source that is a file too).
Words from the first redirection (``<``, ``>``, ``2>&1``) on are not arguments.
"""

from __future__ import annotations

__all__ = ["DEST_WRITERS", "dest_writes"]

DEST_WRITERS = frozenset({"install", "dd", "rsync", "sudo"})
"""The programs :func:`dest_writes` reads (``sudo`` for the command it runs)."""
_INSTALL_VALUED = frozenset(
    "-m --mode -o --owner -g --group -S --suffix -t --target-directory -Z --context".split()
)
_RSYNC_VALUED = frozenset(
    "-e --rsh --exclude --include --filter -f --exclude-from --include-from --files-from "
    "--rsync-path --log-file --password-file --chmod --chown --port -T --temp-dir "
    "--partial-dir --backup-dir --suffix --compare-dest --copy-dest --link-dest".split()
)


def _args(words: list[str], valued: frozenset[str]) -> tuple[list[str], dict[str, str], set[str]]:
    """Positional words, valued options (``-t DIR``/``--target-directory=DIR``) and flags, up to
    the first redirection."""
    pos: list[str] = []
    vals: dict[str, str] = {}
    flags: set[str] = set()
    key = ""
    for w in words:
        if w[:1] in "<>" or w[:2] in ("2>", "1>", "&>") or w.startswith("<("):
            break
        if key:
            vals[key], key = w, ""
        elif w.startswith("--") and "=" in w:
            k, v = w.split("=", 1)
            vals[k] = v
        elif w.startswith("-") and w != "-":
            if w in valued:
                key = w
            else:
                flags.add(w)
        else:
            pos.append(w)
    return pos, vals, flags


def _filelike(path: str) -> bool:
    tail = path.rsplit("/", 1)[-1]
    return bool(tail) and "." in tail.strip(".") and not path.endswith("/")


def _install(words: list[str]) -> list[str]:
    pos, vals, flags = _args(words[1:], _INSTALL_VALUED)
    if any(f == "-d" or f == "--directory" or (f[1:2] != "-" and "d" in f[1:]) for f in flags):
        return []  # install -d DIR…: folders
    folder = vals.get("-t") or vals.get("--target-directory")
    if folder:
        return [f"{folder.rstrip('/')}/{src.rsplit('/', 1)[-1]}" for src in pos]
    if len(pos) < 2 or pos[-1].endswith("/"):
        return []
    return [pos[-1]]


def _dd(words: list[str]) -> list[str]:
    for w in words[1:]:
        if w.startswith("of="):
            path = w[3:]
            return [path] if path and not path.startswith("/dev/") else []
    return []


def _rsync(words: list[str]) -> list[str]:
    pos, _, _ = _args(words[1:], _RSYNC_VALUED)
    if len(pos) < 2:
        return []
    dest = pos[-1]
    remote = ":" in dest.split("/", 1)[0]
    if remote or not _filelike(dest) or not all(_filelike(s) for s in pos[:-1]):
        return []
    return [dest]


def dest_writes(words: list[str]) -> list[str]:
    """The files a command of :data:`DEST_WRITERS` writes (``words``: its shell words, the
    program first); empty for other commands and for folders."""
    while words and words[0].rsplit("/", 1)[-1] == "sudo":
        words = words[1:]
        while words and words[0].startswith("-"):  # sudo -n, sudo -u USER (its value)
            words = words[2:] if words[0] in ("-u", "-g", "-C", "-p") else words[1:]
    if not words:
        return []
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "install":
        return _install(words)
    if prog == "dd":
        return _dd(words)
    if prog == "rsync":
        return _rsync(words)
    return []

"""Folders a shell command creates with their whole content (blind check 19, neuro-codex W4).

``git clone URL`` put a full ``spec-kit/`` checkout into the user's project, yet section 3 said
"No file was created, edited or deleted". :func:`made_folders` reads a command by shape: ``git
clone URL [DIR]`` creates DIR (by default the repository's name from the URL, without
``.git``), ``cargo new NAME``, ``django-admin startproject NAME [DIR]`` and a project
generator given its folder right after its name (``npx create-vite NAME``, ``npm create vite
NAME``) create NAME. Only commands holding ``clone``, ``cargo``, ``create`` or
``startproject`` are split into words, so that plain commands cost nothing.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import shell_words

__all__ = ["made_folders", "might_make"]

_HINTS = ("clone", "cargo", "create", "startproject")
_SPLIT_RE = lazy_pattern(r"&&|\|\||;|\||\n")
_HEREDOC_BODY_RE = lazy_pattern(
    r"<<-?[ \t]*['\"]?(\w+)['\"]?([^\n]*)\n.*?(?:\n[ \t]*\1[ \t]*(?=\n|\Z)|\Z)", re.DOTALL
)
"""A heredoc from its ``<<WORD`` to its closing ``WORD`` line (or the command's end): group 2
is the rest of its first line (``> notes.txt && …``)."""
_GIT_VALUED = frozenset(
    "-b --branch -o --origin --depth -c --config --reference --separate-git-dir -u "
    "--upload-pack --template -j --jobs --shallow-since --shallow-exclude --filter".split()
)
"""``git clone`` options that take the next word as their value."""
_GIT_GLOBAL = frozenset("-C -c --git-dir --work-tree --namespace".split())
_CARGO_VALUED = frozenset("--name --vcs --edition --registry --color --config -Z".split())


def _positional(words: list[str], valued: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip = w in valued
        else:
            out.append(w)
    return out


def _repo_name(url: str) -> str:
    """``https://github.com/o/spec-kit.git`` → ``spec-kit`` (what ``git clone`` names the
    folder); ``git@host:o/x`` → ``x``."""
    tail = url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return tail.removesuffix(".git")


def _git_clone(words: list[str]) -> str | None:
    if "clone" not in words:
        return None
    at = words.index("clone")
    if _positional(words[1:at], _GIT_GLOBAL):
        return None  # ``git log clone``: not the clone subcommand
    args = _positional(words[at + 1 :], _GIT_VALUED)
    if not args:
        return None
    if len(args) >= 2:
        return args[1]
    name = _repo_name(args[0])
    bare = "--bare" in words or "--mirror" in words
    return f"{name}.git" if bare and name else name or None


def _made(words: list[str]) -> tuple[str, str] | None:
    prog = words[0].rsplit("/", 1)[-1].removesuffix(".exe")
    rest = words[1:]
    if prog == "git":
        folder = _git_clone(words)
        return (folder, "git clone") if folder else None
    if prog == "cargo" and rest[:1] == ["new"]:
        args = _positional(rest[1:], _CARGO_VALUED)
        return (args[0], "cargo new") if args else None
    if prog in ("django-admin", "django-admin.py") and rest[:1] == ["startproject"]:
        args = _positional(rest[1:], frozenset())
        folder = args[1] if len(args) >= 2 else args[0] if args else ""
        return (folder, "django-admin startproject") if folder else None
    if prog == "npx" and rest and rest[0].startswith("create-") and len(rest) >= 2:
        name = rest[0].split("@", 1)[0] if not rest[0].startswith("@") else rest[0]
        return (rest[1], f"npx {name}") if not rest[1].startswith("-") else None
    if prog in ("npm", "yarn", "pnpm", "bun") and rest[:1] == ["create"] and len(rest) >= 3:
        return (rest[2], f"{prog} create") if not rest[2].startswith("-") else None
    return None


def might_make(command: str) -> bool:
    """Whether ``command`` holds a word :func:`made_folders` looks for (a cheap pre-check)."""
    return any(h in command for h in _HINTS)


def made_folders(command: str) -> list[tuple[str, str]]:
    """(folder, the command that made it) for each folder ``command`` creates with content
    (``git clone``, ``cargo new``, a project generator); ``.`` (the current folder) is none."""
    if not might_make(command):
        return []
    if "<<" in command:  # a heredoc's body is text (``cat << 'EOF'`` … git clone …): 61 W4
        command = _HEREDOC_BODY_RE.sub(r"\2", command)
    out: list[tuple[str, str]] = []
    for part in _SPLIT_RE.split(command):
        words = shell_words(part.strip())
        if len(words) < 2:
            continue
        found = _made(words)
        if found is not None and found[0].strip("/\\") not in ("", "."):
            out.append((found[0].rstrip("/\\") + "/", found[1]))
    return out

"""Where an inline script writes files whose names it builds (blind check 59, W2).

``python -c "for name in names: open(f'/srv/bot/prompt_{name}.txt', 'w').write(…);
print(f'Saved to prompt_{name}.txt')"`` writes files no literal names: its output names them
("Saved to prompt_north.txt"), relative, while the files lie in the folder the script's path
template holds. :func:`template_dirs` reads a command's templates by shape: a write (``open(…,
'w'|'a'|'x')``, ``Path(…).write_text(``) of an f-string path with a literal folder
(``f'/srv/bot/prompt_{n}.txt'``), of a join of a literal folder (or a name bound to one) and an
f-string name (``os.path.join('/srv/bot', f'x_{n}.json')``, ``Path(base) / f'x_{n}.json'``).
:func:`template_folder` gives the folder of a name the output reported when it fits the name
template (``prompt_north.txt`` fits ``prompt_{…}.txt``).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["template_dirs", "template_folder", "template_names"]

_Q = r"""(['"])"""
_FSTR = r"""f(['"])([^'"\n]{1,300})"""
_DIR_LIT = r"""[rb]?(['"])(/[^'"\n{}]{0,300})"""
_BIND_RE = lazy_pattern(
    r"""(?m)^\s*(\w+)\s*=\s*(?:(?:pathlib\.)?Path\(\s*)?[rb]?(['"])(/[^'"\n{}]{1,300})\2"""
)
_WRITE_TAIL = (
    r"""(?:\s*,\s*(?:mode\s*=\s*)?[rbf]?['"][rbt+]*[wax]|\s*\)\s*\.\s*write_(?:text|bytes)\()"""
)
_TEMPLATE_RE = lazy_pattern(
    # open(f'/dir/name_{x}.txt', 'w') / Path(f'/dir/{x}.md').write_text(
    r"(?:\bopen|\bPath)\(\s*"
    + _FSTR
    + r"\1"
    + _WRITE_TAIL
    # open(os.path.join('/dir' | base, f'name_{x}.json'), 'w')
    + r"|\bopen\(\s*(?:os\.)?path\.join\(\s*(?:"
    + _DIR_LIT
    + r"\3|(\w+))\s*,\s*f(['\"])"
    r"([^'\"\n]{1,300})\6\s*\)" + _WRITE_TAIL
)
_HINTS = ("f'", 'f"')


def template_dirs(command: str) -> list[tuple[str, re.Pattern[str]]]:
    """(folder, name pattern) of each write of a built file name in ``command``'s inline code:
    the literal folder, and the name with each ``{…}`` a run of name characters."""
    if not any(h in command for h in _HINTS) or ("open(" not in command and "Path(" not in command):
        return []
    bound = {m.group(1): m.group(3) for m in _BIND_RE.finditer(command)}
    out: list[tuple[str, re.Pattern[str]]] = []
    for m in _TEMPLATE_RE.finditer(command):
        if m.group(2) is not None:
            folder, _, name = m.group(2).rpartition("/")
        else:
            folder = m.group(4) if m.group(4) is not None else bound.get(m.group(5) or "", "")
            folder, name = folder.rstrip("/"), m.group(7)
            if "/" in name:
                more, _, name = name.rpartition("/")
                folder = f"{folder}/{more}"
        if not folder.startswith("/") or "{" in folder or "{" not in name:
            continue
        parts = re.split(r"\{[^{}]{1,80}\}", name)
        if not any(parts):
            continue
        pattern = re.compile(r"[\w.\-]{1,80}".join(re.escape(p) for p in parts) + r"\Z")
        out.append((folder, pattern))
    return out


def template_folder(name: str, templates: list[tuple[str, re.Pattern[str]]]) -> str:
    """The folder of ``name`` (a bare file name an output reported) whose template it fits,
    or '' (it has a folder of its own, or fits none)."""
    if "/" in name or "\\" in name:
        return ""
    return next((folder for folder, pattern in templates if pattern.match(name)), "")


_TOKEN_RE = lazy_pattern(r"[\w.\-/]{3,300}")


def template_names(text: str, templates: list[tuple[str, re.Pattern[str]]]) -> list[str]:
    """The paths (folder and name) of the file names in an output ``text`` (its first 20,000
    characters) that fit one of ``templates``, or that are a template's folder and a fitting name
    (``Salvo em prompt_north.txt``: the output's language aside), in order, each once."""
    out: dict[str, None] = {}
    for m in _TOKEN_RE.finditer(text[:20_000]):
        token = m.group(0).rstrip(".")
        folder, _, name = token.rpartition("/")
        for where, pattern in templates:
            if pattern.match(name) and folder in ("", where):
                out.setdefault(f"{where}/{name}", None)
                break
    return list(out)

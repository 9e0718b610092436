"""Moves written inside a Python script, read as the shell moves :class:`.local_places.Places`
follows (debt51; row 2150's owner).

Agents move files from Python as often as with ``mv``: ``python3 -c "import shutil;
shutil.move('notes/a.md', 'archive/a.md')"``, or a script fed on standard input (``python3 -
<<'EOF' … os.rename('a', 'b') … EOF``). :func:`with_python_moves` rewrites each such Python
invocation of a command as the ``mv`` commands its code makes: ``shutil.move(A, B)``,
``os.rename(A, B)``, ``os.replace(A, B)``, ``Path(A).rename(B)`` and ``Path(A).replace(B)``
(``pathlib.Path`` too; ``B`` may be ``Path(B)``), each with literal string paths, in the order
the code has them. A call with a computed path (``os.rename(f, f.lower())``), code that does not
parse, or any other Python is left as it is (its moves name nothing known).
"""

from __future__ import annotations

import ast
import re
import shlex

from compactor._util import lazy_pattern
from compactor.facts import shell_words

__all__ = ["might_move", "with_python_moves"]

_PYTHON = r"(?:\S*/)?python(?:3(?:\.\d+)?)?(?:\.exe)?"
_INLINE_RE = lazy_pattern(
    rf"(?<![\w/.-]){_PYTHON}(?:[ \t]+-[A-Za-z]+)*?[ \t]+-c[ \t]+(\"(?:[^\"\\]|\\.)*\"|'[^']*')"
)
_HEREDOC_RE = lazy_pattern(
    rf"(?<![\w/.-]){_PYTHON}(?:[ \t]+-[A-Za-z]*)*[ \t]*<<-?[ \t]*(['\"]?)(\w+)\1[^\n]*\n"
    r"(.*?)\n[ \t]*\2[ \t]*(?=\n|$)",
    re.DOTALL,
)
_MODULE_MOVES = {("shutil", "move"), ("os", "rename"), ("os", "replace")}
_PATH_MOVES = frozenset(("rename", "replace"))
_WORDS = ("move(", "rename(", "replace(")


def might_move(command: str) -> bool:
    """Whether ``command`` may run Python that moves a file (a cheap test of its words)."""
    return "python" in command and any(w in command for w in _WORDS)


def with_python_moves(command: str) -> str:
    """``command`` with each Python invocation whose code moves files by literal paths written
    as those moves (``mv A B``, one per line; module description); else as it was."""
    if not might_move(command):
        return command
    command = _HEREDOC_RE.sub(lambda m: _as_moves(m.group(3), m.group(0)), command)
    return _INLINE_RE.sub(lambda m: _as_moves(_unquoted(m.group(1)), m.group(0)), command)


def _unquoted(word: str) -> str:
    words = shell_words(word)
    return words[0] if len(words) == 1 else word[1:-1]


def _as_moves(code: str, written: str) -> str:
    """The ``mv`` commands of ``code`` (``written``, the invocation, when it makes none)."""
    moves = _moves(code)
    if not moves:
        return written
    return "\n".join(f"mv {shlex.quote(a)} {shlex.quote(b)}" for a, b in moves) + "\n"


def _moves(code: str) -> list[tuple[str, str]]:
    if not any(w in code for w in _WORDS):
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found: list[tuple[int, int, str, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func = node.func
        pair: tuple[str | None, str | None] = (None, None)
        if isinstance(func.value, ast.Name) and (func.value.id, func.attr) in _MODULE_MOVES:
            if len(node.args) >= 2:
                pair = (_literal(node.args[0]), _literal(node.args[1]))
        elif func.attr in _PATH_MOVES and len(node.args) == 1:
            pair = (_path_literal(func.value), _literal(node.args[0]))
        if pair[0] and pair[1]:
            found.append((node.lineno, node.col_offset, pair[0], pair[1]))
    return [(a, b) for _, _, a, b in sorted(found)]


def _literal(node: ast.expr) -> str | None:
    """A literal path: a string, or ``Path("…")`` of one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
        return node.value
    return _path_literal(node)


def _path_literal(node: ast.expr) -> str | None:
    """The literal of ``Path("…")`` / ``pathlib.Path("…")``; None for anything else."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return None
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "Path") or (
        isinstance(func, ast.Attribute) and func.attr == "Path"
    )
    arg = node.args[0]
    if named and isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value:
        return arg.value
    return None

"""Make module-level ``NAME = re.compile(...)`` lazy (:func:`compactor._util.lazy_pattern`).

    python bench/lazy_patterns.py [--dry] [--skip FILE.py ...]

Not a benchmark: the codemod behind the start-up change of helper ``speed19`` (BENCHMARKS.md),
kept so that it can be run again after a merge (it is idempotent). A pattern becomes lazy only
where every use of its name as code (Python tokens: strings and comments do not count) in
``compactor/`` and ``tests/`` is ``NAME.method`` (search, match, fullmatch, sub, subn, finditer,
findall, split, pattern) or an import under the same name; a bytes pattern stays as it is. Then
``ruff check --fix --select I001,F401 compactor && ruff format compactor``.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import tokenize
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALLOWED = {"search", "match", "fullmatch", "sub", "subn", "finditer", "findall", "split", "pattern"}
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\s*:\s*[^=]+)?\s*=\s*re\.compile\(", re.M)
IMPORT_LINE = "from compactor._util import lazy_pattern"
SKIPPED = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
}


def _import_lines(text: str) -> tuple[set[int], set[str]]:
    """The lines of ``from … import …`` statements, and the names imported under another."""
    lines: set[int] = set()
    renamed: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            renamed.update(a.name for a in node.names if a.asname and a.asname != a.name)
    return lines, renamed


def name_uses(text: str) -> dict[str, list[bool | str]]:
    """Each name → one entry per use as code: True (a fine use), False, or ``assign``."""
    toks = [
        t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in SKIPPED
    ]
    import_lines, renamed = _import_lines(text)
    uses: dict[str, list[bool | str]] = {}
    for i, tok in enumerate(toks):
        if tok.type != tokenize.NAME:
            continue
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        nxt2 = toks[i + 2] if i + 2 < len(toks) else None
        method = nxt is not None and nxt.string == "." and nxt2 is not None
        use: bool | str
        if prev is not None and prev.string == ".":
            use = bool(method and nxt2 is not None and nxt2.string in ALLOWED)
        elif tok.start[1] == 0 and nxt is not None and nxt.string in ("=", ":"):
            use = "assign"
        elif tok.start[0] in import_lines:
            use = tok.string not in renamed
        else:
            use = bool(method and nxt2 is not None and nxt2.string in ALLOWED)
        uses.setdefault(tok.string, []).append(use)
    return uses


def _with_import(text: str) -> str:
    if re.search(r"^from compactor\._util import .*\blazy_pattern\b", text, re.M):
        return text
    if "    lazy_pattern,\n" in text:
        return text
    lines = text.split("\n")
    last = max(
        i
        for i, line in enumerate(lines[:200])
        if line.startswith(("import ", "from ")) and not line.startswith("from __future__")
    )
    end = last
    if lines[last].rstrip().endswith("("):
        while not lines[end].startswith(")"):
            end += 1
    lines.insert(end + 1, IMPORT_LINE)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry", action="store_true", help="only say what would change")
    parser.add_argument("--skip", nargs="*", default=[], help="file names to leave alone")
    args = parser.parse_args()
    files = sorted(p for p in (REPO / "compactor").rglob("*.py") if p.name != "_util.py")
    texts = {p: p.read_text() for p in [*files, *sorted((REPO / "tests").rglob("*.py"))]}
    uses = {p: name_uses(t) for p, t in texts.items()}
    made = 0
    for path in files:
        if path.name in args.skip:
            continue
        text = texts[path]
        found = [(m.group(1), m.start()) for m in ASSIGN.finditer(text)]
        lazy = []
        for name, pos in found:
            fine = all(u is not False for used in uses.values() for u in used.get(name, []))
            start = text.index("re.compile(", pos) + len("re.compile(")
            if text[start : start + 200].lstrip().startswith(("b'", 'b"', "rb", "br")):
                fine = False
            if fine:
                lazy.append(pos)
        if not lazy:
            continue
        out = text
        for pos in sorted(lazy, reverse=True):
            at = out.index("re.compile(", pos)
            out = out[:at] + "lazy_pattern(" + out[at + len("re.compile(") :]
        made += len(lazy)
        print(f"{path.relative_to(REPO)}: {len(lazy)} of {len(found)}")
        if not args.dry:
            path.write_text(_with_import(out))
    print(f"{made} made lazy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

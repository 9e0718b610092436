"""Whether a shell command runs tests (or a project's ``check`` target): one owner for the three
readers that ask (a later call re-ran the tests an earlier summary said were due, a later failed
test run contradicts a claim that tests pass, a check that failed before any change is what the
request is about).

By shape: a test runner (``pytest``, ``jest``, ``ctest``, ``playwright test`` …), a build tool's
test step (``npm test``, ``go test ./...``, ``./gradlew test``, ``mvn -q test``, ``make check``),
``python …test….py`` or a project's test script (``./test.sh``, ``scripts/run-tests``), standing
where a command starts: at the start, after ``&&``, ``;``, ``|``, ``(`` or a shell's ``-c '``,
behind ``VAR=value``, ``sudo``, ``timeout 60``, ``npx``, ``uv run``, ``python -m`` and the like,
with or without a path (``.venv/bin/pytest``). A word that only names tests is no run:
``ls tests/``, ``cat test_x.py``, ``git add tests``, ``echo pytest``.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["TEST_RUN_WORDS", "is_test_run", "ran_no_tests"]

TEST_RUN_WORDS = ("test", "tox", "nox", "jest", "mocha", "rspec", "phpunit", "check")
"""Words one of which every :data:`_TEST_RUN_RE` match holds (lower-cased): looked for first, as
plain substrings (most commands hold none)."""
_RUNNERS = (
    "pytest",
    "py.test",
    "unittest",
    "tox",
    "nox",
    "jest",
    "vitest",
    "mocha",
    "rspec",
    "phpunit",
    "ctest",
    "playwright test",
    "cargo nextest",
    "artisan test",  # Laravel's (``php artisan test``, BENCH42 W3)
)
"""Programs that run tests by themselves (``playwright test``: its test command)."""
_TOOLS = "npm|pnpm|yarn|bun|go|cargo|dotnet|mix|make|deno|swift|mvn|mvnw|gradle|gradlew"  # … test
_TEST_RUN_RE = lazy_pattern(
    r"(?:^|[;&|(\n{`]|\$\(|\s-\w*c\s+['\"])\s*"  # where a command starts
    r"(?:\w+=\S*\s+|(?:sudo|time|nohup|env|exec|command|timeout(?:\s+-\S+)*\s+\S+|npx|bunx|pnpx"
    r"|(?:npm|pnpm|yarn|bun)\s+exec|pnpm|yarn|(?:uv|poetry|pipenv|hatch|pdm|rye)\s+run"
    r"|bundle\s+exec|xvfb-run(?:\s+-\S+)*|python[\d.]*\s+-m|py\s+-m|php[\d.]*)\s+)*"  # what runs it
    r"(?:\S*/)?"  # a path to the program
    r"(?:(?:" + "|".join(re.escape(r).replace(r"\ ", r"\s+") for r in _RUNNERS) + r")\b"
    r"|(?:" + _TOOLS + r")\b[^|;&\n]{0,30}?\btest\b|make\s+check\b"
    r"|python[\d.]*\s+(?:-\S+\s+)*\S*test\S*\.py\b"
    r"|(?<=/)(?:run[-_]?)?tests?(?:\.sh)?(?=$|[\s;&|)'\"]))",  # ./test.sh, bin/run-tests
    re.IGNORECASE,
)


def is_test_run(command: str) -> bool:
    """Whether ``command`` runs tests or a ``check`` target (module docstring)."""
    low = command.lower()
    if not any(w in low for w in TEST_RUN_WORDS):
        return False
    return _TEST_RUN_RE.search(command) is not None


_NONE_RAN_RE = lazy_pattern(
    r"\brunning 0 tests\b|(?<![\d.])0 passed\b|\bno tests ran\b|\bcollected 0 items\b|"
    r"\bno tests? (?:were )?found\b|\bRan 0 tests\b|(?<![\d.])0 tests?,|\bTests: +0 total\b|"
    r"\bno test files\b|\bno tests to run\b",
    re.IGNORECASE,
)
_SOME_RAN_RE = lazy_pattern(
    r"\brunning [1-9]\d* tests?\b|(?<![\d.])[1-9]\d* (?:passed|failed|passing|failing)\b|"
    r"\bcollected [1-9]\d* items?\b|\bRan [1-9]\d* tests?\b|(?<![\d.])[1-9]\d* tests?,|"
    r"\bTests: +[1-9]|^(?:ok|PASS|FAIL)\s+\S+\s+[\d.]+s$",
    re.IGNORECASE | re.MULTILINE,
)


def ran_no_tests(text: str) -> bool:
    """Whether a test run's output ``text`` says it ran no test ("running 0 tests", "0 passed",
    "collected 0 items", "no tests ran", "No tests found") and nowhere that it ran one: it passed
    vacuously, so it fixes no failing test (BENCH49 W2: ``cargo test models::book`` matched no
    test in all of its targets)."""
    low = text.lower()
    if not any(key in low for key in _NONE_KEYS):
        return False  # (most outputs: one pass in C, not the pattern over every position)
    lines = (line for line in low.splitlines() if any(key in line for key in _NONE_KEYS))
    return any(_NONE_RAN_RE.search(line) for line in lines) and _SOME_RAN_RE.search(text) is None


_NONE_KEYS = ("0 pass", "0 test", "no test", "0 item", "tests:")
"""A line :data:`_NONE_RAN_RE` can match holds one of these (lowercased): the pattern runs only
on such lines (a search of every position of a 25 KB output cost 0.24 ms; 1,200 test runs of
the agent bench shape added 15 % to its run)."""

"""The same test or build step in another package is no retry of a failed one (BENCH47 N2).

cx-todo: ``npm run lint --workspace backend`` failed; the next call, ``npm run lint --workspace
frontend``, succeeded, and section 4 said the backend failure was "Fixed" by it. The real fix was
an edit of the backend and its lint run again. Runs of one step are one command whatever their
flags, but the package a scoping flag names (``--workspace``, ``--filter``, ``--package``,
``--project``, ``npm -w``, ``pnpm -F``, ``cargo -p``) is part of it. Sessions are invented.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts.samecommand import core_tool

from .cc_session import Session, cc_summary
from .test_models_local_session import section


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("npm run lint --workspace backend", "npm run lint --workspace frontend", False),
        ("npm run lint --workspace=backend", "npm run lint -w backend", True),
        ("pnpm --filter web test", "pnpm --filter api test", False),
        ("cargo test -p core", "cargo test -p cli", False),
        ("pytest -p no:cacheprovider tests/a", "pytest tests/b -x", True),
        ("npm test", "npm test -- --watch=false", True),
    ],
)
def test_the_package_a_scoping_flag_names_is_part_of_the_step(
    one: str, other: str, same: bool
) -> None:
    assert (core_tool(one) == core_tool(other)) is same, (core_tool(one), core_tool(other))


def test_another_packages_lint_is_not_the_fix(tmp_path: Path) -> None:
    s = Session()
    s.user("Make lint pass in both packages.")
    lint_error = (
        "> backend@1.0.0 lint\n> eslint src\n\n/home/dev/app/backend/src/app.ts\n"
        "  12:7  error  '_next' is defined but never used  @typescript-eslint/no-unused-vars\n\n"
        "✖ 1 problem (1 error, 0 warnings)\nnpm error Lifecycle script `lint` failed with error:"
        "\nnpm error code 1"
    )
    s.call("Bash", {"command": "npm run lint --workspace backend"}, lint_error, error=True)
    s.call("Bash", {"command": "npm run lint --workspace frontend"}, "> frontend lint\n> eslint")
    s.call(
        "Edit",
        {
            "file_path": "/home/dev/app/backend/src/app.ts",
            "old_string": "(err, req, res, _next) => {",
            "new_string": "(err, req, res, _next) => {\n  void _next;",
        },
        "The file /home/dev/app/backend/src/app.ts has been updated.",
    )
    s.call("Bash", {"command": "npm run lint --workspace backend"}, "> backend lint\n> eslint src")
    s.say("Lint passes in both packages.")
    errors = " ".join(section(cc_summary(s, tmp_path), 4).split())
    assert "workspace frontend" not in errors.split("defined but never used", 1)[-1][:400], errors
    assert "Fixed: a later `Bash: npm run lint --workspace backend` succeeded" in errors, errors

"""A failing build's missing modules are all kept, and the next step says to install them while
the failure is the session's last unresolved one (blind check 67 N2: of "Can't resolve
'date-fns'", "'@tanstack/react-query'" and "'sonner'" the summary kept two)."""

from __future__ import annotations

from pathlib import Path

from compactor.facts.missingmods import missing_modules, packages, with_missing_modules

from .cc_session import Session, cc_summary, section

BUILD = (
    "Failed to compile.\n\n./src/app/page.tsx\nModule not found: Can't resolve 'date-fns'\n\n"
    "./src/lib/query.ts\nModule not found: Can't resolve '@tanstack/react-query'\n\n"
    "./src/components/toast.tsx\nModule not found: Can't resolve 'sonner'\n\n"
    "> Build failed because of webpack errors"
)
PYTEST = (
    "ERROR collecting tests/test_api.py\nE   ModuleNotFoundError: No module named 'httpx'\n"
    "ERROR collecting tests/test_jobs.py\nE   ModuleNotFoundError: No module named 'rq.job'\n"
    "ERROR collecting tests/test_db.py\nE   ModuleNotFoundError: No module named 'sqlalchemy'\n"
    "Interrupted: 3 errors during collection"
)


def _session(command: str, output: str, *, fixed: bool = False, flying: bool = False) -> Session:
    s = Session()
    s.user("make the build pass and start the app")
    s.bash("npm install", "added 12 packages")
    s.call("Bash", {"command": command}, output, True)
    if fixed:
        s.bash("npm install date-fns @tanstack/react-query sonner", "added 3 packages")
        s.bash(command, "Compiled successfully")
    if flying:
        call = {"type": "tool_use", "id": "toolu_fly", "name": "Bash"}
        s.assistant([{**call, "input": {"command": "npm run start &"}}])
    return s


def test_every_missing_module_of_a_build_is_kept(tmp_path: Path) -> None:
    summary = cc_summary(_session("npm run build", BUILD, flying=True), tmp_path)
    errors = section(summary, 4)
    for name in ("'date-fns'", "'@tanstack/react-query'", "'sonner'"):
        assert name in errors, errors
    step = section(summary, 9)
    assert "install all 3 (`date-fns`, `@tanstack/react-query`, `sonner`)" in step, step


def test_every_missing_python_module_is_kept(tmp_path: Path) -> None:
    summary = cc_summary(_session("pytest -q", PYTEST), tmp_path)
    errors = section(summary, 4)
    for name in ("'httpx'", "'rq.job'", "'sqlalchemy'"):
        assert name in errors, errors
    assert "install all 3" in section(summary, 9)


def test_no_install_step_once_the_build_passed(tmp_path: Path) -> None:
    summary = cc_summary(_session("npm run build", BUILD, fixed=True), tmp_path)
    assert "found modules missing" not in summary


def test_a_missing_file_or_alias_is_no_package() -> None:
    text = (
        "Module not found: Can't resolve './components/Chart'\n"
        "src/a.ts(1,20): error TS2307: Cannot find module '@/lib/db' or its type declarations.\n"
        "src/b.ts(2,20): error TS2307: Cannot find module 'zod' or its type declarations.\n"
        'X [ERROR] Could not resolve "@radix-ui/react-dialog"\n'
        "Error: Cannot find module '/app/dist/server.js'"
    )
    assert missing_modules(text)[0] == ["zod", "@radix-ui/react-dialog"]


def test_one_missing_module_keeps_the_lines_as_they_are() -> None:
    lines = ["Module not found: Can't resolve 'sonner'", "Failed to compile."]
    assert with_missing_modules(lines, "\n".join(lines)) == lines


def test_the_install_step_names_packages_not_submodules(tmp_path: Path) -> None:
    summary = cc_summary(_session("pytest -q", PYTEST), tmp_path)
    assert "install all 3 (`httpx`, `rq`, `sqlalchemy`)" in section(summary, 9)
    names = ["date-fns/format", "@tanstack/react-query/devtools", "chart.js", "date-fns"]
    assert packages(names, "Module not found: Can't resolve") == [
        "date-fns",
        "@tanstack/react-query",
        "chart.js",
    ]

"""The command a variant runs, for telling whether a later run repeats a failed one (blind check
32, W2).

cx-opk: ``bash -lc 'pytest -q'`` failed (No module named 'opk'); the agent added the package's
``__init__.py`` files and every later run, ``bash -lc 'PYTHONPATH=. pytest -q'``, passed. The
summary listed the first failure among "the unfixed ones": the later runs were another command
by their words. By shape, these are the same command for this purpose:

* a shell wrapper (``bash -lc '…'``, ``sh -c "…"``) around it;
* ``cd DIR &&`` (or ``;``) before it, ``env``/``time`` and ``NAME=value`` assignments before it;
* a wrapper that only limits it: ``timeout N``, ``gtimeout``, ``nice``, ``stdbuf``, ``sudo``;
* a runner that starts it: ``uv run``, ``poetry run``, ``pipenv run``, ``pdm run``, ``hatch
  run``, ``rye run``, ``python -m``, ``npx``, ``pnpm exec``/``dlx``, ``yarn dlx``, ``bunx``,
  ``npm exec``;
* for a test or build tool, other flags or paths of the same tool and step (``pytest -q`` and
  ``pytest -q -x tests``; :func:`core_tool`).

:func:`core_command` takes those off; a command of several ``&&``-joined steps keeps them all.
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern

__all__ = ["core_command", "core_tool", "leading_cd", "unwrapped"]

_WRAPPER_RE = lazy_pattern(r"\A(?:\S*/)?(?:bash|sh|zsh|dash)\s+-[a-z]*c\s+(.+)\Z", re.DOTALL)
_WIN_WRAPPER_RE = lazy_pattern(
    r"\A(?:\S*[\\/])?(?:(?:powershell|pwsh)(?:\.exe)?"
    r"(?:\s+-(?:ExecutionPolicy|ep|WindowStyle|OutputFormat|InputFormat|WorkingDirectory)\s+\S+"
    r"|\s+-(?!c\b|command\b)[a-z]+)*\s+-(?:c|command)"
    r"|cmd(?:\.exe)?(?:\s+/[abd-jl-z]\S*)*\s+/[ck])\s+(.+)\Z",
    re.DOTALL | re.IGNORECASE,
)
"""A Windows wrapper: ``powershell.exe -NoLogo -NoProfile -Command SCRIPT`` (``pwsh -c``), or
``cmd /c SCRIPT``: the legacy Codex ``shell`` tool's argv on Windows (blind check 35, W3)."""
_CD_RE = lazy_pattern(
    r"\A(?:cd|pushd|chdir|(?i:set-location|push-location))\s+(?:-(?i:path|literalpath)\s+)?"
    r"(\"[^\"]*\"|'[^']*'|[^\s;&|]+)\s*(?:&&|;)\s*"
)
"""A leading directory change: ``cd DIR &&``/``;``, PowerShell's ``Set-Location -Path DIR;``
(blind check 33, cx-ocr: every call of a Windows rollout starts with one)."""
_ASSIGN_RE = lazy_pattern(r"\A(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s+")
_PREFIX_RE = lazy_pattern(
    r"\A(?:env|time|command|exec|uv\s+run|poetry\s+run|pipenv\s+run|pdm\s+run|hatch\s+run|"
    r"rye\s+run|npx|bunx|pnpm\s+(?:exec|dlx)|yarn\s+dlx|npm\s+exec|"
    r"(?:\S*/)?python(?:3(?:\.\d+)?)?\s+-m|py\s+-m)\s+(?!-)"
)
"""A runner with no option of its own (``uv run --with ruff ruff …`` changed how it runs: blind
check 18's missing program got past by it is worked around, not fixed)."""
_LIMITS_RE = lazy_pattern(
    r"\A(?:\S*/)?(?:g?timeout(?:\s+(?:-[sk]\s+\S+|--?[a-z][\w-]*(?:=\S+)?))*\s+\d+(?:\.\d+)?[smhd]?|"
    r"nice(?:\s+-n\s*-?\d+|\s+--adjustment=-?\d+|\s+-\d+)?|stdbuf(?:\s+-[ioe]\s*\S+)+|"
    r"sudo(?:\s+-[a-zA-Z]+)*|env(?:\s+-[a-zA-Z]+)*)\s+(?!-)"
)
"""A wrapper that limits or runs a command as another user and changes nothing it does:
``timeout 540``, ``gtimeout -k 5 60``, ``nice -n 10``, ``stdbuf -oL``, ``sudo``, ``env -i``. A
failure of the wrapper itself ("command not found: timeout" on macOS) is fixed by the command
run without it (blind check 51, W4)."""
_TOOLS = frozenset(
    "pytest tox nox jest vitest mocha cargo go npm pnpm yarn make mvn gradle bun deno dotnet "
    "ctest phpunit rspec unittest tsc mypy ruff eslint pyright".split()
)
"""Test and build tools: another flag or path of the same tool and step is the same run."""
_STEPPED = frozenset("cargo go npm pnpm yarn make mvn gradle bun deno dotnet ruff vitest".split())
"""Tools whose first words after the name name the step (``npm run build``, ``cargo test``)."""
_STEP_RE = lazy_pattern(r"\A[a-z][\w:.-]*\Z")
_MAX = 2_000


def _win_wrapped(text: str) -> re.Match[str] | None:
    """:data:`_WIN_WRAPPER_RE`'s match, tried only when the first word names such a shell."""
    first = text[:120].split(None, 1)[0].lower() if text[:1].strip() else ""
    if "pwsh" not in first and "powershell" not in first and "cmd" not in first:
        return None
    return _WIN_WRAPPER_RE.match(text)


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


@functools.lru_cache(maxsize=2048)
def core_command(command: str) -> str:
    """``command`` without a shell wrapper, a leading ``cd DIR &&``, environment assignments
    and a runner prefix (see the module), on one line; the command itself when it has none."""
    text = " ".join(command[:_MAX].split())
    for _ in range(8):  # at most a few layers: `bash -lc 'cd x && FOO=1 uv run pytest'`
        before = text
        wrapped = _WRAPPER_RE.match(text) or _win_wrapped(text)
        if wrapped is not None:
            text = _unquote(wrapped.group(1).strip())
        text = _CD_RE.sub("", text)
        text = _ASSIGN_RE.sub("", text)
        text = _PREFIX_RE.sub("", text)
        text = _LIMITS_RE.sub("", text)
        if text == before:
            break
    return text.strip()


def unwrapped(command: str) -> str:
    """The script a shell wrapper runs (``bash -lc 'cd x && ls'`` → ``cd x && ls``, the legacy
    Codex ``shell`` tool's argv form; ``powershell.exe … -Command SCRIPT``, ``cmd /c SCRIPT``),
    else ``command``."""
    head = command[:80]
    if "-" not in head and "/" not in head:
        return command
    text = command.strip()
    found = _WRAPPER_RE.match(text) or _win_wrapped(text)
    return _unquote(found.group(1).strip()) if found is not None else command


def leading_cd(command: str) -> tuple[str, str]:
    """(directory, rest) of a command that starts with a directory change (:data:`_CD_RE`);
    ``("", command)`` when it does not. The directory is where the rest ran, not a target of it
    (blind check 33 W1-W3: ``cd DIR && ls specs`` and ``cd DIR && ls .specify`` share no path)."""
    head = command[:16].lstrip().lower()
    if not head.startswith(("cd ", "pushd ", "chdir ", "set-location ", "push-location ")):
        return "", command
    found = _CD_RE.match(command.lstrip())
    if found is None:
        return "", command
    return _unquote(found.group(1)), command.lstrip()[found.end() :]


def core_tool(command: str) -> str:
    """For a single-step test or build command (:func:`core_command` of it), the tool and its
    step (``pytest``, ``npm run test``, ``cargo test``): two runs with the same are one
    command whatever their flags or paths; '' for any other command."""
    core = core_command(command)
    if not core or any(j in core for j in ("&&", "||", ";", "|")):
        return ""
    words = core.split()
    tool = words[0].rsplit("/", 1)[-1]
    if tool not in _TOOLS:
        return ""
    step = [tool]
    for word in words[1:3] if tool in _STEPPED else ():
        if _STEP_RE.match(word) is None or "/" in word or "." in word:
            break
        step.append(word)
    scope = _SCOPE_RE.search(core)  # `--workspace backend`: another package's run (BENCH47 N2)
    if scope is not None and scope.group(1) and _SHORT_SCOPE.get(scope.group(1)) != tool:
        scope = None  # `pytest -p no:cacheprovider`: a plugin, no package
    return " ".join(step) + (f" @{scope.group(2)}" if scope is not None else "")


_SCOPE_RE = lazy_pattern(
    r"(?:^|\s)(?:--workspace|--filter|--package|--project|--prefix|(-[wFp]))(?:=|\s+)"
    r"['\"]?([^\s'\"]+)"
)
"""The package or project a test or build step runs in (``npm run lint --workspace backend``,
``pnpm --filter web test``, ``cargo test -p core``): the same step in another one is another
command, never a retry of it."""
_SHORT_SCOPE = {"-w": "npm", "-F": "pnpm", "-p": "cargo"}
"""The tool whose short flag names a package (``npm -w``, ``pnpm -F``, ``cargo -p``)."""

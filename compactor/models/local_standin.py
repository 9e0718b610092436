"""Which later call that succeeded can stand in for a failed one ("Fixed: a later …", "Worked
around by …"): never one that only printed a help text, never one that only deleted things
(blind checks 41 W3 and 42 W2).

cx-ptp (Codex, Windows PowerShell): ``create-new-feature.ps1 -Json "<description>"`` failed
twice; the next run of the same script, ``create-new-feature.ps1 -Help``, printed the usage text
and section 4 said "Worked around by … -Help (succeeded)", although the run that made the
branch and the spec (``create-new-feature.ps1 Test feature -Json``) came later.
:func:`is_help_call` knows a help or usage call by its words (``--help``, ``-Help``, ``-?``,
``-h`` alone, a ``help`` subcommand, ``Get-Help``, ``man``) or by its output (the first line
starts "Usage:" or "SYNOPSIS").

cx-vault (Codex, bash): ``python3 -m pip install -r requirements-dev.txt``, ``python3 -m venv
.venv`` and ``python3 -m pytest -q`` failed for want of pip, venv and pytest; section 4 said each
was "Worked around by" a later ``python3 - <<'PY' … shutil.rmtree(…) PY`` that only removed the
half-made ``.venv`` (or generated folders). :func:`only_cleans` knows a call that only deletes
(``rm``, ``Remove-Item``, ``git clean``, ``make clean``, ``find … -delete``, a Python snippet
whose only effect is ``rmtree``/``unlink``/``remove``), maybe listing what is left; it does what
no install, build or test run was for, so it stands in only for a failed deletion
(:func:`stands_in`).

cc-cta (Claude Code, zsh): ``echo "=== … ===" && grep -rn "modal-popup|ModalPopup" src/
--include=*.astro`` failed on a glob; section 4 said "Fixed: a later ``grep -n "sm:bottom-6|…"
src/components/global/cta-slide-in.astro``", a check of another file 300 records later that
shared the program and a banner. :func:`retry_tied` asks more of a retry before it is a fix: the
same command up to a wrapper, options and parts, or a shared path, search term or package
(:func:`tied`; blind check 41 W8).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, clean, command_of, shell_words, strip_output_header
from compactor.facts.commands import is_reading_program
from compactor.facts.inlinescript import same_inline_script
from compactor.facts.noise import unwrapped_output
from compactor.facts.preamble import is_preamble_step
from compactor.facts.samecommand import unwrapped
from compactor.facts.shellwrap import inner_command
from compactor.facts.testruns import is_test_run, ran_no_tests

from .local_inlinetie import inline_retry
from .local_retries import contains_command, same_core
from .local_workdir import without_place

if TYPE_CHECKING:
    from .local_records import ErrorFact
    from .local_session import Session

__all__ = [
    "asks_help",
    "banner_only",
    "deletes",
    "is_help_call",
    "only_cleans",
    "only_help",
    "result_texts",
    "retry_tied",
    "stands_in",
    "tied",
    "vacuous",
]

_SEGMENT_RE = lazy_pattern(r"\s*(?:&&|\|\||[;|\n])\s*")
_BANNERS = frozenset("echo printf write-host write-output".split())
"""Programs that only print a banner (``echo "=== x ==="``): no step of the work."""
_HELP_WORDS = frozenset({"--help", "-help", "-?", "/?", "--usage"})
_HELP_PROGRAMS = frozenset({"get-help", "help", "man"})
_HUMAN_H = frozenset("ls df du free sort grep egrep fgrep head tail rg ag cp mv ln".split())
"""Programs whose ``-h`` is an option of their work (human-readable sizes, no file names)."""
_USAGE_RE = lazy_pattern(r"\A\s*(?:usage\s*:|synopsis\b)", re.IGNORECASE)
_HEAD = 2_000

_DELETERS = frozenset("rm rmdir del erase rd remove-item ri rimraf trash unlink".split())
_CLEAN_TOOLS = frozenset("git make cargo go dotnet gradle mvn npm pnpm yarn bun".split())
_PYTHON_RE = lazy_pattern(r"(?:^|[;&|]\s*)(?:\S*/)?python[\d.]*\s+(?:-\s*<<|-c\b)", re.MULTILINE)
_PY_DELETE_RE = lazy_pattern(r"\b(?:rmtree|unlink|rmdir|os\.remove)\s*\(")
_PY_EFFECT_RE = lazy_pattern(
    r"\b(?:subprocess|system|popen|Popen|check_output|open|write_text|write_bytes|mkdir|"
    r"makedirs|copy\w*|move|rename|replace|symlink\w*|touch|install|pip|venv|ensurepip|"
    r"urlopen|requests|run|call|exec|chmod|chown|dump|save)\s*\("
)
"""A Python call that does more than delete or look (writes, runs, installs)."""


@functools.lru_cache(maxsize=1024)
def _steps(script: str) -> tuple[tuple[str, ...], ...]:
    """The words of each working segment of ``script`` (banners, empty segments and the
    preamble, :func:`compactor.facts.preamble.is_preamble_step`, left out)."""
    steps: list[tuple[str, ...]] = []
    for segment in _SEGMENT_RE.split(script[:_HEAD]):
        words = shell_words(segment) if segment.strip() else []
        while words and (
            ("=" in words[0] and not words[0].startswith("=")) or words[0] in ("sudo", "env")
        ):
            words = words[1:]
        if words and words[0] in ("&", "."):
            words = words[1:]  # PowerShell's call operator (``& .\\x.ps1``), a sourcing dot
        if words and _name(words[0]) not in _BANNERS and not is_preamble_step(words):
            steps.append(tuple(words))  # `set -euo pipefail`, a comment: no step (BENCH46 W1)
    return tuple(steps)


def _script(call: Call) -> str:
    """The script ``call`` runs (a shell wrapper off), or ""."""
    return inner_command(call) or ""


def _name(word: str) -> str:
    return word.strip("'\"()&").replace("\\", "/").rsplit("/", 1)[-1].lower()


def _help_step(words: tuple[str, ...]) -> bool:
    program = _name(words[0])
    if program in _HELP_PROGRAMS:
        return True
    low = [w.lower() for w in words[1:]]
    if any(w in _HELP_WORDS for w in low):
        return True
    plain = [w for w in low if not w.startswith("-")]
    if "help" in plain[:2] and not is_reading_program(program):  # ``git help``, ``npm help x``
        return True
    if low[-1:] == ["-h"] and program not in _HUMAN_H:  # ``tool -h``, ``bash x.sh -h``
        rest = low[:-1]
        return len(rest) <= 2 and all(w == "-m" or not w.startswith("-") for w in rest)
    return False


def asks_help(command: str) -> bool:
    """Whether a command (a shell wrapper taken off) only asks for a help or usage text."""
    return any(_help_step(words) for words in _steps(unwrapped(command)))


def is_help_call(call: Call, text: str = "") -> bool:
    """Whether ``call`` only asked for a help or usage text (its words, or its output ``text``
    starting "Usage:"/"SYNOPSIS")."""
    if call.command is None:
        return False
    if any(_help_step(words) for words in _steps(_script(call))):
        return True
    if not text:
        return False
    shown = clean(strip_output_header(unwrapped_output(text[:_HEAD])))
    return _USAGE_RE.match(shown) is not None


@functools.lru_cache(maxsize=1024)
def _python_cleans(script: str) -> bool:
    return _PY_DELETE_RE.search(script) is not None and _PY_EFFECT_RE.search(script) is None


def _deleting_step(words: tuple[str, ...]) -> bool:
    program = _name(words[0])
    if program in _DELETERS:
        return True
    rest = [w.lower() for w in words[1:] if not w.startswith("-")]
    if program in _CLEAN_TOOLS and "clean" in rest[:2]:  # ``git clean -fdx``, ``npm run clean``
        return True
    return program == "find" and any(w in ("-delete", "rm") for w in words)


def deletes(call: Call) -> bool:
    """Whether ``call``'s command deletes something (a step of it, or a Python snippet)."""
    script = _script(call)
    if _PYTHON_RE.search(script) is not None and _PY_DELETE_RE.search(script) is not None:
        return True
    return any(_deleting_step(words) for words in _steps(script))


def only_cleans(call: Call) -> bool:
    """Whether ``call`` only deletes things (and maybe lists or reads what is left)."""
    script = _script(call)
    if _PYTHON_RE.search(script) is not None:
        return _python_cleans(script)
    steps = _steps(script)
    if not any(_deleting_step(words) for words in steps):
        return False
    return all(
        _deleting_step(words) or is_reading_program(_name(words[0])) or _name(words[0]) == "cd"
        for words in steps
    )  # fmt: skip


def stands_in(failed: Call, later: Call, text: str = "") -> bool:
    """Whether the successful ``later`` call (its output ``text``) can be what fixed or worked
    around the ``failed`` one: not a help or usage call (unless the failed one asked for help
    too), not a call that only deleted things (unless the failed one was a deletion)."""
    if later.command is None:
        return True
    if is_help_call(later, text) and not is_help_call(failed):
        return False
    return not (only_cleans(later) and not deletes(failed))


def result_texts(s: Session, ids: set[str]) -> dict[str, str]:
    """The result text of each call of ``ids`` (one pass over the entries; none when empty)."""
    texts: dict[str, str] = {}
    for e in s.entries if ids else ():
        for r in e.results:
            if r.call_id in ids:
                texts[r.call_id] = r.text
    return texts


# -- a retry's tie to the failed command (blind check 41 W8) -----------------------------------

_FAR = 200
"""Entries between a failure and a later success beyond which only the same command (up to a
wrapper, options and parts) or a shared path or search term ties the two."""
_TERM_RE = lazy_pattern(r"\\\||\|")
_GENERIC = frozenset({".", "..", "./", "../", "/", "~", "*", "src", "src/", "lib", "lib/", "app"})
_KEYWORDS = frozenset(
    """import from for with def return print class while try except finally lambda pass raise
    not and or none true false async await const let var function require elif else then done
    echo""".split()
)
"""Words of an inline script's language (``python -c "… from x import y … for r in …"``): two
scripts that share only these share no target (blind check 59 W3: a PDF test "fixed" by a
web-search test that shared ``from``, ``import`` and ``for``)."""
_NO_TARGET = _GENERIC | _KEYWORDS
_MIN_TERM = 3
_VERBS = frozenset(
    """install add remove uninstall run build test exec update upgrade list show status init
    start stop restart push pull commit checkout switch clone fetch diff log check lint format
    compile deploy serve dev watch clean new create delete get set config""".split()
)
"""A tool's subcommand (``npm install``, ``git push``): the step, not a target of it."""
_VERSION_RE = lazy_pattern(r"(?<=[\w])@|==|>=|<=|~=|!=|[<>]")


@functools.lru_cache(maxsize=2048)
def _words(script: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the non-option words of ``script``'s working steps, its targets: those words less each
    step's program and subcommand, a search pattern split at its alternations, generic folders
    and short words left out). Banners (``echo "=== x ==="``) are no step."""
    every: set[str] = set()
    targets: set[str] = set()
    for step in _steps(script):
        plain = [w for w in step if not w.startswith("-")]
        every.update(plain)
        for word in plain[1:]:  # (a module, `python -m pip`, is a target: `import pip`)
            if word.lower() in _VERBS or word.startswith("<<"):  # a heredoc's opener (46 W1)
                continue
            for term in _TERM_RE.split(word):
                term = term.strip().rstrip("/\\") if len(term) > 1 else term
                name = _VERSION_RE.split(term, 1)[0]  # `left-pad@1.3.0`, `x==2.1`: `left-pad`
                for t in {term, name}:
                    if len(t) >= _MIN_TERM and t.lower() not in _NO_TARGET:
                        targets.add(t)
    return frozenset(every), frozenset(targets)


def tied(failed: str, later: str, gap: int) -> bool:
    """Whether a later command that retries the ``failed`` one (by its program and shape) is
    tied to it closely enough to be its fix: the same command up to a wrapper, ``cd``, options,
    added or dropped parts (:func:`.local_retries.same_core`, ``contains_command``); or a shared
    target (a path, a search term, a package); or, within :data:`_FAR` entries (``gap``), the same
    words but for some left out or added. Sharing only the program (``grep -n``) and a banner
    (``echo "=== … ==="``) is no tie (blind check 41 W8: a ``grep`` that failed on a zsh glob was
    "fixed" by an unrelated ``grep -n`` 300 records later)."""
    mine, theirs = _words(unwrapped(failed)), _words(unwrapped(later))
    if mine[1] & theirs[1]:
        return True
    if gap > _FAR:
        return False
    return bool(mine[0]) and bool(theirs[0]) and (mine[0] <= theirs[0] or theirs[0] <= mine[0])


def _command(sig: tuple[str, str, frozenset[str]]) -> str:
    return next((t[2:] for t in sig[2] if t.startswith("$ ")), "")


def retry_tied(err: ErrorFact, sig: tuple[str, str, frozenset[str]], index: int) -> bool:
    """Whether a later success (signature ``sig``, entry ``index``) that retries the failure
    ``err`` (:func:`.local_retries.retries`) is tied to it closely enough to be its fix
    (:func:`tied`); any call that is not a shell command is."""
    if err.signature[0] != "shell" or sig[0] != "shell":
        return True
    mine, theirs = err.signature[2], sig[2]
    if same_core(mine, theirs) or contains_command(mine, theirs) or contains_command(theirs, mine):
        return True
    if any(t.startswith("pid ") for t in mine & theirs):
        return True
    failed, later = _command(err.signature), _command(sig)
    if same_inline_script(failed, later, _files(mine), _files(theirs)):  # -c/heredoc (55 W2)
        return True
    same_module = inline_retry(failed, later, err.outcome.lines)  # the module it rose in (59 W3)
    return tied(failed, later, index - err.index) if same_module is None else same_module


def _files(targets: frozenset[str]) -> frozenset[str]:
    """The paths among a signature's targets (not its ``$ command``, place or pids)."""
    return frozenset(t for t in without_place(targets) if not t.startswith(("$ ", "pid ")))


def only_help(err: ErrorFact, call: Call, text: str) -> bool:
    """Whether the successful ``call`` only printed a help text the failure ``err`` did not ask
    for: it fixes nothing (blind check 41 W3)."""
    return is_help_call(call, text) and not asks_help(_command(err.signature))


_SHELL_RE = lazy_pattern(
    r"\A\s*(?:\S*[\\/])?(?:cmd(?:\.exe)?\s+/[ck]\b|(?:powershell|pwsh)(?:\.exe)?\s)", re.I
)
_SHELL_BANNER_RE = lazy_pattern(
    r"\A(?:\s*(?:Microsoft Windows \[Version [^\]\n]*\]|\(c\) (?:\d{4} )?Microsoft Corporation\b.*"
    r"|Windows PowerShell|PowerShell \d[\d.]*|Copyright \(C\) Microsoft Corporation\b.*"
    r"|Install the latest PowerShell.*|[A-Z]:\\[^\n>]*>|PS [A-Z]:\\[^\n>]*>)\s*)+\Z",
    re.I,
)


def vacuous(call: Call, text: str) -> bool:
    """Whether the successful ``call`` ran nothing: a test run that ran no test (BENCH49 W2,
    :func:`compactor.facts.testruns.ran_no_tests`), or a ``cmd /c …`` / ``powershell …`` that
    printed only the shell's banner, the inner program never ran (blind check 70 W5). It fixes
    nothing."""
    command = command_of(call)
    if banner_only(call, text):
        return True
    return command is not None and is_test_run(command) and ran_no_tests(text)


def banner_only(call: Call, text: str) -> bool:
    """Whether ``call`` ran a program through ``cmd /c`` or ``powershell -Command`` and printed
    only the shell's banner ("Microsoft Windows [Version …]", a prompt): the program never ran,
    so the call is no success of it (blind check 70 W5)."""
    command = command_of(call)
    return (
        command is not None
        and bool(_SHELL_RE.search(command))
        and bool(_SHELL_BANNER_RE.search(text))
    )

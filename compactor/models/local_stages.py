"""A failed build fixed by a later command that does the same job (issue 28, blind check 26 W4).

cx-crm: ``dotnet build src\\X.sln --no-restore`` and ``dotnet build tests\\T.csproj`` failed
because the package restore was blocked (NU1301 for the package feed); after an escalated
``dotnet restore``, ``dotnet test tests\\T.csproj`` built every project ("Build succeeded") and
passed, yet §4 said "Not fixed": a failed build counted as fixed only by another ``build``.

A later successful command **fixes** a failed one when, judged by shape:

* it runs the same tool (``dotnet``, ``cargo``, ``go``, ``mvn``, a JavaScript build) and its
  stage includes the failed one (``test``/``run``/``publish`` build first; ``mvn package`` runs
  ``compile`` and ``test``; ``next build`` is a build; a build script whose output shows
  ``> … tsc`` runs ``tsc``), and
* on the same project (the same paths named, in the same directory), or on none: the whole;
  a success on a different project does not count;
* or the failure was a blocked restore or network fetch (NU1301, "Could not resolve host", …),
  a restore of the same tool succeeded after it, and then a command of the same tool whose stage
  includes the failed one succeeded, on any project.
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern
from compactor.facts import Call, Outcome, command_of, scan_window, shell_words

from .local_records import ErrorFact
from .local_workdir import same_place

__all__ = ["Stages"]

Step = tuple[str, frozenset[str], tuple[str, ...]]
"""(tool, the stages the command runs, the projects it names)."""

_INCLUDES: dict[str, dict[str, frozenset[str]]] = {
    "dotnet": {
        "build": frozenset({"build"}),
        "test": frozenset({"build", "test"}),
        "run": frozenset({"build", "run"}),
        "publish": frozenset({"build", "publish"}),
        "pack": frozenset({"build", "pack"}),
    },
    "cargo": {
        "check": frozenset({"check"}),
        "build": frozenset({"check", "build"}),
        "test": frozenset({"check", "build", "test"}),
        "run": frozenset({"check", "build", "run"}),
        "clippy": frozenset({"check", "clippy"}),
    },
    "go": {
        "build": frozenset({"build"}),
        "test": frozenset({"build", "test"}),
        "run": frozenset({"build", "run"}),
        "install": frozenset({"build", "install"}),
    },
}
_MAVEN_PHASES = ("compile", "test", "package", "verify", "install", "deploy")
_JS_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_JS_BUILDERS = frozenset({"next", "vite", "tsc", "webpack", "turbo", "nuxt", "astro"})
_SCRIPT_TSC_RE = lazy_pattern(r"^[>$] .*\btsc\b", re.MULTILINE)
"""npm/pnpm (``> tsc -b && vite build``) and yarn (``$ tsc -b …``) print the script they run."""
_RESTORES: dict[str, tuple[str, ...]] = {
    "dotnet": ("restore",),
    "cargo": ("fetch", "update", "generate-lockfile"),
    "go": ("mod download", "mod tidy", "get"),
    "mvn": ("dependency:resolve", "dependency:go-offline"),
    "js": ("install", "i", "ci", "add"),
}
_BLOCKED_WORDS = tuple(
    w.lower()
    for w in (
        *"NU1301 NU1101 ENOTFOUND EAI_AGAIN ECONNREFUSED ETIMEDOUT getaddrinfo".split(),
        *[
            "proxyconnect",
            "Unable to load the service index",
            "Could not resolve host",
            "Temporary failure in name resolution",
            "network is unreachable",
            "Could not transfer artifact",
            "dial tcp",
            "failed to download",
            "failed to fetch",
            "failed to get",
            "NETSDK1004",  # --no-restore after a restore that never ran
            "Run a NuGet package restore",
        ],
    )
)
"""What a failure blocked by the network (or by a restore that never ran) says, in any case:
looked for as plain substrings of the lower-cased output (a case-insensitive alternation
without a literal prefix cost 0.7 s on the 50 MB bench transcript's 1,236 failures)."""
_PROJECT_RE = lazy_pattern(r"[\\/]|\.(?:sln|slnx|csproj|fsproj|vbproj|toml|json)$|^\./")


@functools.lru_cache(maxsize=1024)
def _steps(command: str) -> tuple[Step, ...]:
    """The build steps of a command's ``&&``/``;``-joined parts (read once per command: each
    success is compared with the open failures, and agents repeat their commands)."""
    out: list[Step] = []
    for part in re.split(r"&&|\|\||;", command):
        words = shell_words(part.strip()) if part.strip() else []
        if words[:2] == ["pnpm", "exec"]:
            words = words[2:]
        elif len(words) >= 2 and words[0] in ("npx", "pnpx", "bunx"):
            words = words[1:]
        if not words:
            continue
        prog = words[0].replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")
        args = [w for w in words[1:] if not w.startswith("-")]
        if prog in _INCLUDES and args and args[0] in _INCLUDES[prog]:
            projects = tuple(a for a in args[1:] if _PROJECT_RE.search(a))
            out.append((prog, _INCLUDES[prog][args[0]], projects))
        elif prog in ("mvn", "mvnw", "./mvnw"):
            phases = [_MAVEN_PHASES.index(a) for a in args if a in _MAVEN_PHASES]
            if phases:
                out.append(("mvn", frozenset(_MAVEN_PHASES[: max(phases) + 1]), ()))
        elif prog in _JS_RUNNERS and args[-1:] == ["build"] and len(args) <= 2:
            out.append(("js", frozenset({"build"}), ()))
        elif prog in _JS_BUILDERS and (prog == "tsc" or args[:1] == ["build"]):
            out.append(("js", frozenset({prog if prog == "tsc" else "build"}), ()))
    return tuple(out)


def _restores(command: str) -> set[str]:
    """The tools whose dependencies a command restores (``dotnet restore``, ``npm ci``)."""
    found: set[str] = set()
    for part in re.split(r"&&|\|\||;", command):
        words = [w for w in shell_words(part.strip()) if not w.startswith("-")] if part else []
        if len(words) < 2:
            continue
        prog = words[0].replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")
        tool = "js" if prog in _JS_RUNNERS else prog
        if any(" ".join(words[1:]).startswith(r) for r in _RESTORES.get(tool, ())):
            found.add(tool)
    return found


@functools.lru_cache(maxsize=4096)
def _command(sig: tuple[str, str, frozenset[str]]) -> str:
    """The command a shell call's signature holds (read once per signature: every success is
    compared with each open failure)."""
    return next((t[2:] for t in sig[2] if t.startswith("$ ")), "")


class Stages:
    """The restores that succeeded, and whether a later success fixes a failed build."""

    __slots__ = ("blocked", "restored")

    def __init__(self) -> None:
        self.restored: dict[str, int] = {}
        """The entry index of each tool's latest successful restore."""
        self.blocked: set[int] = set()
        """The entry indexes of failures whose output says a restore or fetch was blocked."""

    def seen(self, oc: Outcome, call: Call, text: str, index: int) -> Outcome:
        """Any result's outcome, passed through; a failed build (the only failure a later
        restore can excuse) blocked by the network is noted."""
        if oc.failed and (command := command_of(call)) is not None and _steps(command):
            low = scan_window(text).lower()
            if any(w in low for w in _BLOCKED_WORDS):
                self.blocked.add(index)
        return oc

    def note(self, sig: tuple[str, str, frozenset[str]], index: int) -> None:
        """A successful call: the restores it ran."""
        if sig[0] == "shell" and any(r in sig[1] for r in ("restore", "install", "fetch", "ci")):
            for tool in _restores(_command(sig)):
                self.restored[tool] = index

    def fixes(self, err: ErrorFact, sig: tuple[str, str, frozenset[str]], text: str) -> bool:
        """Whether a later successful call (``sig``, its output ``text``) did the failed one's
        job (module doc)."""
        if sig[0] != "shell" or err.signature[0] != "shell":
            return False
        failed = _steps(_command(err.signature))
        if not failed or not same_place(err.signature[2], sig[2]):
            return False
        later = list(_steps(_command(sig)))
        if not later:
            return False
        if any(t == "js" and "build" in s for t, s, _ in later) and _SCRIPT_TSC_RE.search(text):
            later.append(("js", frozenset({"tsc"}), ()))
        blocked = err.index in self.blocked
        for tool, stages, projects in failed:
            restored = self.restored.get(tool, -1) > err.index and blocked
            for t, s, p in later:
                if t == tool and stages <= s and (restored or not p or p == projects):
                    return True
        return False

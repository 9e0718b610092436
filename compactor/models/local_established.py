"""What a successful command established beyond its printed lines, and which outputs only
displayed a document (blind check 27, N2 and N6).

cx-eldorado: ``npm install -g chrome-mcp`` "added 101 packages", exit 0, yet the summary named
the install nowhere: its output holds no line the "What commands printed" list ranks as a result
(``added 101 packages in 4s`` is no test count or metric), while README text that a wrapped
``sed -n 1,200p README.md`` displayed filled the list. :func:`installed` turns a successful
install of named packages (npm/pnpm/yarn/bun, pip/uv/pipx, brew, cargo, apt/dnf/yum/apk, gem)
into one line, with each package's version where the output prints it; :func:`shows_document`
finds a command that displays a document (``cat``/``sed``/``head`` of a ``.md``, ``.rst``,
``README``…), whose lines are the document's, not what the command established.
:func:`matched_none` says what exit code 1 of ``pkill``/``pgrep`` established (cc-ying-quant:
``pkill -9 -f …`` exit 1 was listed as a failure): no process matched, so none was running.
:func:`test_tally` sums a test run's ``test result:`` sections (cx-tf: ``cargo test`` printed
72 unit, 8 integration and 3 doc-tests; the summary kept "3 passed", the last section, only).
:func:`established` is the one place the session asks for any of these.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, exit_code, one_line
from compactor.facts.commands import exit_one_program
from compactor.facts.wenton import install_report

__all__ = ["established", "installed", "matched_none", "shows_document", "test_tally"]

_INSTALL_RE = lazy_pattern(
    r"(?:^|[\s;&|(`'\"])(?:sudo\s+(?:-\S+\s+)*)?(?:"
    r"(?P<js>npm|pnpm|yarn|bun)\s+(?:-\S+\s+)*(?:install|i|add|global\s+add)"
    r"|(?P<py>(?:python3?(?:\.\d+)?\s+-m\s+)?pip3?(?:\.\d+)?|uv\s+pip|pipx|uv\s+tool)"
    r"\s+(?:-\S+\s+)*install"
    r"|(?P<brew>brew)\s+(?:install|reinstall|upgrade)"
    r"|(?P<cargo>cargo)\s+(?:\+\S+\s+)?install"
    r"|(?P<os>apt-get|apt|dnf|yum|zypper|apk)\s+(?:-\S+\s+)*(?:install|add)"
    r"|(?P<gem>gem)\s+install"
    r")(?![\w-])(?P<rest>[^\n;&|)`]*)",
)
"""An install of packages (its arguments in ``rest``: the package names and options)."""
_PACKAGE_RE = lazy_pattern(r"^@?[A-Za-z0-9][\w.\-+/]*(?:@[\w.\-^~<>=*]+)?(?:[=<>~!]=?[\w.*]+)?$")
_OPTION_VALUE = frozenset(
    "-r --requirement -c --constraint -e --editable -t --target -i --index-url --prefix --root "
    "-C --cwd --registry --extra-index-url -f --find-links --path --git --branch --tag "
    "--rev".split()
)
"""Options whose next word is their value, not a package."""
_MOST_PACKAGES = 4
_DONE_RE = lazy_pattern(
    r"^\s*(?:Successfully installed \S.*|(?:added|changed) \d+ packages?\b.*|up to date\b.*"
    r"|\+ @?[\w.\-/]+(?:@|==| )v?\d\S*|success Installed .+|installed @?\S+@\d\S*.*"
    r"|(?:Installed|Replaced) package `[^`]+`.*|\S+ v?\d\S* is already installed.*"
    r"|Installed \d+ packages? in .+|Resolved \d+ packages? in .+"
    r"|(?:🍺|==> Pouring|==> Installing)\s+\S.*|Warning: \S+ \d\S* is already installed.*"
    r"|Setting up \S+ \([^)]+\).*|\S+ is already the newest version \([^)]+\).*"
    r"|Requirement already satisfied: [^(\s]+(?: in \S+)?(?: \([^)]+\))?"
    r"|(?:installed|upgraded|reinstalled) package \S+.*|Complete!)\s*$",
    re.MULTILINE,
)
"""A line by which a package manager says it installed (or already had) what it was asked."""
_DOCUMENT_RE = lazy_pattern(
    r"(?:^|[\s;&|(`'\"])(?:cat|bat|batcat|less|more|head|tail|sed|nl|type|Get-Content|gc)\b"
    r"[^\n;&|]*?(?<![\w.-])(?-i:README|CHANGELOG|CONTRIBUTING|LICENSE)\b"
    r"|(?:^|[\s;&|(`'\"])(?:cat|bat|batcat|less|more|head|tail|sed|nl|type|Get-Content|gc)\b"
    r"[^\n;&|]*?\.(?:md|markdown|mdx|rst|adoc)\b",
    re.IGNORECASE,
)


def _packages(rest: str) -> list[str]:
    """The package names among an install's arguments (options and their values aside)."""
    out: list[str] = []
    skip = False
    for word in rest.split():
        word = word.strip("'\"")
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in _OPTION_VALUE
            continue
        if _PACKAGE_RE.match(word) and not word.endswith((".txt", ".toml", ".cfg", ".lock")):
            out.append(word)
    return out


def installed(command: str | None, text: str) -> str:
    """What a successful install of named packages established, on one line (``installed
    chrome-mcp: added 101 packages in 4s``; the manager's own lines name the versions it
    printed), or '' when ``command`` installs no named package or its output does not say it
    installed (or already had) them."""
    if not command or not any(w in command for w in ("install", " add", " i ")):
        return ""
    found = _INSTALL_RE.search(command)
    if found is None:
        return ""
    names = _packages(found.group("rest"))
    if not names or not text:
        return ""
    done = [m.group(0).strip() for m in _DONE_RE.finditer(text[-20_000:])]
    if not done:
        return ""
    bare = [re.split(r"[@=<>~!\[]", n.lstrip("@"), maxsplit=1)[0].lower() for n in names]
    named = list(dict.fromkeys(ln for ln in done if any(b and b in ln.lower() for b in bare)))
    report = " | ".join(named[:3] or list(dict.fromkeys(done))[-3:])  # npm: "added 101 …"
    if named and "nstall" in report:  # its own words say so ("Successfully installed rich-1.0")
        return cut(one_line(report), 240)
    shown = ", ".join(names[:_MOST_PACKAGES]) + (" …" if len(names) > _MOST_PACKAGES else "")
    return f"installed {shown}: {cut(one_line(report), 240)}"


def shows_document(command: str | None) -> bool:
    """Whether ``command`` displays a document (``cat``/``sed``/``head`` of a README, a
    ``.md``/``.rst`` file; not a ``.txt``, often a log): its output lines are the document's,
    not results."""
    return bool(command) and _DOCUMENT_RE.search(command or "") is not None


def matched_none(call: Call, text: str) -> str:
    """``no process matched (exit 1, not a failure)`` for a ``pkill``/``pgrep`` that exited 1
    (not counted as failed: :func:`~compactor.facts.outcome`); else ''."""
    if exit_one_program(call) not in ("pkill", "pgrep") or exit_code(text) != 1:
        return ""
    return "no process matched (exit 1, not a failure)"


_TALLY_RE = lazy_pattern(
    r"^\s*(?:Running (?P<target>\S+(?: \S+)?) \(|Doc-tests (?P<doc>\S+))"
    r"|^test result: (?P<verdict>ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed;"
    r"(?: (?P<ignored>\d+) ignored;)?",
    re.MULTILINE,
)
"""A libtest target's header (``Running unittests src/lib.rs (…)``, ``Doc-tests x``) or its
``test result:`` line."""


def test_tally(text: str) -> str:
    """One line for a test run whose output has two ``test result:`` sections or more (cargo:
    one per target): the sums, ``ok`` only when every section is, and each target's count
    (``test result: ok. 83 passed; 0 failed; 0 ignored in 3 targets (unittests src/lib.rs: 72
    passed, …)``); '' for any other output."""
    if text.count("test result: ") < 2:
        return ""
    target, parts, sums, ok = "", [], [0, 0, 0], True
    for m in _TALLY_RE.finditer(text):
        if m.group("verdict") is None:
            target = m.group("target") or ("Doc-tests " + m.group("doc"))
            continue
        counts = [int(m.group("passed")), int(m.group("failed")), int(m.group("ignored") or 0)]
        sums = [a + b for a, b in zip(sums, counts, strict=True)]
        ok = ok and m.group("verdict") == "ok"
        failed = f", {counts[1]} failed" if counts[1] else ""
        parts.append(f"{target + ': ' if target else ''}{counts[0]} passed{failed}")
        target = ""
    if len(parts) < 2:
        return ""
    verdict = "ok" if ok else "FAILED"
    return (
        f"test result: {verdict}. {sums[0]} passed; {sums[1]} failed; {sums[2]} ignored "
        f"in {len(parts)} targets ({', '.join(parts)})"
    )


def established(call: Call, text: str) -> tuple[int, str] | None:
    """(score, line) of what a successful call established that its printed lines do not say
    on their own: pip's conflicts after an install (blind check 20), an install, a test run's
    every section, a ``pkill`` that matched nothing (blind check 27); None for other results."""
    if got := install_report(text) or installed(call.command, text) or test_tally(text):
        return 2, got
    if none := matched_none(call, text):
        return 1, none
    return None

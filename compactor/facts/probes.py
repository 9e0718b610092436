"""Probes whose non-zero exit is their answer, not a failure (blind check 45, W7).

cc-ordinal §7: "Unresolved failure: Bash: git ls-files --error-unmatch tests/x.py 2>&1": that
exit 1 ("did not match any file(s) known to git") answered the agent's question, is the file
tracked; §4 of the same summary already called the follow-up "A fact it established". A command
whose last step is such a probe (``git ls-files --error-unmatch``, ``git rev-parse --verify``,
``git show-ref --verify``, ``git cat-file -e``, ``git diff --quiet``, ``command -v``, ``which``,
``type -p``, ``test -e``) and whose output is only the probe's own "no such …" answer (or
nothing) exited with its answer: :func:`answered_exit` says so, beside
:func:`~compactor.facts.bounded.expected_exit`'s time-boxed and partly blocked searches.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .bounded import expected_exit

__all__ = ["answered_exit", "probe_answered", "ssh_key_works"]

_SEGMENT_RE = re.compile(r"\|\||&&|[|;\n]")
_REDIRECT_RE = lazy_pattern(r"\s*\d?>>?\s*(?:&\d|/dev/null)")
_PROBE_RE = lazy_pattern(
    r"^(?:sudo\s+)?(?:(?P<git>git(?:\s+-C\s+\S+)?\s+(?:ls-files\b.*\s--error-unmatch\b|"
    r"rev-parse\b.*\s--verify\b|show-ref\b.*\s--(?:verify|exists)\b|cat-file\s+-e\b|"
    r"diff(?:-index|-files)?\b.*\s--(?:quiet|exit-code)\b))|command\s+-v\b|which\s|type\s+-p\b|"
    r"test\s+-[a-z]\b|\[\s+-[a-z]\s)"
)
"""A probe: a command run to learn yes or no, whose exit 1 (128 for git's) is "no"."""
_ANSWER_RE = lazy_pattern(
    r"did not match any file|did you forget to 'git add'|needed a single revision|"
    r"not a valid (?:ref|object)|unknown revision|ambiguous argument|^which: no |"
    r"^\S+ not found$|^exit code \d+$",
    re.IGNORECASE,
)
"""A probe's own "no" ("error: pathspec 'x' did not match any file(s) known to git"), or the
harness's exit line."""


def probe_answered(code: int | None, body: str, command: str | None) -> bool:
    """Whether ``command``'s last step is a probe whose exit ``code`` (1; 128 for git's) is its
    answer: every line it printed is the probe's "no such …" (or it printed nothing)."""
    if code not in (1, 128) or not command or len(command) > 2_000:
        return False
    segments = [x.strip() for x in _SEGMENT_RE.split(command) if x.strip()]
    found = _PROBE_RE.match(_REDIRECT_RE.sub("", segments[-1])) if segments else None
    if found is None or (code == 128 and not found.group("git")):
        return False
    return all(_ANSWER_RE.search(x.strip()) for x in body.splitlines() if x.strip())


_SSH_TEST_RE = lazy_pattern(r"^(?:sudo\s+)?ssh\b(?=.*\s-[A-Za-z]*T)(?=.*\bgit@[\w.\-]+)")
"""``ssh -T git@HOST``: a test of an SSH key on a git host, which allows no shell."""
_AUTHENTICATED_RE = lazy_pattern(
    r"successfully authenticated|welcome to gitlab|authenticated via ssh key", re.IGNORECASE
)


def ssh_key_works(code: int | None, body: str, command: str | None) -> bool:
    """Whether ``command``'s last step is ``ssh -T git@HOST`` and the host said the key
    authenticated: its exit 1 is the host refusing a shell, the test passed (blind check 67
    W1: GitHub's "You've successfully authenticated, but GitHub does not provide shell access"
    was listed as a failure)."""
    if code not in (None, 1) or not command or len(command) > 2_000:
        return False
    segments = [x.strip() for x in _SEGMENT_RE.split(command) if x.strip()]
    if not segments or _SSH_TEST_RE.match(segments[-1]) is None:
        return False
    return _AUTHENTICATED_RE.search(body) is not None


def answered_exit(code: int | None, lines: list[str], body: str, command: str | None) -> bool:
    """:func:`~compactor.facts.bounded.expected_exit`, a probe's answer
    (:func:`probe_answered`) or a git host's ``ssh -T`` greeting (:func:`ssh_key_works`): a
    non-zero exit that is no failure by itself."""
    return (
        expected_exit(code, lines, body, command)
        or probe_answered(code, body, command)
        or ssh_key_works(code, body, command)
    )

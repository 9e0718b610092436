"""The rule sentences of a user message that are the user's own, not a pasted error's (moved out
of :mod:`.local_views`, at the 650-line limit).

Row 244: in a message of at least :data:`PASTE_LINES` lines that holds error lines (a pasted
log, a browser's error page), a sentence within :data:`PASTE_REACH` lines of one is the paste's.

Blind check 37 (W4), cx-jenga: "Relative references must start with either "/", "./", or
"../"." was listed among the user's constraints; it was the end of a browser error the user
pasted (``Uncaught TypeError: Failed to resolve module specifier "firebase/firestore".
Relative references must start with …``) in a short message, where row 244's rule does not
look. So, in a message of any length, a sentence is the paste's when it stands on a line that
looks like tool output, after where the output starts:

* an error head — ``Uncaught TypeError:``, ``SomethingError:``/``…Exception:`` (with a console
  prefix such as ``index.html:1`` before it), ``Error:``, a compiler's ``error[E0382]:`` at the
  line's start — and the rest of its line, and the lines right after it (no blank line
  between) that continue its message: a line with a word the user addresses to the agent
  ("I", "you", "please", "never", "always", "make sure", "should", "use", "keep" …) is the
  user's again, and so is every line after it (a doubt keeps the line the user's, as before);
* a stack frame (``at fn (file:12:5)``, ``at file:12``) and a log line opening with a level
  tag (``[ERROR]``, ``[WARN]``).

* a build or deploy banner (``Build Failed``, alone on its line or after a paste's opening
  quote) and the lines right after it, though they say "Make sure your …" (blind check 68 N7):
  only first person, an ask or a prohibition ("I", "please", "can you", "never") makes a line
  the user's again, and a quoted paste ends at its closing quote;
* npm's ``npm ERR!`` lines and a log line opening with its time (``[12:04:31.220] …``).

The user's words before the error on its line ("it says Error: …" — the sentence that starts
before the head) and every other line stay the user's.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import error_lines, instructions

from .local_rules import conditioned

__all__ = ["PASTE_LINES", "PASTE_REACH", "own_sentences", "pasted_at"]

PASTE_LINES = 8
PASTE_REACH = 6

_HEAD_RE = lazy_pattern(
    r"(?:Uncaught\s+(?:\(in promise\)\s+)?)?"
    r"(?:\b[A-Z]\w*(?:Error|Exception)|\bError|\bException|\bUncaught)(?:\s*\[[\w-]+\])?:\s"
)
"""Where a pasted error's text starts on its line (a word start, then one word: linear)."""
_LOWER_HEAD_RE = lazy_pattern(r"\s*(?:error|fatal)(?:\[\w+\])?:\s")
"""A compiler's lower-case error line (``error[E0382]: …``, ``error: …``), at a line's start."""
_CONSOLE_RE = lazy_pattern(r"[\w./\\-]+\.\w{1,5}:\d+(?::\d+)?")
"""A browser console's source prefix before the error (``index.html:1``, ``app.js:12:5``)."""
_OUTPUT_LINE_RE = lazy_pattern(
    r"\s*(?:at\s+(?:\S+\s+\()?[^\s()]+:\d+(?::\d+)?\)?\s*$|\[(?:ERROR|WARN(?:ING)?|FATAL|SEVERE)\]"
    r"|npm (?:ERR!|error|warn)\s|\[?(?:\d{4}-\d\d-\d\d[T ])?\d\d:\d\d:\d\d(?:[.,]\d+)?Z?\]?\s)"
)
"""A whole line of tool output: a stack frame, a log line opening with its level tag, npm's
``npm ERR!``/``npm error`` lines, a log line opening with its time (``[12:04:31.220] Running
build``, ``2025-06-27T12:37:02 …``: blind check 68 N7)."""
_OWN_RE = lazy_pattern(
    r"\b(?:I|I'm|I've|my|me|we|our|us|please|pls|plz|you|your|let's|lets|don't|do not|never|"
    r"always|make sure|should|want|need|so|also|instead|use|keep|fix|avoid|stick)\b",
    re.IGNORECASE,
)
"""Words of a line the user addresses to the agent: never the wrapped rest of an error."""


def pasted_at(text: str) -> list[tuple[int, int]]:
    """(start, end) positions of ``text`` that are pasted output (see the module docstring)."""
    banner = _might_banner(text)
    if ":" not in text and "[" not in text and "npm " not in text and not banner:
        return []  # every pasted head, frame and tag holds one (a plain-substring prefilter)
    spans: list[tuple[int, int]] = []
    wrapped: re.Pattern[str] | None = None  # the line before is an error's text: this one
    pos, closer = 0, ""  # may continue it, unless it has the user's words (this pattern finds
    for line in text.splitlines(keepends=True):  # them); a quoted paste ends at its ``closer``
        end = pos + len(line)
        if wrapped is not None and closer and (at := _closing(line, closer)) >= 0:
            spans.append((pos, pos + at))  # ``…file."とでたのですが``: the user's words after it
            wrapped, closer = None, ""
        elif _OUTPUT_LINE_RE.match(line) is not None:
            spans.append((pos, end))  # a frame ends the message: what follows is not its text
            wrapped = None
        elif (start := _head(line)) >= 0:
            spans.append((pos + start, end))
            wrapped = _OWN_RE
        elif banner and (m := _BANNER_RE.search(line)) is not None:
            spans.append((pos + m.start(1), end))  # ``Build Failed``: what follows is its text
            wrapped, closer = _ASKS_RE, _CLOSERS.get(m.group(0).lstrip()[:1], "")
        elif wrapped is not None and line.strip() and wrapped.search(line) is None:
            spans.append((pos, end))  # the wrapped rest of an error's message
        else:
            wrapped = None
        pos = end
    return spans


_BANNER_RE = lazy_pattern(
    r"(?:^|[\"'“「])[ \t]*((?:[A-Z][\w.-]*[ \t]+){0,3}(?:[Ff]ailed|FAILED|[Ee]rrors?|ERRORS?|"
    r"[Ff]ailure|FAILURE)[.!]?)[ \t]*\r?$",
    re.MULTILINE,
)
"""A build or deploy banner a tool prints above its message, alone on its line or after the
quote that opens a paste (``Build Failed``, ``Deployment failed``, ``Compilation Error``): the
lines right after it are the tool's message, though it says "Make sure your package.json …"
(blind check 68 N7, a Vercel error pasted as the user's message)."""
_ASKS_RE = lazy_pattern(
    r"\b(?:I|I'm|I've|I'd|my|me|we|our|us|please|pls|plz|can you|could you|would you|let's|"
    r"don't|do not|never|always|instead)\b|[^\x00-\x7f]",
    re.IGNORECASE,
)
"""What marks a line after a banner as the user's again: first person, an ask, a prohibition,
or words in another script (the user's own language around an English paste). A tool's "Make
sure your …", "Also check your …" are the message's."""


_CLOSERS = {'"': '"', "'": "'", "“": "”", "「": "」"}
"""The quote that ends a paste a banner opened with its opening quote."""


def _closing(line: str, closer: str) -> int:
    """Where the quote ``closer`` that ends a paste closes on ``line`` (after it: only the
    user's words, no more letters of the paste's script); -1 when it does not there."""
    at = line.rfind(closer)
    if at < 0 or not any(not ch.isascii() for ch in line[at + 1 :]):
        return -1
    return at + 1


def _might_banner(text: str) -> bool:
    """Whether ``text`` may hold a banner (a plain-substring prefilter for :data:`_BANNER_RE`)."""
    return any(w in text for w in ("ailed", "AILED", "rror", "RROR", "ailure", "AILURE"))


def _head(line: str) -> int:
    """Where a pasted error starts on ``line`` (its console prefix included); -1 for none."""
    if _LOWER_HEAD_RE.match(line) is not None:
        return 0
    if "rror" not in line and "xception" not in line and "Uncaught" not in line:
        return -1  # (a plain-substring prefilter before the regex)
    head = _HEAD_RE.search(line)
    if head is None:
        return -1
    before = line[: head.start()]
    return 0 if _CONSOLE_RE.fullmatch(before.strip()) is not None else head.start()


def own_sentences(text: str) -> list[str]:
    """The rule sentences of a user message, without those of pasted output: a sentence within
    an error's span (:func:`pasted_at`), and in a message of at least :data:`PASTE_LINES` lines
    that holds error lines, a sentence within :data:`PASTE_REACH` lines of one (``URL scheme
    must be "http" or "https" for CORS request.`` under ``Failed to fetch.``). A line that ends
    with a colon (``CRITICAL:``) is the user's own heading, not an error."""
    found = conditioned(text, instructions(text))  # with its line's condition (check 35 W6)
    if found and (spans := pasted_at(text)):
        found = [(pos, x) for pos, x in found if not any(a <= pos < b for a, b in spans)]
    if not found or text.count("\n") < PASTE_LINES:
        return [x for _, x in found]
    errors = [text.count("\n", 0, pos) for pos, x in error_lines(text) if not x.endswith(":")]
    return [
        x for pos, x in found
        if all(abs(text.count("\n", 0, pos) - line) > PASTE_REACH for line in errors)
    ]  # fmt: skip

"""Durable context of an agent session: what must survive a compaction word for word
(issue 28, point 4).

* :func:`instruction_files` — instruction files the agent CLI injected: Codex's ``# AGENTS.md
  instructions for PATH`` + ``<INSTRUCTIONS>`` blocks and older ``<user_instructions>`` blocks,
  Claude Code's ``Contents of PATH (… instructions …):`` sections of a ``claudeMd``
  ``<system-reminder>``. The newest text per file, in order.
* :func:`skill_reads` — skills an agent loaded by reading their ``SKILL.md`` with a shell
  command (Codex: ``sed -n '1,260p' ~/.codex/skills/NAME/SKILL.md``); Claude Code's ``Skill``
  tool is :func:`compactor.pipeline.skills.find_skills`'s.
* :func:`latest_plan` — the agent's latest plan or todo list (``TodoWrite``, ``update_plan``),
  every item with its status.
* :func:`is_earlier_summary` / :func:`earlier_summary_view` — a user-role message that is an
  earlier compaction's summary (recognised by shape), and its facts without its stale state
  sections and closing instructions, bounded.

Each returns ``(name, text)`` pairs; the finalizer renders them within PreserveSkills' budgets.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import command_of
from .fences import cut_middle
from .outcomes import strip_output_header
from .templates import bounded_template, input_slot
from .text import Entry, one_line, sentence_spans

__all__ = [
    "bounded_paste",
    "bounded_user_message",
    "earlier_summary_view",
    "earlier_user_messages",
    "embedded_rules",
    "instruction_files",
    "is_earlier_summary",
    "latest_plan",
    "rules_name",
    "skill_reads",
]

_AGENTS_RE = lazy_pattern(  # (Codex Desktop writes no "for <dir>": blind check 23, G2)
    r"# AGENTS\.md instructions(?: for ([^\n]+))?[ \t]*\n+<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>",
    re.DOTALL,
)
_USER_INSTRUCTIONS_RE = lazy_pattern(
    r"<user_instructions>\n?(.*?)\n?</user_instructions>", re.DOTALL
)
_CLAUDE_MD_RE = lazy_pattern(
    r"^Contents of (\S+) \([^)\n]*instructions[^)\n]*\):\n\n(.*?)"
    r"(?=\n\nContents of \S+ \(|\n*</system-reminder>|\n# currentDate\n|"
    r"\n+\s*IMPORTANT: this context|\Z)",
    re.DOTALL | re.MULTILINE,
)
_SKILL_FILE_RE = lazy_pattern(r"(\S*/([\w.\-]+)/SKILL\.md)\b")
_INNER_COMMAND_RE = lazy_pattern(r'"(?:cmd|command)"\s*:\s*"((?:[^"\\]|\\.){1,2000})"')
_READERS = ("cat ", "sed ", "head ", "nl ", "Get-Content ", "type ", "bat ")
_PLAN_KEYS = (("TodoWrite", "todos", "content"), ("todo_write", "todos", "content"),
              ("update_plan", "plan", "step"))  # fmt: skip


RULES_MIN = 2_000
"""A user message longer than this may embed rules (guidelines pasted before the request)."""
_RULE_MARK_RE = lazy_pattern(r"^(?:#{1,6} \S[^\n]*|<!--[^\n]*-->|</?[A-Za-z_][\w-]*>)[ \t]*$", re.M)
"""A line that structures a rules text: a Markdown heading, an HTML comment marker, a tag."""
_REQUEST_MAX = 3_000
_ORDER_WORD_RE = lazy_pattern(
    r"\b(?:always|never|must|should|do not|don't|avoid|forbidden|required|prefer|only)\b", re.I
)
"""Words that give orders: rules hold at least 3 per 1,000 characters (guidelines ~5, a pasted
session summary or report under 1.6)."""


def embedded_rules(text: str) -> tuple[str, str] | None:
    """``(rules, request)`` when a user message embeds a long rules text (project guidelines,
    AGENTS.md-like, over :data:`RULES_MIN` characters with headings or markers) before its
    request: the request is what follows the last heading/marker line; else None."""
    if len(text) <= RULES_MIN or ("\n#" not in text and "<!--" not in text and "\n</" not in text):
        return None
    marks = list(_RULE_MARK_RE.finditer(text))
    if len(marks) < 2 or input_slot(text):  # a command template: its request is its input slot
        return None
    end = marks[-1].end()
    rules, request = text[:end].strip(), text[end:].strip()
    if len(rules) <= RULES_MIN or not 20 <= len(request) <= min(_REQUEST_MAX, len(rules)):
        return None
    orders = len(_ORDER_WORD_RE.findall(rules))  # rules order; a pasted report or log does not
    return (rules, request) if orders >= 10 and orders * 1_000 >= 3 * len(rules) else None


def rules_name(rules: str) -> str:
    """How the summary refers to embedded rules: their first heading, else their first line."""
    head = next(
        (m.group(0) for m in _RULE_MARK_RE.finditer(rules[:4_000]) if "#" in m.group(0)), ""
    )
    first = head or next((ln for ln in rules.splitlines() if ln.strip()), "rules")
    return one_line(first.lstrip("# "))[:80]


def instruction_files(entries: list[Entry]) -> list[tuple[str, str]]:
    """(file, text) of every instruction file injected, the newest text per file, in the
    order of their last injection."""
    found: dict[str, str] = {}
    for e in entries:
        if e.role not in ("user", "system") or e.internal or not e.text:
            continue
        text = e.text
        if "AGENTS.md instructions" in text:
            for path, body in _AGENTS_RE.findall(text):
                name = f"AGENTS.md for {path.strip()}" if path.strip() else "AGENTS.md"
                found.pop(name, None)
                found[name] = body.strip()
        if "<user_instructions>" in text:
            for body in _USER_INSTRUCTIONS_RE.findall(text):
                found.pop("user instructions", None)
                found["user instructions"] = body.strip()
        if "Contents of " in text and "instructions" in text:
            for path, body in _CLAUDE_MD_RE.findall(text):
                found.pop(path, None)
                found[path] = body.strip()
        if e.role == "user" and not e.injected and (split := embedded_rules(text)) is not None:
            rules = split[0]  # printed once, unless an injected file already holds them
            if not any(rules[:300] in body for body in found.values()):
                found[f"rules in the user's message ({rules_name(rules)})"] = rules
    return [(name, body) for name, body in found.items() if body]


def skill_reads(entries: list[Entry]) -> list[tuple[str, str]]:
    """(skill, text) of every ``SKILL.md`` a shell command printed whole (a ``cat``/``sed``/
    ``head`` of that one file, no failure), the newest per skill, in order."""
    calls: dict[str, tuple[str, str | None]] = {}
    found: dict[str, str] = {}
    for e in entries:
        for call in e.calls:
            if "SKILL.md" not in call.arguments:
                continue
            command = command_of(call)
            inner = _INNER_COMMAND_RE.search(call.arguments) if command is None else None
            if inner is not None:  # code that runs a command (Codex code-mode ``exec``)
                command = inner.group(1).replace('\\"', '"')
            if command is None or "SKILL.md" not in command:
                continue
            files = _SKILL_FILE_RE.findall(command)
            first, *rest = _SEGMENT_RE.split(command.strip())
            marker = _marker(rest)
            if len({f for f, _ in _SKILL_FILE_RE.findall(first)}) == 1 and (
                first.startswith(_READERS) and marker is not None
            ):
                calls[call.id] = (files[0][1], marker)
        for r in e.results:
            name, marker = calls.pop(r.call_id, ("", None))
            if not name or r.is_error:
                continue
            body = strip_output_header(r.text).strip()
            if body.startswith(("Script completed", "Wall time")):
                body = body.split("Output:", 1)[-1].strip()
            if marker:
                body = body.split(marker, 1)[0].strip() if marker in body else ""
            if body:
                found.pop(name, None)
                found[name] = body
    return list(found.items())


_SEGMENT_RE = lazy_pattern(r"\s*(?:&&|\|\||;|\n)\s*")
"""Where a shell command line chains another command (a pipe stays in its segment)."""
_PRINT_RE = lazy_pattern(r"""^(?:printf|echo)(?: -[en]+)? (['"])(.*?)\1""", re.DOTALL)


def _marker(rest: list[str]) -> str | None:
    """How to cut the SKILL.md part out of a command's output when the read is followed by
    ``rest``: "" (nothing follows: the whole output), the first line a ``printf``/``echo``
    right after the read prints (the output is cut before it), or None (the skill's text cannot
    be told apart from what the other commands printed: not a skill read)."""
    if not rest:
        return ""
    printed = _PRINT_RE.match(rest[0])
    if printed is None:
        return None
    lines = [ln.strip() for ln in re.split(r"\\+n|\n", printed.group(2)) if ln.strip()]
    return lines[0] if lines and len(lines[0]) >= 3 else None


def latest_plan(entries: list[Entry]) -> tuple[str, list[tuple[str, str]]] | None:
    """(tool, [(status, item)]) of the latest plan or todo list the agent wrote, or None."""
    for e in reversed(entries):
        for call in reversed(e.calls):
            for tool, key, field in _PLAN_KEYS:
                if call.name != tool:
                    continue
                items = call.args.get(key)
                if not isinstance(items, list):
                    continue
                plan = [
                    (str(item.get("status") or "pending"), item[field].strip())
                    for item in items
                    if isinstance(item, dict) and isinstance(item.get(field), str)
                ]
                if plan:
                    return tool, plan
    return None


# --------------------------------------------------------------------------------------------------
# Earlier summaries inside the transcript

_SUMMARY_OPENINGS = (
    "This session is being continued from a previous conversation",  # Claude Code
    "This session continues an earlier conversation",  # ours (prompts.PREAMBLE)
    "Another language model started to solve this problem",  # Codex's summary prefix
)
_SECTION_RE = lazy_pattern(
    r"^[ \t]*(?:#+[ \t]*)?\**(\d{1,2})\.[ \t]+\**([A-Z][A-Za-z /&-]{2,40}?)\**[ \t]*:?\**[ \t]*$",
    re.MULTILINE,
)
_STATE_TITLES = frozenset({"pending tasks", "current work", "optional next step", "next step"})
_CLOSING_RE = lazy_pattern(
    r"without asking the user any further questions|^\s*(?:please )?continue (?:the conversation|"
    r"with the last task)|^\s*resume directly|^\s*pick up the last task|"
    r"^\s*if you need (?:specific|exact) details from before",
    re.IGNORECASE,
)
_ANALYSIS_RE = lazy_pattern(r"<analysis>.*?</analysis>", re.DOTALL)
EARLIER_SUMMARY = "[an earlier summary of the conversation"


def is_earlier_summary(text: str) -> bool:
    """Whether a user-role text is an earlier compaction's summary: it opens as one (Claude
    Code's, Codex's or our own opening) or, whatever its opening, it has the numbered sections
    of one (``Primary Request and Intent`` and ``Pending Tasks`` or ``Current Work``)."""
    if text.lstrip()[:200].startswith(_SUMMARY_OPENINGS):
        return True
    if "Primary Request" not in text[:20_000]:
        return False
    titles = {m.group(2).strip().lower() for m in _SECTION_RE.finditer(text[:100_000])}
    return "primary request and intent" in titles and bool(titles & _STATE_TITLES)


_BOUNDARY_RE = lazy_pattern(r"[.!?;)](?=\s)|\s(?=- |\* )")


def earlier_user_messages(text: str, limit: int) -> str:
    """The user messages an earlier summary lists (its ``All user messages`` section), on one
    line, cut after a whole item within ``limit`` characters ("" when it lists none)."""
    heads = list(_SECTION_RE.finditer(text))
    for i, head in enumerate(heads):
        if head.group(2).strip().lower().endswith("user messages"):
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            body = " ".join(text[head.end() : end].replace("</summary>", " ").split())
            if len(body) > limit:
                ends = [m.end() for m in _BOUNDARY_RE.finditer(body, 0, limit)]
                body = body[: ends[-1] if ends else limit].rstrip() + " …"
            return f"[the user's messages, as an earlier summary lists them] {body}" if body else ""
    return ""


def earlier_summary_view(text: str, limit: int) -> str:
    """An earlier summary as its facts (requests, concepts and decisions, files, errors,
    problem solving, user messages: each numbered section on one line, all within ``limit``
    characters; its user messages first, each section cut after a whole sentence or item),
    without its analysis, its state sections (pending tasks, current work, next
    step: stale once later work happened) and its closing instructions."""
    body = _ANALYSIS_RE.sub("", text)
    lines = [ln for ln in body.splitlines() if _CLOSING_RE.search(ln) is None]
    body = "\n".join(lines)
    heads = list(_SECTION_RE.finditer(body))
    kept: list[tuple[str, str]] = []
    for i, head in enumerate(heads):
        title = head.group(2).strip()
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        content = " ".join(body[head.end() : end].replace("</summary>", " ").split())
        if title.lower() not in _STATE_TITLES and content:
            kept.append((f"{head.group(1)}. {title}:", content))
    kept.sort(key=lambda k: not k[0].lower().endswith(("user messages:", "requests:")))
    label = f"{EARLIER_SUMMARY}; its stale pending tasks, current work and next step left out]"
    if not kept:
        opening = " ".join(body.split())
        kept = [("", opening.split("Summary:", 1)[-1].strip())]
    room = max(limit - len(label), 200)
    parts: list[str] = []
    for n, (title, content) in enumerate(kept):
        share = room // (len(kept) - n)
        if n == 0 and title.lower().endswith(("user messages:", "requests:")):
            share = max(share, room // 2)  # the user's own words first: they outrank the rest
        piece = f"{title} {content}".strip()
        if len(piece) > share:  # cut after a whole sentence or list item, never inside one
            ends = [m.end() for m in _BOUNDARY_RE.finditer(piece, 0, max(share - 1, 0))]
            at = ends[-1] if ends and ends[-1] > share // 3 else max(share - 1, 0)
            piece = piece[:at].rstrip() + " …"
        parts.append(piece)
        room -= len(piece) + 1
    return " ".join([label, *parts])


_ORDER_RE = lazy_pattern(
    r"^\W*(?:(?:please|and|but|so|also|just|then)\s+)?(?:do not|don['’]?t|never|always|must|"
    r"make sure|keep|no new|only|stop|avoid)\b",
    re.IGNORECASE,
)
_ORDERS_MOST, _ORDER_CHARS = 6, 300
_SHOUTED_ORDER_RE = lazy_pattern(r"\b(?:DO NOT|DON'T|NEVER|MUST|ONLY|KEEP|STOP|AVOID|NO)\b")
_PASTED_RE = lazy_pattern(r"`|^\s*#|[\u2500-\u257f|]")


def _is_order(sentence: str) -> bool:
    """Whether a sentence is the user's imperative or constraint: one that starts with an
    order word ("Do not …", "Keep …", "No new …") or is shouted (all capitals, 3+ words)."""
    words = re.findall(r"[A-Za-z]+", sentence)
    if len(words) < 3 or len(sentence) > _ORDER_CHARS or _PASTED_RE.search(sentence):
        return False  # (a backtick span, a heading, box art: pasted material, not an order)
    shouted = sum(len(w) for w in words if w.isupper()) >= 0.8 * sum(len(w) for w in words)
    if shouted:
        return _SHOUTED_ORDER_RE.search(sentence) is not None
    return _ORDER_RE.match(sentence) is not None


_LOG_LINE_RE = lazy_pattern(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}|\[?\d{1,2}:\d{2}:\d{2}|"
    r"\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b)"
)
_ERROR_LOG_LINE_RE = lazy_pattern(r"\b(?:ERROR|FATAL|CRITICAL)\b|Traceback|Exception")
_KEY_LOG_LINE_RE = lazy_pattern(r"\b(?:ERROR|FATAL|CRITICAL|WARN(?:ING)?)\b|Traceback|Exception")
_DIGITS_RE = lazy_pattern(r"\d+")
_TAGS_RE = lazy_pattern(r"\[[^\]]*\]")
_SAYS_RE = lazy_pattern(r"[A-Za-z]{4,}")
"""What a key line must say besides its bracketed tags: a word (not a ``*****`` banner)."""
_LOG_LEAST, _KEY_LINES, _LAST_LINES = 8, 4, 3


def _bounded_log(text: str, number: int, keep: int, kept: str = "") -> str | None:
    """A message that is mostly a pasted log (a timestamp or a level first on most of its lines)
    as a few key lines (blind check 12: om-winvm's freerdp log filled section 6, cut in the
    middle): its first line, its error and warning lines (each distinct one once, the last
    ones), and its last lines; None when it is no log."""
    lines = [x.rstrip() for x in text.splitlines() if x.strip()]
    logged = [x for x in lines if _LOG_LINE_RE.match(x)]
    if len(logged) < _LOG_LEAST or 2 * len(logged) < len(lines):
        return None
    width = max(80, keep // 3)
    keys: dict[str, tuple[int, str]] = {}  # each distinct line once (timestamps aside), last
    for n, x in enumerate(lines[1:-_LAST_LINES]):
        if _KEY_LOG_LINE_RE.search(x) is not None and _SAYS_RE.search(_TAGS_RE.sub("", x)):
            keys.pop(same := _DIGITS_RE.sub("", x), None)
            keys[same] = (n, x)
    errors = [k for k in keys.values() if _ERROR_LOG_LINE_RE.search(k[1]) is not None]
    warnings = [k for k in keys.values() if k not in errors]
    room = _KEY_LINES - min(len(errors), _KEY_LINES)  # errors first, warnings fill the rest
    chosen = errors[-_KEY_LINES:] + warnings[max(0, len(warnings) - room) :]
    key = [x[:width] for _, x in sorted(chosen)]
    head, tail = lines[0][:width], [x[:width] for x in lines[-_LAST_LINES:]]
    removed = len(text) - len(head) - sum(map(len, tail))
    said = f"; its error and warning lines: {' | '.join(key)}" if key else ""
    return (
        f"{head}…{removed} characters truncated (a pasted log of {len(lines)} lines; the full text "
        f"is user message {number} of the original transcript{said}{kept})…{chr(10).join(tail)}"
    )


def bounded_paste(text: str, number: int, keep: int) -> str | None:
    """A message that is mostly a pasted traceback or log as its key lines (even the newest
    message: blind check 18), None when it is neither."""
    from compactor.facts.tracebacks import bounded_traceback

    kept = ""
    if text.count("\n") >= _LOG_LEAST:  # the user's orders among the pasted lines
        lines = text.splitlines()[1:-2]
        orders = [one_line(x) for n in lines for _, x in sentence_spans(n) if _is_order(x.strip())]
        kept = "; kept from it: " + " ".join(orders[:_ORDERS_MOST]) if orders else ""
    return bounded_traceback(text, number, keep, kept) or _bounded_log(text, number, keep, kept)


def bounded_user_message(text: str, number: int, keep: int) -> str:
    """A long user message as its first and last ``keep`` characters with a pointer to the full
    text, and the user's orders from the cut middle kept (blind check 6: "DO NOT CHANGE ANY CODE
    YET" and "keep the current owner/admin/user divide" were in the middle of a pasted issue and
    lost): the pasted material is what goes first. A pasted log: :func:`_bounded_log`."""
    if (log := bounded_paste(text, number, keep)) is not None:
        return log
    if (template := bounded_template(text, number, keep)) is not None:
        return template
    removed = len(text) - 2 * keep
    middle = text[keep : len(text) - keep]
    lines = middle.splitlines()
    orders = [one_line(x) for n in lines for _, x in sentence_spans(n) if _is_order(x.strip())]
    kept = "; kept from it: " + " ".join(orders[:_ORDERS_MOST]) if orders else ""
    marker = (
        f"…{removed} characters truncated (the full text is user message {number} "
        f"of the original transcript{kept})…"
    )
    return cut_middle(text, keep, marker)  # a code block it cuts inside closed, then reopened

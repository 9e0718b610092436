"""How the local summarizer reads assistant text and tool output, and writes its own lines.

Reading (which sentences state a decision or ask the user: :mod:`.local_decisions`):
:func:`printed_lines` (the lines of a command's output worth keeping), :func:`is_result_line`,
:func:`slash_command` (``/compact`` from Claude Code's command markup) and :func:`call_line`.
Writing: quoting, bullets, verbatim blocks, and reading the sections of an earlier summary.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence

from compactor._json import JsonObject
from compactor._util import lazy_pattern
from compactor.facts import (
    ESCALATED,
    Call,
    Entry,
    clean,
    command_of,
    cut,
    escalated,
    one_line,
    shorten,
)
from compactor.facts.masked import failure_report

from .local_clip import clip_command
from .local_harness import is_harness_error
from .local_headings import sections_in_order, without_closing
from .local_mask import masked
from .local_question import question_brief, questions_of
from .local_separator import unruled

__all__ = [
    "bullets",
    "call_line",
    "code",
    "code_line",
    "final_round_start",
    "is_harness_error",
    "is_prompt_line",
    "is_result_line",
    "list_items",
    "masked",
    "plural",
    "printed_lines",
    "prior_sections",
    "prior_users",
    "quote",
    "runner_words",
    "slash_command",
    "tool_names",
    "top",
    "verbatim_text",
]


# --------------------------------------------------------------------------------------------------
# Reading

_SHELL_SPLIT_RE = lazy_pattern(r"\|\||&&|[|;\n]")
_SUBCOMMAND_RE = lazy_pattern(r"^[a-z][\w:-]*$")


def runner_words(command: str, program: str) -> str:
    """``program`` with the subcommand words that follow it in ``command`` (at most two, up to
    the first option, path or redirection): ``npx hardhat compile``, ``npm run build``, ``cargo
    test``. Two runs of one runner are the same step only if these agree (``npx hardhat test``
    does not fix a failed ``npx next build``)."""
    for segment in _SHELL_SPLIT_RE.split(command):
        words = segment.split()
        names = [w.rsplit("/", 1)[-1].lower() for w in words]
        if program not in names:
            continue
        sub: list[str] = []
        for word in words[names.index(program) + 1 :]:
            if len(sub) == 2 or _SUBCOMMAND_RE.match(word) is None:
                break
            sub.append(word)
        return " ".join([program, *sub])
    return program


def final_round_start(entries: Sequence[Entry]) -> int:
    """The index of the last entry before the session's final round of calls: a call without a
    result is in flight only if it comes after this index (an older one was followed by a
    later round, or by a user message, and was abandoned). The final round is the assistant's
    last calls and their results, up to the first assistant message after a result."""
    seen_work = False
    for e in reversed(entries):
        if e.internal or e.injected:
            continue
        if e.results and not e.calls:  # (a call's message may carry its own end: not a round)
            if seen_work:
                return e.index
        elif e.role == "assistant":
            if e.calls or (e.text.strip() and not e.cli_error and not is_harness_error(e.text)):
                seen_work = True
        elif e.role == "user" and e.text.strip():
            return e.index
    return -1


_RESULT_LINE_RE = lazy_pattern(
    r"^(?:.*\b\d+ (?:passed|failed|tests?|errors?|skipped|warnings?)\b.*"
    r"|.*\bcoverage\b.*\d+(?:\.\d+)?\s*%.*|TOTAL\s+.*\d+%"
    r"|.*\b(?:deployed|deploying|released|published|live at|listening on|serving on|"
    r"successfully|succeeded|build (?:succeeded|complete)|finished)\b.*"
    r"|\[[\w./\-]+ (?:\(root-commit\) )?[0-9a-f]{7,}\] .+|\d+ files? changed\b.*"  # a commit
    r"|\s*[0-9a-f]{7,}\.\.[0-9a-f]{7,}\s+\S+ -> \S+.*"
    r"|[\w .%/()\-]{2,40}:\s*-?\$?\d[\d,.]*\s*(?:%|ms|s|sec|MB|GB|KB|x|req/s|rps)?"
    # several statistics on one line ("Spearman r: -0.0085  p: 0.667"; blind check 24)
    r"(?:[,;]?\s+[\w.%()\-]{1,20}:\s*-?\d[\d,.]*(?:e-?\d+)?\s*(?:%|ms|s|sec)?){0,4}"
    # a dependency's version changed (cargo update: "Downgrading alloc-stdlib v0.2.3 -> v0.2.2")
    r"|\s*(?:Downgrading|Upgrading|Updating|Removing|Adding|Locking) [\w\-]+ v?\d\S*"
    r"(?: -> v?\d\S*)?)$",
    re.IGNORECASE,
)
_PROMPT_RE = lazy_pattern(r"^(?:\((?:Open file|Current directory): [^)]*\)|bash-\$|\$)$")
"""Shell prompt lines some harnesses add to every output (SWE-agent)."""
_PROGRESS_RE = lazy_pattern(r"[.FEsx]*\s*\[\s*\d+%\]")
_COMMAND_NAME_RE = lazy_pattern(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
_COMMAND_ARGS_RE = lazy_pattern(r"<command-args>(.*?)</command-args>", re.DOTALL)


def is_result_line(line: str) -> bool:
    """A line that reports a result: tests passed/failed, coverage, a deployment, a commit, a
    push, a ``name: number`` metric; or the command's own failure a pipe may hide (set 21)."""
    return _RESULT_LINE_RE.match(line) is not None or failure_report(line)


def _wordy(line: str) -> bool:
    """Not a rule or a progress line (``-----``, ``....... [100%]``)."""
    core = line.strip().strip("=-_.*#~+ ")
    return bool(core) and _PROGRESS_RE.fullmatch(core) is None


def call_line(call: Call, limit: int, *, keep_end: bool = False) -> str:
    """``Bash: ls -la`` for commands, ``Write(path)`` / ``name({args})`` otherwise.
    ``keep_end``: a long command keeps its start and its end (where a call in flight names
    its target: ``… -Destination codex-session.jsonl``). Made once per call and limits (the
    call's fields it reads do not change once the session is read)."""
    memo = call.lines
    if memo is None:
        memo = call.lines = {}
    elif (line := memo.get((limit, keep_end))) is not None:
        return line
    line = memo[limit, keep_end] = _call_line(call, limit, keep_end)
    return line


def _call_line(call: Call, limit: int, keep_end: bool) -> str:
    command = command_of(call)
    if command is not None:
        line = one_line(command)
        more = ESCALATED if escalated(call) else ""
        if keep_end and len(line) > limit:  # with "…" and the steps cut (blind check 56 W3)
            return f"{call.name}: {clip_command(line, limit)}{more}"
        return f"{call.name}: {shorten(line, limit)}{more}"  # cut(command, limit)
    args = call.args
    for key in ("file_path", "path", "filename", "notebook_path", "skill", "query", "url"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return f"{call.name}({cut(value, limit)})"
    if not call.arguments.strip():
        return call.name
    if args:
        if "question" in call.arguments and (asked := questions_of(args)):
            return question_brief(call.name, asked, max(limit, _ASKED))
        return f"{call.name}({cut(_plain_args(args), limit)})"
    inner = _INNER_COMMAND_RE.search(call.arguments[:4000])
    if inner is not None:  # code that calls a tool: the command it runs, not the code
        shown = one_line(_unescape(inner.group(1)))
        return f"{call.name}: {clip_command(shown, limit) if keep_end else cut(shown, limit)}"
    tool = _INNER_TOOL_RE.search(call.arguments[:4000])
    if tool is not None:  # code that calls a tool: the tool and its arguments
        value = _json_object(tool.group(2))
        shown = _plain_args(value) if value else one_line(tool.group(2))
        clip = clip_command(shown, limit) if keep_end else cut(shown, limit)
        return f"{call.name} → {tool.group(1)}({clip})"
    return f"{call.name}({cut(one_line(call.arguments), limit)})"


_ASKED = 240  # characters of a question to the user and its option labels (blind check 32)
_INNER_TOOL_RE = lazy_pattern(r"\btools\.(\w+)\(\s*(\{.*?\})\s*\)\s*[;)]", re.DOTALL)


def _json_object(text: str) -> JsonObject:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


_INNER_COMMAND_RE = lazy_pattern(r'"(?:cmd|command)"\s*:\s*"((?:[^"\\]|\\.){1,2000})"')


def _unescape(text: str) -> str:
    try:
        value = json.loads(f'"{text}"')
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def _plain_value(value: object) -> str:
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return "{…}"
    return json.dumps(value)


def _plain_args(args: JsonObject) -> str:
    """A call's arguments as ``key=value, …`` (never raw JSON)."""
    return ", ".join(f"{k}={_plain_value(v)}" for k, v in args.items())


def is_prompt_line(line: str) -> bool:
    """A shell prompt line a harness adds to every output (``bash-$``, ``(Open file: x)``)."""
    return _PROMPT_RE.match(line.strip()) is not None


def printed_lines(body: str) -> list[str]:
    """The lines of a command's output worth keeping: no prompts, rules or progress bars, and
    the rules around a line (``==== 14 passed ====``) dropped."""
    return [
        unruled(ln.strip())  # a label between rules keeps them (blind check 64 N3)
        for ln in body.splitlines()
        if ln.strip() and not _PROMPT_RE.match(ln.strip()) and _wordy(ln)
    ]


def slash_command(text: str) -> str | None:
    """``/name args`` of Claude Code's ``<command-name>`` markup, or None."""
    match = _COMMAND_NAME_RE.search(text)
    if match is None:
        return None
    name = match.group(1) if match.group(1).startswith("/") else "/" + match.group(1)
    args = _COMMAND_ARGS_RE.search(text)
    extra = one_line(args.group(1)) if args else ""
    return f"{name} {extra}".strip()


# --------------------------------------------------------------------------------------------------
# Writing


def quote(text: str, limit: int) -> str:
    """``"text"`` on one line; a long text keeps its start and its end (where asks often are)."""
    flat = one_line(text)
    if len(flat) > limit:  # secrets masked before the cut, which could cut their key off
        head = max(1, int(limit * 0.65))
        tail = max(1, limit - head - 3)
        # each window holds the whole word the cut falls in and 100 characters beyond it: a
        # secret cut there keeps its name and prefix (blind check 67 S1: a JWT's tail printed)
        stop = flat.find(" ", head)
        start = masked(flat[: (len(flat) if stop < 0 else stop) + 100])
        begin = flat.rfind(" ", 0, len(flat) - tail) + 1
        end = masked(flat[max(0, begin - 100) :])
        flat = start[:head].rstrip() + " … " + end[len(end) - tail :].lstrip()
    return '"' + flat + '"'  # the user's quote marks kept (blind check 25 N6)


def code(text: str) -> str:
    """``text`` as inline code (backticks inside made quotes)."""
    return "`" + text.replace("`", "'") + "`"


def top(items: list[tuple[int, int, str]], cap: int) -> list[str]:
    """At most ``cap`` texts of (position, score, text) items, distinct: the highest scores
    first, the latest first among equals; shown in their original order, with a note saying
    how many were left out."""
    unique: dict[str, tuple[int, int, int]] = {}  # text -> (order, position, score)
    for order, (pos, score, text) in enumerate(items):
        if text not in unique:
            unique[text] = (order, pos, score)
        elif unique[text][2] < score:
            unique[text] = (unique[text][0], pos, score)
    ranked = sorted(unique.items(), key=lambda kv: (-kv[1][2], -kv[1][1], -kv[1][0]))
    chosen = sorted(ranked[:cap], key=lambda kv: kv[1][0])
    out = [text for text, _ in chosen]
    if len(ranked) > cap:
        out.append(f"… ({len(ranked) - cap} more of lower weight omitted)")
    return out


def bullets(items: list[str]) -> str:
    """``   - item`` lines; items starting with two spaces become nested ``     - item``, items
    starting with four spaces are verbatim lines indented under the item before."""
    out: list[str] = []
    for item in items:
        if item.startswith("    "):
            out.append("     " + item[4:])
        elif item.startswith("  "):
            out.append(f"     - {item[2:]}")
        else:
            out.append(f"   - {item}")
    return "\n".join(out)


_HEADING_RE = lazy_pattern(
    r"^\s*(?:#+[ \t]*)?(\d{1,2})\.\s+(?:([A-Z][^\n:]{2,60}):|\*\*([A-Z][^\n:*]{2,60}?):?\*\*"
    r"(?:[ \t]*\([^\n()]{0,120}\))?:?)[ \t]*$"  # ``7. **Pending Tasks** (from the plan):``
    r"|^[ \t]*#+[ \t]*(\d{1,2})\.[ \t]+[A-Z][^\n:]{2,60}$"  # or ``## 7. Pending Tasks``
    r"|^[ \t]*(?:#+[ \t]*)?\*\*(\d{1,2})\.[ \t]+[A-Z][^\n:*]{2,60}?:?\*\*:?[ \t]*$",  # ``**7. …**``
    re.MULTILINE,
)
"""A numbered section heading of a summary: ``7. Pending Tasks:``, or Claude Code's bold
``1. **Primary Request and Intent:**`` (issue 28, blind check 9), also with a parenthesis
after the bold title or the number inside the bold (blind check 40, W2)."""
_ALL_USERS_RE = lazy_pattern(r"<all_user_messages>(.*?)</all_user_messages>", re.DOTALL)


def prior_sections(text: str) -> dict[int, str]:
    """The numbered sections (``7. Pending Tasks:`` …) of an earlier summary, by number."""
    body = text
    if "<summary>" in text:
        body = text.split("<summary>", 1)[1]
    elif "Summary:" in text:
        body = text.split("Summary:", 1)[1]
    heads = sections_in_order(list(_HEADING_RE.finditer(body)), body)
    out: dict[int, str] = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        content = without_closing(body[head.end() : end].split("</summary>", 1)[0]).strip()
        out.setdefault(int(head.group(1) or head.group(4) or head.group(5)), content)
    return out


_ITEM_RE = lazy_pattern(r"^(\s*)(?:[-*•]|\d{1,2}[.)])\s+(\S.*)$")


def list_items(section: str) -> list[tuple[int, str]]:
    """(indentation, text) of each list item of a section (an earlier summary's pending
    tasks), continuation lines joined."""
    found: list[tuple[int, str]] = []
    for line in section.splitlines():
        match = _ITEM_RE.match(line)
        if match is not None:
            found.append((len(match.group(1)), match.group(2).strip()))
        elif found and line.strip():
            found[-1] = (found[-1][0], f"{found[-1][1]} {line.strip()}")
    return found


def prior_users(text: str) -> list[str]:
    """User messages listed by an earlier summary (``<all_user_messages>`` or its section 6)."""
    match = _ALL_USERS_RE.search(text)
    block = match.group(1) if match else prior_sections(text).get(6, "")
    out = []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("- ") and not line.startswith("- …"):
            item = line[2:].strip()
            if len(item) > 1 and item[0] == item[-1] == '"':
                item = item[1:-1]
            out.append(item)
    return out


def plural(n: int, word: str) -> str:
    """``1 request``, ``2 requests``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def tool_names(calls: list[str]) -> str:
    """``Bash ×3, Read`` for a list of tool names, in order of first use."""
    counts = Counter(calls)
    return ", ".join(n + (f" ×{counts[n]}" if counts[n] > 1 else "") for n in dict.fromkeys(calls))


def code_line(line: str, limit: int) -> str:
    """A line of code with its indentation, control characters dropped, at most ``limit``."""
    line = clean(line).replace("\t", "    ").rstrip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def verbatim_text(title: str, text: str, limit: int) -> list[str]:
    """``title:`` and ``text`` as indented verbatim lines, at most ``limit`` characters."""
    text = clean(text).strip()
    if len(text) <= limit:
        return [f"{title}:", *_indented(text)]
    # a long answer ends with what matters next (its question, its open items): keep both ends
    tail = limit // 3
    head = limit - tail
    end = text[len(text) - tail :]
    cut_at = end.find("\n")
    if 0 <= cut_at < tail // 2:  # start the tail at a line
        end, tail = end[cut_at + 1 :], tail - cut_at - 1
    title += f" (first {head} and last {tail} of {len(text)} characters)"
    omitted = len(text) - head - tail
    return [
        f"{title}:",
        *_indented(text[:head].rstrip()),
        f"      [… {omitted} characters omitted …]",
        *_indented(end),
    ]


def _indented(text: str) -> list[str]:
    return ["    " + ("  " + ln.rstrip() if ln.strip() else "") for ln in text.splitlines()]

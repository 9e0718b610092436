"""The user messages the default finalizer re-inserts (SPEC §5.2), without noise (issue 28
point 6, blind check 10): IDE markup is not the user's words, a message sent again (the same
words, or an edited version sent right after an interrupted one, :mod:`compactor.facts.resent`)
is listed once with ``(sent N times)``, and the newest message, when the summary above already
quotes it verbatim, is named by reference instead of a second copy."""

from __future__ import annotations

from collections.abc import Sequence

from compactor.facts.resent import edited_again

CURRENT_NOTE = "(the current request, quoted verbatim in the summary above)"
PART_NOTE = "(the latest request of the part summarized, quoted verbatim in the summary above)"
"""The note when the summary says a later request is in the messages kept after it (the local
summary's "Latest request in the part this summary covers": blind check 22 N4)."""
_PART_SAID = "Latest request in the part this summary covers"
_REFER_LEAST = 100
"""A newest message at least this long is referred to when the summary quotes it."""


def bounded(text: str, number: int, keep: int, *, newest: bool = False) -> str:
    """A long earlier message's first and last ``keep`` characters with a pointer to it; the
    newest message only when it is mostly a pasted traceback or log (its key lines, blind
    check 18: 11,426 characters of tracebacks re-inserted whole), else whole."""
    from compactor.facts.durable import bounded_paste, bounded_user_message
    from compactor.facts.pastedjson import without_json

    note = f"; the full text is user message {number} of the original transcript"
    if (short := without_json(text, note)) is not None:  # (blind check 64 N5)
        if len(short) <= 2 * keep:
            return short
        text = short
    if newest:
        return bounded_paste(text, number, keep) or text
    return bounded_user_message(text, number, keep)  # its orders kept from the middle


def block_texts(kept: Sequence[str], sent: Sequence[int]) -> list[str]:
    """``kept`` (chronological) with ``(sent N times)`` where ``sent`` (one count a kept text)
    counts more than one sending, and an edited re-send folded into its last version."""
    out: list[str] = []
    counts: list[int] = []
    edited: list[bool] = []
    for text, n in zip(kept, sent, strict=True):
        prev = out[-1] if out else ""
        if prev and edited_again(prev, text):  # the tails too, not the prefix only (check 33)
            out[-1], counts[-1], edited[-1] = text, counts[-1] + n, True
            continue
        out.append(text)
        counts.append(n)
        edited.append(False)
    return [
        t if n == 1 else f"{t} (sent {n} times{', edited; the last version' if e else ''})"
        for t, n, e in zip(out, counts, edited, strict=True)
    ]


def refer_to_quoted(summary: str, texts: list[str]) -> list[str]:
    """``texts`` with the newest one named by :data:`CURRENT_NOTE` when it is long and
    ``summary`` (the text before the block) quotes it verbatim, on one line."""
    if not texts or len(texts[-1]) < _REFER_LEAST:
        return texts
    from compactor.facts import one_line

    newest, label = texts[-1], ""
    if newest.endswith(")") and " (sent " in newest:
        at = newest.rfind(" (sent ")
        newest, label = newest[:at], newest[at:]
    from compactor.facts.ide import without_ide_note

    flat = one_line(without_ide_note(newest))
    if not flat:  # blank once flattened: "" is in every summary, yet it quotes nothing
        return texts
    if flat in summary or flat.replace('"', "'") in summary:
        return [*texts[:-1], (PART_NOTE if _PART_SAID in summary else CURRENT_NOTE) + label]
    from compactor.facts.templates import bounded_template  # pages of a command template

    template = bounded_template(newest, 0, 600)  # as finalize.EARLIER_KEEP_CHARS
    return texts if template is None else [*texts[:-1], template + label]


def refer_to_rules(above: str, texts: list[str]) -> list[str]:
    """``texts`` with each long rules text a message embeds (project guidelines pasted before
    the request, :func:`compactor.facts.durable.embedded_rules`) replaced by a reference when
    ``above`` (the summary before the block, its system reminder first) already prints them:
    printed once, not twice (blind check 11)."""
    from compactor.facts.durable import RULES_MIN, embedded_rules, rules_name

    out: list[str] = []
    for text in texts:
        split = embedded_rules(text) if len(text) > RULES_MIN else None
        if split is None or split[0][:300] not in above:
            out.append(text)
            continue
        rules, request = split
        out.append(
            f'[the rules "{rules_name(rules)}" ({len(rules):,} characters) this message embeds '
            f"before its request: printed once, in the system reminder above]\n{request}"
        )
    return out

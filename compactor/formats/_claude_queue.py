"""Claude Code ``queue-operation`` records read for what they carry (FORMATS.md §1.1).

Claude Code 2.x logs its command queue: ``{"type": "queue-operation", "operation":
"enqueue", "content": TEXT}`` when something is queued while the agent works, and
``dequeue``, ``remove``, ``popAll`` or ``popOne`` (no content) when it leaves the queue. Two
kinds of content matter to a summary:

* A ``<task-notification>`` (a background task or async sub-agent stopped: its task id,
  status, summary). Claude Code may enqueue the same one many times (tcu, 2.1.39: 27 identical
  copies of a failed agent's notice): read once, at its first enqueue, as injected context.
* A prompt the user typed while the agent worked. ``dequeue`` takes it at the end of a turn
  and Claude Code then writes it as a normal ``user`` record (ocak, 2.1.212: ``/effort``
  enqueued, dequeued, then its command record), so it is not read from the queue.
  ``remove`` takes it mid-turn into the next request: 2.1.197 writes that as a
  ``queued_command`` attachment (read by ``_attachments``), 2.1.39 wrote nothing else (tcu: a
  prompt enqueued, removed, acted on by the next assistant message, and nowhere else in the
  file), so a removed prompt is read as the user's message at its ``remove``, unless the file
  holds the same text later as a user record or queued command. ``popAll``/``popOne`` put
  prompts back into the user's editor: nothing was sent. A prompt neither dequeued nor removed
  when the file ends was still queued when the session ended (blind check 39, cc-admin: the
  user's last instruction enqueued while the model API kept failing): the user's latest words,
  never delivered. It is read as the user's message after the last record, marked
  :data:`~compactor.schema.STILL_QUEUED_KEY` (the summary says it was still queued), unless
  the file holds the same text later as a user record or queued command, or the user wrote
  another message after it (then it was not the user's last word: not read, as before).
* Bookkeeping that is one JSON object and no prose: 2.1.4x enqueues ``{"task_id": …,
  "tool_use_id": …, "description": …, "task_type": "local_bash"}`` when a Bash call goes to the
  background (cc-citedml, 2.1.49), and removes it later. Its job is already a fact (the call's
  result: "Command running in background with ID: …"); it is never a prompt, so it is not read.

Which entry a ``dequeue`` or ``remove`` takes is not logged: the oldest user prompt waiting,
else the oldest entry (Claude Code takes ``next``-priority prompts before ``later`` ones, the
priority of notifications). The messages made here come from no record of their own (their
origin is empty): every writer leaves the queue records as they were, and a reduction or an
``--append`` never copies them into the conversation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson

from compactor._json import JsonObject
from compactor.schema import STILL_QUEUED_KEY, AgenticMessage, Block

from . import _jsonl
from ._claude_texts import content_texts
from .notices import NOTICE_TAGS

__all__ = ["QUEUE_RECORD", "Queued", "queued_message", "queued_messages"]

QUEUE_RECORD = "queue-operation"


@dataclass(frozen=True, slots=True)
class Queued:
    """A message read from the queue: its text, and whether it is a task notification."""

    text: str
    notification: bool
    still_queued: bool = False  # never dequeued nor removed: undelivered when the file ends


def queued_message(q: Queued) -> AgenticMessage:
    """The user message of a queued text: a notification is injected context."""
    msg = AgenticMessage("user", [Block("user_input_text", q.text)])
    if q.notification:
        msg.extra["injected"] = True
    msg.extra["queue_operation"] = "notification" if q.notification else "prompt"
    if q.still_queued:
        msg.extra[STILL_QUEUED_KEY] = True
    return msg


def _structured(text: str) -> bool:
    """Whether an enqueued text is one JSON object (no prose): the harness's own record."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        return False
    try:
        return isinstance(orjson.loads(body), dict)
    except orjson.JSONDecodeError:
        return False


def _written(rec: JsonObject) -> Iterable[str]:
    """The texts a user record or a queued-command attachment holds (as the queue has them)."""
    if rec.get("type") == "user":
        body = rec.get("message")
        if isinstance(body, dict):
            yield from content_texts(body.get("content"))
    elif rec.get("type") == "attachment":
        attachment = rec.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "queued_command":
            yield from content_texts(attachment.get("prompt"))


def _typed(rec: JsonObject, text: str) -> bool:
    """Whether a user record's ``text`` is the user's own message: a prompt still queued
    before one was never the last thing the user said (its ``dequeue`` may not be logged)."""
    return rec.get("type") == "user" and not rec.get("isMeta") and not text.lstrip()[:1] == "<"


def queued_messages(lines: Sequence[_jsonl.Line], steps: Sequence[int]) -> dict[int, list[Queued]]:
    """Line index → the messages to add after the record there (``steps``: the history's
    message and queue records in history order); the prompts still queued at the end follow
    the last step."""
    pending: list[tuple[int, str, bool]] = []  # (enqueue line, content, a prompt?) waiting
    found: dict[int, Queued] = {}
    notices: set[str] = set()
    removed: list[tuple[int, int, str]] = []  # (enqueue line, remove line, prompt)
    for i in steps:
        rec = lines[i].obj
        if rec.get("type") != QUEUE_RECORD:
            continue
        operation = rec.get("operation")
        if operation == "enqueue":
            content = rec.get("content")
            text = content if isinstance(content, str) else ""
            notice = text.lstrip().startswith(NOTICE_TAGS)
            pending.append((i, text, not notice and not _structured(text)))
            if notice and text not in notices:
                notices.add(text)
                found[i] = Queued(text, notification=True)
        elif operation in ("dequeue", "remove") and pending:
            at = next((k for k, p in enumerate(pending) if p[2]), 0)
            enqueued, text, prompt = pending.pop(at)
            if operation == "remove" and prompt and text.strip():
                removed.append((enqueued, i, text))
        elif operation == "popAll":
            pending = [p for p in pending if not p[2]]
        elif operation == "popOne":
            prompts = [k for k, p in enumerate(pending) if p[2]]
            if prompts:
                pending.pop(prompts[-1])
    waiting = [(i, text) for i, text, prompt in pending if prompt and text.strip()]
    out: dict[int, list[Queued]] = {}
    if removed or found or waiting:
        written: dict[str, int] = {}  # text → the last line holding it
        typed = -1  # the last user record of the user's own words (no tool result, no notice)
        for i in steps:
            for text in _written(lines[i].obj):
                written[text.strip()] = i
                if _typed(lines[i].obj, text):
                    typed = i
        for enqueued, at, content in removed:
            if written.get(content.strip(), -1) < enqueued:
                found[at] = Queued(content, notification=False)
        for i in [i for i, q in found.items() if q.notification]:
            if written.get(found[i].text.strip(), -1) > i:  # also written as a record
                del found[i]
        out = {i: [q] for i, q in found.items()}
        last = out.setdefault(steps[-1], []) if waiting else []
        last += [
            Queued(t, False, True) for i, t in waiting if max(typed, written.get(t.strip(), -1)) < i
        ]
    return {i: qs for i, qs in out.items() if qs}

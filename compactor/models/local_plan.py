"""The agent's own task list as its plan-tool calls leave it (moved out of :mod:`.local_session`).

``TodoWrite`` and Codex's ``update_plan`` write the whole list; Claude Code's ``TaskCreate`` adds
one item and ``TaskUpdate`` changes one. Blind check 37 (W2) showed a list built from the calls'
inputs alone going wrong: every ``TaskUpdate`` had failed (``InputValidationError``, the status
sent as ``"\\"completed\\""``), yet the list showed ``["completed"] task #3`` and ``["deleted"]
task #1``; and five parallel ``TaskCreate`` calls numbered by a counter of our own were then
re-keyed to the ids their results returned ("Task #3 created"), each landing on another one's
entry, so two of the five were lost. So:

- a call with an id is applied when its result arrives, and only when that result is no error
  and no rejection: a failed ``TaskCreate`` creates nothing, a failed ``TaskUpdate`` changes
  nothing; a call never answered (the session ends first, or the format links no results) is
  applied at the end as it was written, as before;
- a created task's id is the one its result names (``Task #N created``); without one it gets
  the next number no task holds;
- a status is stored without the quotes a malformed call wrapped it in;
- a ``TaskList`` / ``TaskGet`` result is the list as the harness holds it, read back after
  other agents changed it (an agent-team lead's teammates mark their own tasks completed, blind
  check 47, W2: the lead's own ``TaskUpdate`` calls only set owners, so the plan said "0 of 19
  marked done" while its last ``TaskList`` showed 18 ``[completed]``): the statuses it lists
  (``#3 [completed] Subject (owner)``, ``Status: completed``) replace the older ones.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut

from .local_task import Task

__all__ = ["PlanTracker"]

_TASK_ID_RE = lazy_pattern(r"Task #?(\w+) created", re.IGNORECASE)
_WHOLE_LIST = ("TodoWrite", "todo_write", "todowrite")
_READ_BACK = ("TaskList", "TaskGet")
_LISTED_RE = lazy_pattern(
    r"^[ \t]*(?:[-*][ \t]*)?#?(\w{1,12})[.):]?[ \t]+\[(pending|in[_ ]progress|completed|deleted)\]"
    r"[ \t]+([^\n]+)$",
    re.IGNORECASE | re.MULTILINE,
)
"""A ``TaskList`` line: ``#3 [completed] Subject (owner) [blocked by #1]``."""
_GOT_STATUS_RE = lazy_pattern(
    r"^[ \t]*Status:[ \t]*(pending|in[_ ]progress|completed|deleted)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""The status line of a ``TaskGet`` result."""
_LISTED_TAIL_RE = lazy_pattern(r"(?:\s*\[blocked by [^\]]*\])?(?:\s*\([\w.@\-]+\))?\s*$")


def _status(value: object) -> str:
    """The status as the tool would store it: ``"\\"completed\\""`` is ``completed``."""
    return str(value).strip().strip("\"'").strip()


def _task_key(args: dict[str, object]) -> str:
    return str(args.get("taskId") or args.get("task_id") or args.get("id") or "")


class PlanTracker:
    """Applies plan-tool calls to ``tasks`` (the session's dict, in the order items appeared)."""

    def __init__(self, tasks: dict[str, Task]) -> None:
        self.tasks = tasks
        self.next_task = 1
        self.waiting: dict[str, Call] = {}  # call id -> a TaskCreate/TaskUpdate without result

    def call(self, call: Call) -> None:
        """A plan-tool call was made: a whole list is written now (its result never says
        otherwise); one item's change waits for its result when the call has an id."""
        name, args, tasks = call.name, call.args, self.tasks
        if name in _WHOLE_LIST and isinstance(args.get("todos"), list):
            tasks.clear()
            for i, item in enumerate(args["todos"], 1):
                if isinstance(item, dict) and isinstance(item.get("content"), str):
                    key = str(item.get("id") or i)
                    status = _status(item.get("status") or "pending")
                    tasks[key] = Task(key, cut(item["content"], 200), status, name)
        elif name == "update_plan" and isinstance(args.get("plan"), list):
            tasks.clear()
            for i, item in enumerate(args["plan"], 1):
                if isinstance(item, dict) and isinstance(item.get("step"), str):
                    status = _status(item.get("status") or "pending")
                    tasks[str(i)] = Task(str(i), cut(item["step"], 200), status, name)
        elif name in ("TaskCreate", "TaskUpdate"):
            if call.id:
                self.waiting[call.id] = call
            else:
                self.apply(call, "")

    def result(self, call: Call, text: str, failed: bool) -> bool:
        """The result of ``call`` arrived: apply the call unless it failed or was rejected;
        whether a read-back (``TaskList``/``TaskGet``) changed a status."""
        waiting = self.waiting.pop(call.id, None) if call.id else None
        if waiting is not None and not failed:
            self.apply(waiting, text)
        elif call.name in _READ_BACK and not failed:
            return self.read_back(call, text)
        return False

    def read_back(self, call: Call, text: str) -> bool:
        """Take the statuses a ``TaskList``/``TaskGet`` result shows; whether one changed."""
        changed = False
        if call.name == "TaskGet":
            key, got = _task_key(call.args), _GOT_STATUS_RE.search(text[:4_000])
            found = [(key, got.group(1), "")] if key and got is not None else []
        else:
            found = [(m.group(1), m.group(2), m.group(3)) for m in _LISTED_RE.finditer(text)]
        for key, status, subject in found:
            status = status.lower().replace(" ", "_")
            task = self.tasks.get(key)
            if task is None and subject:
                subject = _LISTED_TAIL_RE.sub("", subject.strip())
                task = self.tasks[key] = Task(key, cut(subject, 200), "", call.name)
            if task is not None and task.status != status:
                task.status, changed = status, True
            if task is not None and status == "deleted":
                self.tasks.pop(key, None)
        return changed

    def finish(self) -> None:
        """Calls never answered are applied as written (the session ended before their
        results, or its format links none)."""
        for call in list(self.waiting.values()):
            self.apply(call, "")
        self.waiting.clear()

    def apply(self, call: Call, text: str) -> None:
        args, tasks = call.args, self.tasks
        if call.name == "TaskCreate":
            if not isinstance(args.get("subject"), str):
                return
            found = _TASK_ID_RE.search(text[:400]) if text else None
            key = found.group(1) if found is not None else self.free_key()
            tasks.pop(key, None)  # a placeholder an earlier update made: this is the task
            tasks[key] = Task(key, cut(args["subject"], 200), "pending", call.name)
            if key.isdigit():
                self.next_task = max(self.next_task, int(key) + 1)
            return
        key = _task_key(args)
        if not key:
            return
        task = tasks.get(key)
        if task is None:
            subject = args.get("subject")
            task = tasks[key] = Task(key, cut(str(subject or f"task #{key}"), 200), "", call.name)
        if isinstance(args.get("status"), str):
            task.status = _status(args["status"])
        if isinstance(args.get("subject"), str):
            task.subject = cut(args["subject"], 200)
        if task.status == "deleted":
            tasks.pop(key, None)

    def free_key(self) -> str:
        while str(self.next_task) in self.tasks:
            self.next_task += 1
        self.next_task += 1
        return str(self.next_task - 1)

"""Work the local summarizer did once per render or per judge, done once per session (issue 28
point 7, helper perfagent76): each memo gives the answer of the code it replaces."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.facts import Call
from compactor.models.local_actioncore import ACTION, ACTION_KEYS, action_marks
from compactor.models.local_services import call_rows
from compactor.models.local_session import Session, once
from compactor.models.local_text import _call_line, call_line

_CALLS = (
    Call("a", "Bash", '{"command": "cd /srv && pytest -q tests/test_app.py -k slow"}', 0),
    Call("b", "shell", '{"command": ["bash", "-lc", "ls"], "sandbox_permissions": "escalated"}', 1),
    Call("c", "Write", '{"file_path": "/srv/app/main.py", "content": "print(1)"}', 2),
    Call("d", "computer", '{"action": "screenshot", "tabId": 7}', 3),
    Call("e", "exec", "tools.shell_command({command: 'npm run build && npm test'})", 4),
    Call("f", "AskUserQuestion", '{"questions": [{"question": "Deploy now?"}]}', 5),
    Call("g", "Bash", '{"command": "' + "x" * 400 + ' --out report.txt"}', 6),
)


def test_call_line_is_made_once_per_call_and_limits() -> None:
    for call in _CALLS:
        fresh = Call(call.id, call.name, call.arguments, call.index)
        for limit in (20, 90, 160, 300):
            for keep_end in (False, True):
                made = _call_line(fresh, limit, keep_end)
                assert call_line(call, limit, keep_end=keep_end) == made
                assert call_line(call, limit, keep_end=keep_end) == made  # from the memo
        assert call.lines is not None and len(call.lines) == 8


def test_once_makes_each_answer_once_per_session() -> None:
    made: list[Session] = []

    def make(s: Session) -> list[int]:
        made.append(s)
        return [len(made)]

    one, two = Session(entries=[]), Session(entries=[])
    assert once(one, make) is once(one, make) == [1]
    assert once(two, make) == [2]  # another session: its own answer
    assert made == [one, two]


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from((*ACTION_KEYS, "pattern", "path", "x")), st.text(max_size=3))
)
def test_action_marks_are_the_keys_looked_up(args: dict[str, object]) -> None:
    keys = (*ACTION_KEYS, "pattern", "query", "regex", "glob", "search_query")
    assert action_marks(args) == frozenset(
        f"{ACTION}{k}={v}" for k in keys if isinstance(v := args.get(k), str) and 0 < len(v) < 200
    )


def _rows_before(calls: list[Call], kept: set[str], head: int, tail: int) -> list[Call | int]:
    """Section 5's rows as the loop before perfagent76 made them."""
    if len(calls) <= head + tail:
        return list(calls)
    rows: list[Call | int] = list(calls[:head])
    for c in calls[head : len(calls) - tail]:
        if c.id in kept:
            rows.append(c)
        elif rows and isinstance(rows[-1], int):
            rows[-1] += 1
        else:
            rows.append(1)
    return [*rows, *calls[len(calls) - tail :]]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 30),
    st.integers(0, 6),
    st.integers(0, 6),
    st.sets(st.integers(0, 29), max_size=6),
)
def test_call_rows_are_those_of_the_loop(count: int, head: int, tail: int, kept: set[int]) -> None:
    calls = [Call(str(n), "Bash", '{"command": "ls"}', n) for n in range(count)]
    s = Session(entries=[], calls=calls)
    s.services = [(calls[n], "stopped") for n in sorted(kept) if n < count]
    ids = {c.id for c, _ in s.services}
    assert call_rows(s, head, tail) == _rows_before(calls, ids, head, tail)

"""What any read of any bytes must give: a transcript that re-writes to bytes reading back the same,
or one of our errors naming the file. Used by the "never crashes" property tests."""

from __future__ import annotations

from compactor.errors import CompactorError
from compactor.formats.registry import FORMATS, read_transcript, write_transcript


def _records(raw: bytes) -> int:
    """An upper bound on the messages ``raw`` can hold: its non-blank lines, or the items of a
    JSON document (array or object, at any depth) when it is one."""
    import json

    lines = sum(1 for line in raw.splitlines() if line.strip())
    try:
        doc = json.loads(raw)
    except ValueError:
        return lines
    items = 0
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            items += len(node)
            stack.extend(node)
        elif isinstance(node, dict):
            items += len(node)
            stack.extend(node.values())
    return max(lines, items)


def check_read(name: str, raw: bytes, fmt: str | None = None) -> None:
    """Read ``raw`` as file ``name`` (``fmt``: forced) and assert the property of the result."""
    try:
        t = read_transcript(name, raw, format=fmt)
    except CompactorError as err:
        error: CompactorError | None = err
    else:
        error = None
    if error is not None:
        assert name in str(error), f"the error does not name the file: {error}"
        return
    assert t.format in FORMATS
    if fmt is not None:
        assert t.format == fmt
    assert len(t.messages) <= _records(raw)
    again = read_transcript(name, write_transcript(t, t.messages), format=t.format)
    assert again.format == t.format
    assert again.messages == t.messages

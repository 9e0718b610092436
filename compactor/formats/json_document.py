"""Transcripts stored as one JSON document instead of JSON Lines.

Many tools write a conversation as one JSON array of messages (``[{"role": ...}, ...]``),
compact or indented. :func:`to_lines` turns such an array into the JSON Lines every format
module reads (one element per line), and :func:`render` turns what a format writes back into
one array in the input's style (compact or indented with the same indent, the same
separators, the same final newline), so ``compact run log.json`` reads and writes the file
the tool wrote. An error inside the array names the line of the file where its element
starts.

An object that holds the list under a key (tau-bench's ``traj``, SWE-agent's ``history``) is
not guessed at: :func:`explain` turns the error into one that says JSON Lines are expected,
and how to convert the file with ``jq``. So does a pretty-printed record in a JSONL file.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import orjson

from compactor._json import JsonObject
from compactor._util import FrozenRecord
from compactor.errors import TranscriptError

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = [
    "DocumentStyle",
    "explain",
    "is_array",
    "lines_of",
    "relocate",
    "render",
    "to_lines",
]

_BOM = b"\xef\xbb\xbf"
_WS = b" \t\r\n"
_EXPECTED = "JSON Lines expected (one record per line); this file is one JSON document"


class DocumentStyle(FrozenRecord):
    """How the input array was written, to write the result the same way.
    (A frozen dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = (  # noqa: RUF023 - field order
        "indent",
        "item_separator",
        "key_separator",
        "final_newline",
        "crlf",
        "bom",
    )
    indent: str | None
    """The indent of one level (``"  "``, ``"\\t"``); None: all on one line."""
    item_separator: str
    key_separator: str
    final_newline: bool
    crlf: bool
    bom: bool

    def __init__(
        self,
        indent: str | None,
        item_separator: str,
        key_separator: str,
        final_newline: bool,
        crlf: bool,
        bom: bool,
    ) -> None:
        init = object.__setattr__
        init(self, "indent", indent)
        init(self, "item_separator", item_separator)
        init(self, "key_separator", key_separator)
        init(self, "final_newline", final_newline)
        init(self, "crlf", crlf)
        init(self, "bom", bom)


def _head(raw: bytes | FileSource, size: int = 4096) -> bytes:
    return raw[:size] if isinstance(raw, bytes) else raw.read_at(0, size)


def _body(data: bytes) -> bytes:
    return data[len(_BOM) :] if data.startswith(_BOM) else data


def _whole(raw: bytes | FileSource) -> bytes:
    """All the bytes (a FileSource is read through its blocks, so it can check them later)."""
    return raw if isinstance(raw, bytes) else b"".join(raw.blocks())


def cut_short(line: bytes) -> bool:
    """Whether ``line`` starts a JSON value that goes on past its end (``{`` of a pretty-printed
    record): the one sign that a file holds records over several lines. The streaming check and
    the full read's explanation decide on the same sign, so both say the same."""
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError as err:
        return "end of data" in str(err)
    return False


def incomplete_last_line(path: str, number: int) -> TranscriptError:
    """The error for a file whose last line (``number``, no newline after it) stops in the
    middle of a record: a file still being written by its agent, or cut short."""
    src, out = _quote(path), _quote(_jsonl_name(path))
    return TranscriptError(
        path,
        number,
        None,
        "this line (the last line) is incomplete: the file ends in the middle of a record "
        "(is an agent still writing it, or was it cut short?); wait until the agent has "
        f"finished, or remove the partial last line: head -n -1 {src} > {out}",
    )


def _last_line_cut(data: bytes, number: int) -> bool:
    """Whether line ``number`` is the file's last line, ends without a newline and starts a
    record that the end of the file cuts off: a file still being written, or cut short (a
    pretty-printed record fails at its first line, which the file's end does not cut)."""
    body = _body(data)
    if body.endswith(b"\n") or body.count(b"\n") != number - 1:
        return False
    last = body.rsplit(b"\n", 1)[-1].strip(_WS)
    return last[:1] == b"{" and cut_short(last)


def is_array(raw: bytes | FileSource) -> bool:
    """The file's first byte (after a BOM and whitespace) opens a JSON array."""
    return _body(_head(raw)).lstrip(_WS)[:1] == b"["


_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},:\n]|[^\s\[\]{},:"]+', re.S)


def _separator(body: bytes, mark: bytes) -> str:
    """``mark`` as the document writes it outside strings: followed by a space or not."""
    for match in _TOKENS.finditer(body, 0, min(len(body), 1 << 16)):
        if match.group() == mark:
            return mark.decode() + (" " if body[match.end() : match.end() + 1] == b" " else "")
    return mark.decode()


def _style(data: bytes) -> DocumentStyle:
    body = _body(data)
    after = body.lstrip(_WS)[1:]
    gap = after[: len(after) - len(after.lstrip(_WS))]
    indent = gap.rsplit(b"\n", 1)[1].decode() if b"\n" in gap else None
    return DocumentStyle(
        indent=indent,
        item_separator="," if indent is not None else _separator(body, b","),
        key_separator=_separator(body, b":"),
        final_newline=body.rstrip(b" \t").endswith(b"\n"),
        crlf=b"\r\n" in body[:65536],
        bom=data.startswith(_BOM),
    )


def _element_lines(data: bytes) -> list[int]:
    """The 1-based line where each element of the top-level array starts (strings skipped)."""
    lines: list[int] = []
    line, depth = 1, 0
    expect = False
    for match in _TOKENS.finditer(data):
        token = match.group()
        if token == b"\n":
            line += 1
            continue
        if depth == 1 and expect and token not in (b"]", b","):
            lines.append(line)
            expect = False
        if token in (b"[", b"{"):
            depth += 1
            if depth == 1:
                expect = True
        elif token in (b"]", b"}"):
            depth -= 1
        elif token == b"," and depth == 1:
            expect = True
    return lines


def to_lines(path: str, raw: bytes | FileSource) -> tuple[bytes, DocumentStyle, list[int]] | None:
    """The array's elements as JSON Lines, the document's style, and the file line where
    each element starts (for errors: see :func:`relocate`); None when the file is not one
    JSON document (JSON Lines whose first line is an array: read, and refused, as lines).
    TranscriptError when it is an array of something else than objects."""
    data = _whole(raw)
    try:
        value = orjson.loads(_body(data))
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, list):
        return None
    if not value:
        raise TranscriptError(path, None, None, "empty transcript (an empty JSON array)")
    starts = _element_lines(_body(data))
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            line = starts[i] if i < len(starts) else None
            raise TranscriptError(
                path,
                line,
                None,
                f"expected a JSON object, got {type(item).__name__} (element {i + 1} of the "
                f"JSON array); {_EXPECTED}: convert it with "
                f"jq -c '.[]' {_quote(path)} > {_quote(_jsonl_name(path))}",
            )
    lines = b"".join(orjson.dumps(item) + b"\n" for item in value)
    return lines, _style(data), starts


def relocate(err: TranscriptError, starts: list[int]) -> TranscriptError:
    """``err`` (from reading the JSON Lines of :func:`to_lines`) with the line of the file
    where the element starts, and the element's number."""
    if err.line is None or not 1 <= err.line <= len(starts):
        return err
    message = f"{err.message} (element {err.line} of the JSON array)"
    return TranscriptError(err.path, starts[err.line - 1], err.field, message)


def lines_of(data: bytes) -> bytes:
    """A rendered array back as JSON Lines (what :func:`render` was given, reformatted)."""
    value = orjson.loads(_body(data))
    return b"".join(orjson.dumps(item) + b"\n" for item in value)


def render(lines: bytes, style: DocumentStyle) -> bytes:
    """The JSON Lines a format wrote, as one JSON array in ``style``."""
    items = [orjson.loads(line) for line in lines.splitlines() if line.strip()]
    text = json.dumps(
        items,
        ensure_ascii=False,
        indent=style.indent,
        separators=(style.item_separator, style.key_separator),
    )
    if style.final_newline:
        text += "\n"
    if style.crlf:
        text = text.replace("\n", "\r\n")
    out = text.encode("utf-8")
    return _BOM + out if style.bom else out


def _quote(path: str) -> str:
    """``shlex.quote``, imported only for an error message (not by every ``compact check``)."""
    import shlex

    return shlex.quote(path)


def _jsonl_name(path: str) -> str:
    if path == "-":
        return "out.jsonl"
    stem = path.removesuffix(".jsonl").removesuffix(".json")
    return f"{stem}.jsonl" if f"{stem}.jsonl" != path else f"{stem}.lines.jsonl"


def _list_keys(value: JsonObject) -> list[tuple[str, int]]:
    """Keys holding a non-empty list of objects, the longest first."""
    found = [
        (key, len(item))
        for key, item in value.items()
        if isinstance(item, list) and item and all(isinstance(x, dict) for x in item)
    ]
    return sorted(found, key=lambda kv: -kv[1])


def explain(path: str, raw: bytes | FileSource, err: TranscriptError) -> TranscriptError:
    """A clearer error than ``err`` when the file is one JSON document that compact does not
    read (an object holding the messages under a key) or holds pretty-printed records;
    ``err`` itself otherwise."""
    head = _body(_head(raw, 1 << 16)).lstrip(_WS)
    if head[:1] == b"[" and err.message.startswith("invalid JSON") and err.line == 1:
        first = head.split(b"\n", 1)[0].strip()
        try:
            orjson.loads(first)
        except orjson.JSONDecodeError:
            # an array over several lines that does not parse as one document
            try:
                orjson.loads(_body(_whole(raw)))
            except orjson.JSONDecodeError as doc_err:
                return TranscriptError(path, None, None, f"invalid JSON document: {doc_err}")
        return err
    if head[:1] != b"{":
        return err
    src, out = _quote(path), _quote(_jsonl_name(path))
    data = _whole(raw)
    try:
        value = orjson.loads(_body(data))
    except orjson.JSONDecodeError:
        value = None
    if isinstance(value, dict) and "role" not in value and "type" not in value:
        keys = _list_keys(value)
        if keys:
            key, n = keys[0]
            where = f".{key}[]" if re.fullmatch(r"[A-Za-z_]\w*", key) else f".[{json.dumps(key)}][]"
            return TranscriptError(
                path,
                None,
                None,
                f"{_EXPECTED} (an object whose {key!r} holds {n:,} records); convert the "
                f"messages with: jq -c '{where}' {src} > {out}",
            )
        return TranscriptError(
            path, None, None, f"{_EXPECTED} (an object); compact reads JSON Lines or an array"
        )
    multi_line = b"\n" in _body(data).strip(_WS)
    lines = _body(data).split(b"\n")
    bad = lines[err.line - 1] if err.line is not None and 0 < err.line <= len(lines) else b""
    if (
        err.message.startswith("invalid JSON")
        and value is None
        and err.line is not None
        and _last_line_cut(data, err.line)
    ):
        return incomplete_last_line(path, err.line)
    if (
        err.message.startswith("invalid JSON")
        and multi_line
        and value is None
        and cut_short(bad.strip(_WS))
    ):
        return TranscriptError(
            path,
            err.line,
            None,
            "JSON Lines expected (one record per line); this record spans several lines "
            f"(pretty-printed JSON?); convert it with: jq -c . {src} > {out}",
        )
    if value is not None and multi_line:
        return TranscriptError(
            path,
            None,
            None,
            f"{_EXPECTED} (one pretty-printed record); convert it with: jq -c . {src} > {out}",
        )
    return err

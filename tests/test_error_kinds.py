"""``ModelError.kind`` is an :class:`~compactor.ErrorKind` (issue 29 point 3): typed for code,
the same string as before for comparisons, events, reports and JSON."""

from __future__ import annotations

import json

import pytest

import compactor as c
from compactor.errors import ErrorKind, ModelError
from compactor.events import GenerateSummary, error_to_dict


def test_kind_is_an_error_kind_equal_to_its_string() -> None:
    err = ModelError("cut", kind="length")
    kind: str = err.kind  # what code that compares strings sees
    assert kind == "length" and f"{kind}" == "length" and str(kind) == "length"
    assert kind in ("length", "content_filter")
    assert err.kind is ErrorKind.LENGTH
    assert ModelError("x").kind is ErrorKind.OTHER
    assert ModelError("x", kind=ErrorKind.CONTEXT_LENGTH).kind == "context_length"
    assert c.ErrorKind is ErrorKind


def test_an_unknown_kind_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown ModelError kind 'quota'; one of rate_limit, "):
        ModelError("x", kind="quota")


def test_every_kind_the_docstring_lists_is_a_member() -> None:
    doc = " ".join((ModelError.__doc__ or "").split())
    for kind in ErrorKind:
        assert f"``{kind.value}``" in doc, kind


def test_events_and_json_carry_the_plain_string() -> None:
    err = ModelError("HTTP 529", kind=ErrorKind.SERVER, transient=True)
    data = error_to_dict(err)
    assert data is not None
    assert type(data["kind"]) is str and data["kind"] == "server"
    event = GenerateSummary(attempt=1, phase="primary", error=err)
    text = json.dumps(event.to_dict())
    assert '"kind": "server"' in text

"""Issue 30 point 5 (``reduce``'s speed): the streaming clearing asks the default backend for the
path a result most likely gets (:meth:`FileOffload.likely_path`) instead of working it out of
the longest one; both must name the same file, whatever the call id."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.reduction import FileOffload
from compactor.reduction.core import likely_where
from compactor.reduction.writer import ProcessOffload


@pytest.mark.parametrize(
    "call_id",
    ["call_1", "toolu_01AbC", "a" * 100, "a" * 101, "../x", "x/y", ".hidden", "é✓", "", "a b\n"],
)
@pytest.mark.parametrize("kind", ["clear", "trunc"])
def test_likely_path_is_the_longest_path_without_its_hash(
    tmp_path: Path, call_id: str, kind: str
) -> None:
    for backend in (FileOffload(tmp_path / "off"), ProcessOffload(tmp_path / "off", b"")):
        longest = backend.longest_path(kind, call_id)  # type: ignore[arg-type]
        assert backend.likely_path(kind, call_id) == likely_where(backend, longest)  # type: ignore[arg-type]
    assert not (tmp_path / "off").exists()  # nothing made by asking

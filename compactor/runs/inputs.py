"""Which files a command works on: folders expand to their transcripts, earlier outputs stay out.

Kept light (no runner, no asyncio): ``compact check`` uses it too.

* A folder means its ``*.jsonl`` files (sorted, regular files only), never the
  ``NAME.compact.jsonl`` outputs an earlier run wrote beside them.
* With ``skip_outputs`` (``compact run`` over several inputs), a ``*.compact.jsonl`` given by
  name is left out as well: re-running ``compact run logs/*`` must not compact the previous
  run's outputs into ``x.compact.compact.jsonl``. Named alone, such a file is compacted like
  any other (``compact run x.compact.jsonl``).
"""

from __future__ import annotations

import os
from pathlib import Path

from compactor._util import FrozenRecord
from compactor.errors import ConfigError

__all__ = ["OUTPUT_SUFFIX", "Inputs", "expand_inputs", "gathered", "is_output_name"]

OUTPUT_SUFFIX = ".compact.jsonl"
"""What ``compact run`` appends to an input's stem for its default output."""


def is_output_name(path: str) -> bool:
    """Whether ``path`` is named like a default output of ``compact run`` (``x.compact.jsonl``)."""
    return os.path.basename(path).endswith(OUTPUT_SUFFIX)


class Inputs(FrozenRecord):
    """The files to work on, in order, and the earlier outputs left out. (A frozen dataclass's
    behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("files", "skipped")  # field order
    files: list[str]
    skipped: list[str]
    """Earlier outputs (``*.compact.jsonl``) found in a folder or given among several inputs."""

    def __init__(self, files: list[str], skipped: list[str] | None = None) -> None:
        init = object.__setattr__
        init(self, "files", files)
        init(self, "skipped", [] if skipped is None else skipped)


def expand_inputs(items: list[str], *, skip_outputs: bool) -> Inputs:
    """Expand folders to their transcripts; ConfigError when nothing is left to work on."""
    files: list[str] = []
    skipped: list[str] = []
    for item in items:
        if item != "-" and os.path.isdir(item):
            for path in sorted(Path(item).glob("*.jsonl")):
                if not path.is_file():
                    continue
                (skipped if is_output_name(path.name) else files).append(str(path))
        elif skip_outputs and is_output_name(item):
            skipped.append(item)
        else:
            files.append(item)
    return gathered(items, files, skipped)


def gathered(items: list[str], files: list[str], skipped: list[str]) -> Inputs:
    """The inputs ``items`` named (local paths or object-store URLs); ConfigError when none
    is left to work on, naming the earlier outputs that were skipped."""
    if not files:
        where = ", ".join(repr(i) for i in items)
        left = f" (only earlier outputs: {', '.join(skipped)})" if skipped else ""
        raise ConfigError(f"no transcripts to work on in {where}{left}")
    return Inputs(files, skipped)

"""The JSON boundary: the types of raw, unvalidated JSON and YAML data (no public API).

A transcript record read off disk, a config file's mapping, a model's reply body, an event or a
report on its way to a file: data whose shape is only known once code has looked at it. These
names are the one place ``Any`` stands for such data (``tests/test_architecture.py``
``::test_any_is_named_only_at_the_json_boundary``); everywhere else a value has a real type.

``JsonValue`` names ``Any`` rather than the recursive union ``dict[str, JsonValue] |
list[JsonValue] | str | int | float | bool | None``: measured on this tree (issue 29), the union
makes mypy --strict report 675 errors in 39 files (cli 238, tests 162, configfile 124, runs 88,
formats 51): every ``value["key"]`` of a report or a YAML section would need an ``isinstance``
ladder for checks that already happen at run time, with their own located errors. What the
names buy is the rule: an ``Any`` is raw JSON, by name.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JsonValue: TypeAlias = Any
"""One JSON (or YAML) value of unknown shape: a scalar, a list or an object."""

JsonObject: TypeAlias = dict[str, Any]
"""A JSON object (a record, a request or reply body, a report, a YAML mapping)."""

JsonArray: TypeAlias = list[Any]
"""A JSON array of values of unknown shape."""

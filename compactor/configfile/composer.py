"""YAML text → :class:`~.fileconfig.FileConfig`, every key with its line.

The file is composed from PyYAML's parser events on an explicit stack, with limits (depth,
values with aliases expanded, core tags only), then each key is checked against
:data:`~.fileconfig.SCHEMA`: unknown keys and wrong types raise :class:`ConfigError` naming file,
line and key (with a "did you mean" suggestion). ``${VAR}`` and ``${VAR:-default}`` are
expanded in string values; an unset variable without a default is an error, except for the
optional ``base_url`` and ``api_key``, which then stay unset.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from compactor._json import JsonObject
from compactor._util import (
    MIN_FREE_TEXT_SECRET,
    is_query_secret_name,
    lazy_pattern,
    register_secret,
    url_secrets,
)
from compactor.errors import ConfigError

from .fileconfig import SCHEMA, FileConfig, is_headers_key, is_secret_values_key
from .schema import (
    ANY_MAP,
    FINALIZE,
    FINALIZE_KEYS,
    MAX_CONFIG_DEPTH,
    MAX_CONFIG_VALUES,
    MODEL_KEYS,
    MODEL_LIST,
    NAME_LIST,
    NUM,
    OPTIONAL_ENV_KEYS,
    PATTERN_LIST,
    PRICE_TABLE,
    SECRET_KEYS,
    Switch,
)

__all__ = ["parse"]

_ENV_RE = lazy_pattern(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def parse(text: str, path: str) -> FileConfig:
    """Validate YAML ``text`` into a :class:`FileConfig` (``path`` is only used in messages)."""
    try:
        root = _compose(text, path)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        raise ConfigError(f"invalid YAML: {problem}", path=path, line=line) from err
    if root is None:
        return FileConfig(path=path)
    if not isinstance(root, yaml.MappingNode):
        raise ConfigError(
            "the config file must be a mapping of keys", path=path, line=root.start_mark.line + 1
        )
    lines: dict[str, int] = {}
    unset_env: dict[str, str] = {}
    values = _Loader(path, lines, unset_env).mapping(root, SCHEMA, "")
    if "transcript_file_path" in values and values["transcript_file_path"] is None:
        values["transcript_file_path"] = "none"
    cfg = FileConfig.from_mapping(values, path=path, lines=lines, unset_env=unset_env)
    if cfg.user_instruction is not None and cfg.user_instruction_file is not None:
        raise cfg.error(
            "user_instruction_file", "set either user_instruction or user_instruction_file"
        )
    return cfg


_CORE_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")
)
"""The tags a config may spell out (``!!str 123``); ``!!python/...`` and the like are refused."""


@dataclass(slots=True)
class _Open:
    """A mapping or list being composed: its node, its anchor and its size so far."""

    node: Any
    anchor: str | None
    size: int = 0
    """Values inside it so far, aliases expanded."""
    key: Any = None
    """Mappings: the key node whose value comes next (None: a key comes next)."""


def _compose(text: str, path: str) -> yaml.Node | None:
    """``yaml.compose(text)`` without its recursion and with limits, so that no file can hang,
    exhaust memory or run code.

    The events come from PyYAML's parser (a state machine); the nodes are built here on an
    explicit stack, so a 5,000-deep list is refused at level 33, not a RecursionError. Each
    anchor's size (aliases inside it expanded) is known when it closes, so an alias bomb is
    refused as soon as the expanded total passes :data:`MAX_CONFIG_VALUES`, without expanding
    anything; an alias to an anchor still open (``a: &x [*x]``) is refused as recursive; an
    explicit tag outside the core schema (``!!python/name:os.system``) is refused. Every
    refusal names the line and the key.
    """
    resolver: Any = yaml.resolver.Resolver()  # untyped in the stubs
    stack: list[_Open] = []
    anchors: dict[str, tuple[yaml.Node, int]] = {}
    root: yaml.Node | None = None
    documents = 0

    def fail(event: Any, message: str) -> ConfigError:
        return ConfigError(
            message, path=path, line=event.start_mark.line + 1, key=_open_key(stack) or None
        )

    def check_tag(event: Any) -> None:
        if event.tag not in (None, "!") and event.tag not in _CORE_TAGS:
            tag = str(event.tag).replace("tag:yaml.org,2002:", "!!")
            raise fail(event, f"unsupported YAML tag {tag!r}: a config holds plain data only")

    def attach(node: yaml.Node, size: int, event: Any) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        top = stack[-1]
        if isinstance(top.node, yaml.MappingNode):
            if top.key is None:
                top.key = node
            else:
                top.node.value.append((top.key, node))
                top.key = None
        else:
            top.node.value.append(node)
        top.size += size
        if sum(o.size for o in stack) > MAX_CONFIG_VALUES:
            raise fail(
                event,
                f"the config expands to more than {MAX_CONFIG_VALUES:,} values (through "
                "aliases?): refused",
            )

    for event in yaml.parse(text):
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise fail(event, "a config file holds one YAML document, found a second")
        elif isinstance(event, yaml.ScalarEvent):
            check_tag(event)
            tag = event.tag
            if tag in (None, "!"):
                tag = resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            start: Any = event.start_mark  # the stubs give marks two Mark types
            end: Any = event.end_mark
            node: yaml.Node = yaml.ScalarNode(tag, event.value, start, end, style=event.style)
            if event.anchor is not None:
                anchors[event.anchor] = (node, 1)
            attach(node, 1, event)
        elif isinstance(event, yaml.AliasEvent):
            if any(o.anchor == event.anchor for o in stack):
                raise fail(event, f"recursive alias *{event.anchor}: refused")
            if event.anchor not in anchors:
                raise fail(event, f"undefined alias *{event.anchor}")
            node, size = anchors[event.anchor]
            attach(node, size, event)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            check_tag(event)
            if len(stack) >= MAX_CONFIG_DEPTH:
                raise fail(event, f"nested more than {MAX_CONFIG_DEPTH} levels deep: refused")
            mapping = isinstance(event, yaml.MappingStartEvent)
            kind = yaml.MappingNode if mapping else yaml.SequenceNode
            tag = event.tag
            if tag in (None, "!"):
                tag = resolver.resolve(kind, None, event.implicit)
            start = event.start_mark
            node = kind(tag, [], start, None, flow_style=event.flow_style)
            stack.append(_Open(node, event.anchor))
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            done = stack.pop()
            done.node.end_mark = event.end_mark
            if done.anchor is not None:
                anchors[done.anchor] = (done.node, done.size + 1)
            attach(done.node, done.size + 1, event)
    return root


def _open_key(stack: list[_Open]) -> str:
    """The dotted key of the value being composed (``model.options.x[3]``), for messages."""
    key = ""
    for item in stack:
        if isinstance(item.node, yaml.MappingNode):
            if item.key is None:
                break
            name = item.key.value if isinstance(item.key, yaml.ScalarNode) else "?"
            key = f"{key}.{name}" if key else str(name)
        else:
            key += f"[{len(item.node.value)}]"
    return key if len(key) <= 80 else key[:79] + "…"


class _Loader:
    def __init__(self, path: str, lines: dict[str, int], unset_env: dict[str, str]) -> None:
        self.path = path
        self.lines = lines
        self.unset_env = unset_env

    def err(self, node: yaml.Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, path=self.path, line=node.start_mark.line + 1, key=key)

    def mapping(self, node: yaml.Node, schema: Mapping[str, Any], prefix: str) -> JsonObject:
        if not isinstance(node, yaml.MappingNode):
            raise self.err(
                node,
                prefix.rstrip(".") or "<root>",
                f"expected a mapping, got {_kind(node)}{_model_mapping_hint(node, prefix)}",
            )
        out: JsonObject = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            dotted = f"{prefix}{key}"
            if not isinstance(key, str) or key not in schema:
                message = f"unknown key {key!r}"
                close = difflib.get_close_matches(str(key), list(schema), n=1)
                if close:
                    message += f"; did you mean {close[0]!r}?"
                else:
                    message += "; known keys: " + ", ".join(sorted(schema))
                raise ConfigError(message, path=self.path, line=key_node.start_mark.line + 1)
            if key in out:
                raise self.err(key_node, dotted, "duplicate key")
            self.lines[dotted] = key_node.start_mark.line + 1
            out[key] = self.value(value_node, schema[key], dotted)
        return out

    def value(self, node: yaml.Node, spec: Any, key: str) -> Any:
        if isinstance(spec, dict):
            if _is_null(node):
                return None
            return self.mapping(node, spec, key + ".")
        if spec == ANY_MAP:
            if _is_null(node):
                return {}
            if not isinstance(node, yaml.MappingNode):
                raise self.err(node, key, f"expected a mapping, got {_kind(node)}")
            return self.plain(node, key)
        if isinstance(spec, Switch):
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node, spec.mapping, key + ".")
            if not isinstance(node, yaml.ScalarNode):
                raise self.err(node, key, f"expected {_names(spec.scalar)} or a mapping")
            value = self.scalar(node, key)
            if value is None:
                return None
            if not _type_ok(value, spec.scalar):
                raise self.err(
                    node, key, f"expected {_names(spec.scalar)} or a mapping, got {value!r}"
                )
            return {spec.shorthand_key: value}
        if spec == PATTERN_LIST:
            if not isinstance(node, yaml.SequenceNode):
                raise self.err(node, key, f"expected a list of {{name, regex}}, got {_kind(node)}")
            items = [
                self.mapping(item, {"name": (str,), "regex": (str,)}, f"{key}[{i}].")
                for i, item in enumerate(node.value)
            ]
            for i, (item, item_node) in enumerate(zip(items, node.value, strict=True)):
                if "name" not in item or "regex" not in item:
                    raise self.err(item_node, f"{key}[{i}]", "a pattern needs 'name' and 'regex'")
                try:
                    re.compile(item["regex"])
                except re.error as err:
                    raise self.err(
                        item_node, f"{key}[{i}].regex", f"invalid regular expression: {err}"
                    ) from err
            return items
        if spec == NAME_LIST:
            if _is_null(node):
                return []
            if not isinstance(node, yaml.SequenceNode):
                raise self.err(node, key, f"expected a list of names, got {_kind(node)}")
            names = [self.value(item, (str,), f"{key}[{i}]") for i, item in enumerate(node.value)]
            return names
        if spec == PRICE_TABLE:
            if not isinstance(node, yaml.MappingNode):
                raise self.err(
                    node, key, f"expected a mapping of model → prices, got {_kind(node)}"
                )
            table: JsonObject = {}
            for name_node, prices_node in node.value:
                name = str(name_node.value)
                table[name] = self.mapping(
                    prices_node, {"input": NUM, "output": NUM}, f"{key}.{name}."
                )
            return table
        if spec == MODEL_LIST:
            if not isinstance(node, yaml.SequenceNode):
                raise self.err(node, key, f"expected a list of models, got {_kind(node)}")
            return [
                self.mapping(item, MODEL_KEYS, f"{key}[{i}].") for i, item in enumerate(node.value)
            ]
        if spec == FINALIZE:
            if _is_null(node) or isinstance(node, yaml.ScalarNode):
                value = self.scalar(node, key)
                if value is not None and not isinstance(value, str):
                    raise self.err(
                        node, key, f"expected 'pkg.mod:func' or a mapping, got {value!r}"
                    )
                return value
            return self.mapping(node, FINALIZE_KEYS, key + ".")
        if not isinstance(node, yaml.ScalarNode):
            raise self.err(node, key, f"expected {_names(spec)}, got {_kind(node)}")
        value = self.scalar(node, key)
        if not _type_ok(value, spec):
            shown = "a value of another type" if _leaf(key) in SECRET_KEYS else repr(value)
            raise self.err(node, key, f"expected {_names(spec)}, got {shown}")
        if isinstance(value, str) and _leaf(key) in SECRET_KEYS:
            register_secret(value)
        elif isinstance(value, str) and _leaf(key) == "base_url":
            for part in url_secrets(value):
                if len(part) >= MIN_FREE_TEXT_SECRET:
                    register_secret(part)
        return value

    def plain(self, node: yaml.Node, key: str) -> Any:
        if isinstance(node, yaml.MappingNode):
            return {str(k.value): self.plain(v, f"{key}.{k.value}") for k, v in node.value}
        if isinstance(node, yaml.SequenceNode):
            return [self.plain(v, key) for v in node.value]
        value = self.scalar(node, key)
        parts = key.split(".")
        if isinstance(value, str) and (
            any(is_headers_key(part) for part in parts[:-1])
            or (
                any(is_secret_values_key(part) for part in parts[:-1])
                and is_query_secret_name(parts[-1])
            )
        ):
            # a header value, or a credential in extra_query / extra_body (``api-key``,
            # ``token``): masked in every later error, event, report and traceback
            if len(value) >= MIN_FREE_TEXT_SECRET:
                register_secret(value)
        return value

    def scalar(self, node: yaml.Node, key: str) -> Any:
        assert isinstance(node, yaml.ScalarNode)
        raw: str = node.value
        if node.tag != "tag:yaml.org,2002:str" or "${" not in raw:
            return _resolve_scalar(node)
        leaf = _leaf(key)
        missing: list[str] = []

        def repl(m: re.Match[str]) -> str:
            name, default = m.group(1), m.group(2)
            value = os.environ.get(name)
            if value is None or (value == "" and default is not None):
                if default is None:
                    missing.append(name)
                    return ""
                return default
            return value

        expanded = _ENV_RE.sub(repl, raw)
        if missing:
            if leaf in OPTIONAL_ENV_KEYS and _ENV_RE.fullmatch(raw):
                self.unset_env[key] = missing[0]
                return None
            raise self.err(
                node,
                key,
                f"environment variable {missing[0]!r} is not set (use ${{{missing[0]}:-default}} "
                "for a default)",
            )
        if leaf in SECRET_KEYS or node.style is not None:
            return expanded
        # An unquoted ${VAR} takes the type its value spells (``${TOKENS:-1000}`` → 1000).
        try:
            loaded = yaml.safe_load(expanded)
        except (yaml.YAMLError, RecursionError, ValueError):  # the environment is hostile too
            return expanded
        if isinstance(loaded, (int, float, bool)) and loaded is not None:
            return loaded
        return expanded


def _resolve_scalar(node: yaml.ScalarNode) -> Any:
    """The value of a scalar; one that does not make its implicit type (``2024-13-45`` looks
    like a date, ``=`` like a YAML value key) stays the text it is."""
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):
        return node.value
    finally:
        loader.dispose()


def _leaf(key: str) -> str:
    return key.rsplit(".", 1)[-1]


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _model_mapping_hint(node: yaml.Node, prefix: str) -> str:
    """For ``model: local`` / ``model: gpt-4o``: the mapping that was meant."""
    if not prefix.endswith("model.") or not isinstance(node, yaml.ScalarNode):
        return ""
    value = str(node.value).strip()
    if not value:
        return ""
    from compactor.models.registry import mapping_meant

    return f"; write it as  model: {mapping_meant(value)}"


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return repr(_resolve_scalar(node)) if isinstance(node, yaml.ScalarNode) else "?"


def _type_ok(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool):
        return bool in types
    return isinstance(value, types)


def _names(types: tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
    parts = [names.get(t, "null") for t in types if not (t is float and int in types)]
    if float in types and int in types:
        parts = [("a number" if p == "an integer" else p) for p in parts]
    return " or ".join(parts)

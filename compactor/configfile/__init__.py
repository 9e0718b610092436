"""YAML config files for ``compact`` (SPEC §9.4), loadable without the CLI.

- :mod:`.settings`: the sections of the typed tree, every key declared once (YAML types,
  default, range) and :func:`~.settings.overlay`, which resolves layers (defaults, the file,
  the command line's flags): later non-None values win.
- :mod:`.schema`: the schema's markers, a model mapping's keys, the size limits.
- :mod:`.loading`: :func:`load_config_file` finds and reads a file (``-c``,
  ``$COMPACT_CONFIG``, ``$XDG_CONFIG_HOME/compact/config.yaml``, a size cap);
  :mod:`.composer` parses its YAML (the only module that
  imports ``yaml``, loaded when a file is parsed) so that every key keeps its line: unknown
  keys, wrong types and unset ``${VAR}`` raise :class:`~compactor.errors.ConfigError` naming
  file, line and key.
- :mod:`.fileconfig`: :class:`FileConfig`, the root of the tree (a parsed file is one layer,
  :func:`flag_layer` the flags' layer, :meth:`FileConfig.resolve` lays them over each other),
  whose accessors validate their section; the file schema generated from it.
- :mod:`.build`: :func:`build_config` turns a :class:`FileConfig` plus overrides into a
  :class:`compactor.Config`; :func:`check_config` checks that it would, building no model.

No rich or typer here: library users can load the same files.
"""

from __future__ import annotations

from .build import (
    ASSUMED_WINDOW,
    KeylessModel,
    UnbuiltModel,
    build_config,
    check_config,
    config_fields,
    exponential_backoff,
    missing_keys,
    model_settings,
    summarizer_window,
    with_overrides,
)
from .fileconfig import (
    DEFAULT_FILE_MAX_DELAY,
    DEFAULT_LOOP_GUARD,
    DEFAULT_MAX_GROWTH,
    DEFAULT_RETRY,
    FileConfig,
    Overrides,
    any_remote,
    flag_layer,
    is_headers_key,
    mask_secrets,
)
from .loading import (
    CONFIG_ENV,
    MAX_CONFIG_BYTES,
    config_source,
    load_config_file,
    load_default_config,
    parse_config_text,
    user_config_path,
)
from .schema import MAX_CONFIG_DEPTH, MAX_CONFIG_VALUES

__all__ = [
    "ASSUMED_WINDOW",
    "CONFIG_ENV",
    "DEFAULT_FILE_MAX_DELAY",
    "DEFAULT_LOOP_GUARD",
    "DEFAULT_MAX_GROWTH",
    "DEFAULT_RETRY",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "MAX_CONFIG_VALUES",
    "FileConfig",
    "KeylessModel",
    "Overrides",
    "UnbuiltModel",
    "any_remote",
    "build_config",
    "check_config",
    "config_fields",
    "config_source",
    "exponential_backoff",
    "flag_layer",
    "is_headers_key",
    "load_config_file",
    "load_default_config",
    "mask_secrets",
    "missing_keys",
    "model_settings",
    "parse_config_text",
    "summarizer_window",
    "user_config_path",
    "with_overrides",
]

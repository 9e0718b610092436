"""Reading a config file: where it is (``-c``, ``$COMPACT_CONFIG``), size limits, decoding.

The YAML itself is parsed by :mod:`.composer`, imported (with ``yaml``) only when a file is
parsed: ``compact check`` without ``-c`` never pays for it.
"""

from __future__ import annotations

import os

from compactor.errors import ConfigError

from .fileconfig import FileConfig

__all__ = [
    "CONFIG_ENV",
    "MAX_CONFIG_BYTES",
    "load_config_file",
    "load_default_config",
    "parse_config_text",
]

CONFIG_ENV = "COMPACT_CONFIG"
"""Environment variable naming the config file used when ``-c`` is not given."""

MAX_CONFIG_BYTES = 1 << 20
"""A config file larger than this (1 MiB) is refused unread."""


def load_default_config(path: str | None = None) -> FileConfig:
    """``path``, else the file named by ``$COMPACT_CONFIG``, else the built-in defaults."""
    chosen = path or os.environ.get(CONFIG_ENV) or None
    if chosen is None:
        return FileConfig()
    return load_config_file(chosen)


def load_config_file(path: str | os.PathLike[str]) -> FileConfig:
    """Read and validate one YAML config file."""
    p = str(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)  # /dev/zero or a 2 GB file: never read whole
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config file larger than {MAX_CONFIG_BYTES:,} bytes", path=p)
        text = data.decode("utf-8")
    except FileNotFoundError as err:
        raise ConfigError("config file not found", path=p) from err
    except IsADirectoryError as err:
        raise ConfigError("config path is a directory", path=p) from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"failed to read config file: {err}", path=p) from err
    return parse_config_text(text, path=p)


def parse_config_text(text: str, *, path: str = "<config>") -> FileConfig:
    """Validate YAML ``text`` (``path`` is only used in messages)."""
    from .composer import parse

    return parse(text, path)

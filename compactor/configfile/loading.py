"""Reading a config file: where it is (``-c``, ``$COMPACT_CONFIG``, the user's own
``$XDG_CONFIG_HOME/compact/config.yaml``), size limits, decoding.

The YAML itself is parsed by :mod:`.composer`, imported (with ``yaml``) only when a file is
parsed: ``compact check`` without ``-c`` never pays for it.
"""

from __future__ import annotations

import os
from pathlib import Path

from compactor.errors import ConfigError

from .fileconfig import FileConfig

__all__ = [
    "CONFIG_ENV",
    "MAX_CONFIG_BYTES",
    "config_source",
    "load_config_file",
    "load_default_config",
    "parse_config_text",
    "user_config_path",
]

CONFIG_ENV = "COMPACT_CONFIG"
"""Environment variable naming the config file used when ``-c`` is not given."""

MAX_CONFIG_BYTES = 1 << 20
"""A config file larger than this (1 MiB) is refused unread."""


def user_config_path() -> Path:
    """The user's own config file: ``$XDG_CONFIG_HOME/compact/config.yaml``, else
    ``~/.config/compact/config.yaml`` (a relative ``$XDG_CONFIG_HOME`` is ignored, as the XDG
    spec says)."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"
    return base / "compact" / "config.yaml"


def config_source(path: str | None = None) -> tuple[str | None, str]:
    """Which config file a run reads and what named it: ``(path, "-c")``, ``(path,
    "$COMPACT_CONFIG")``, ``(path, "$XDG_CONFIG_HOME")`` / ``(path, "~/.config")`` for the
    user's own file when it exists, else ``(None, "built-in defaults")``."""
    if path:
        return path, "-c"
    named = os.environ.get(CONFIG_ENV)
    if named:
        return named, f"${CONFIG_ENV}"
    user = user_config_path()
    if user.is_file():
        xdg = os.path.isabs(os.environ.get("XDG_CONFIG_HOME", ""))
        return str(user), "$XDG_CONFIG_HOME" if xdg else "~/.config"
    return None, "built-in defaults"


def load_default_config(path: str | None = None) -> FileConfig:
    """``path`` (``-c``), else the file ``$COMPACT_CONFIG`` names, else the user's own
    :func:`user_config_path` when it exists, else the built-in defaults. A missing file named
    by ``-c`` or ``$COMPACT_CONFIG`` is an error that says which of them named it."""
    chosen, named_by = config_source(path)
    if chosen is None:
        return FileConfig()
    return load_config_file(chosen, named_by=None if named_by == "-c" else named_by)


def load_config_file(path: str | os.PathLike[str], *, named_by: str | None = None) -> FileConfig:
    """Read and validate one YAML config file (``named_by``: the variable that named it, for
    the message when it cannot be read)."""
    p = str(path)
    where = f" (named by {named_by})" if named_by else ""
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)  # /dev/zero or a 2 GB file: never read whole
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config file larger than {MAX_CONFIG_BYTES:,} bytes", path=p)
        text = data.decode("utf-8")
    except FileNotFoundError as err:
        raise ConfigError(f"config file not found{where}", path=p) from err
    except IsADirectoryError as err:
        raise ConfigError(f"config path is a directory{where}", path=p) from err
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"failed to read config file{where}: {err}", path=p) from err
    return parse_config_text(text, path=p)


def parse_config_text(text: str, *, path: str = "<config>") -> FileConfig:
    """Validate YAML ``text`` (``path`` is only used in messages)."""
    from .composer import parse

    return parse(text, path)

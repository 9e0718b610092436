"""The example configs shipped in the package (``compactor/configs/*.yaml``, the repo's
``configs/``) and the starter config ``compact config init`` writes.

Read with :mod:`importlib.resources`, so a ``pip``/``pipx`` install has them as much as a clone.
"""

from __future__ import annotations

import difflib
from importlib import resources
from importlib.resources.abc import Traversable

from compactor.errors import ConfigError
from compactor.models.providers import DEFAULT_REMOTE

__all__ = ["example_names", "example_summary", "example_text", "starter_config"]

_FOLDER = "configs"

_STARTER_HEADER = """\
# compact's config file, written by `compact config init`.
# compact reads ~/.config/compact/config.yaml ($XDG_CONFIG_HOME/compact/config.yaml) when no
# -c FILE and no $COMPACT_CONFIG name another; `compact config show` prints every setting a run
# would use, and `compact config validate FILE` checks a file. More examples, each commented:
#   compact config init --example            (lists them)
#   compact config init --example failover -o failover.yaml
"""

_STARTER_TAIL = (
    f"# To summarize with {DEFAULT_REMOTE.about} instead (the key is read only when a request "
    "is\n# made), with the embedded summarizer as the last resort:\n"
    + DEFAULT_REMOTE.commented_example()
    + "# retry: {max_retries: 3, initial_delay: 1.0, max_delay: 10.0}\n# fallback: local\n"
)


def _folder() -> Traversable:
    return resources.files("compactor").joinpath(_FOLDER)


def example_names() -> list[str]:
    """The shipped examples' names (``default``, ``failover``, ...), sorted."""
    return sorted(
        entry.name.removesuffix(".yaml")
        for entry in _folder().iterdir()
        if entry.name.endswith(".yaml")
    )


def example_text(name: str) -> str:
    """The text of example ``name`` (``failover`` or ``failover.yaml``); a ConfigError lists
    the examples (and the closest one) for a name that is not one of them."""
    stem = name.removesuffix(".yaml")
    names = example_names()
    if stem not in names:
        close = difflib.get_close_matches(stem, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"no example config {name!r}{hint} (examples: {', '.join(names)})")
    return _folder().joinpath(f"{stem}.yaml").read_text(encoding="utf-8")


def example_summary(name: str) -> str:
    """The first comment line of example ``name``, without its ``#``."""
    for line in example_text(name).splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def starter_config() -> str:
    """A commented starter config: the ``default`` example's settings (the embedded
    summarizer: no key, no network) under a header saying where compact reads it, and a
    commented-out OpenAI model to switch to."""
    lines = example_text("default").splitlines(keepends=True)
    while lines and lines[0].startswith("#"):  # its own header names the repo's configs/
        lines.pop(0)
    return _STARTER_HEADER + "".join(lines) + _STARTER_TAIL

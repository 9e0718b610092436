"""Plain CLI values skip typer's pydantic coercion (start-up: ``compact check`` without pydantic).

typer 0.29 coerces every parameter value through a pydantic ``TypeAdapter``, built when the
parameter is first processed, even when the value is None or already a ``str``. Importing pydantic
and building the adapters costs 50–90 ms per command: more than everything ``compact check`` does
on a small transcript. :func:`install` hands values through when typer's adapter would return
them unchanged (a ``str`` for a ``str`` parameter, a ``bool`` for a flag, a list of ``str`` for
``list[str]``) or as a plain ``int`` (``--jobs 8`` within its bounds), and gives everything else
(``--jobs 0``, paths, custom parsers, file types) to typer's own coercion, so errors and results
stay typer's.

This relies on typer internals (``typer.core._TyperParameter.get_runtime_param`` and
``typer._coercion``, typer 0.29). When they are missing, :func:`install` changes nothing and
returns False: the CLI stays correct, only slower. tests/test_startup.py pins the hook to the
installed typer's behaviour, not to a version string: for every option of every command the fast
path must give what typer's own coercion gives, and ``compact check`` must import pydantic
without the hook and not with it (when a typer no longer needs pydantic, the hook can go).
Without it ``compact check`` starts in 143 ms instead of 75 ms (BENCHMARKS.md, issue 31).
"""

from __future__ import annotations

from typing import Any

from compactor._util import lazy_pattern

__all__ = ["install"]

_INSTALLED = "_compact_plain_values"
_DIGITS = lazy_pattern(r"[1-9][0-9]{0,17}|0")
"""A plain decimal integer, as pydantic reads it too (bounds are checked, errors go to typer)."""


def install() -> bool:
    """Patch typer once; True when plain values now bypass pydantic."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam, build_runtime_param
    except ImportError:  # pragma: no cover - another typer layout: keep typer's behaviour
        return False
    param_cls: Any = getattr(core, "_TyperParameter", None)
    original = getattr(param_cls, "get_runtime_param", None)
    if original is None:  # pragma: no cover - see above
        return False
    if getattr(original, _INSTALLED, False):
        return True

    class PlainValues(RuntimeParam):
        """Passes plain values through; anything else goes to typer's coercion. A plain
        subclass of typer's frozen dataclass, not a dataclass itself: every start-up defines
        it, and generating a frozen dataclass's methods costs ~0.5 ms."""

        def __init__(self, parameter_info: Any, annotation: Any, descriptor: Any) -> None:
            super().__init__(parameter_info=parameter_info, annotation=annotation)
            object.__setattr__(self, "descriptor", descriptor)
            # typer's own coercion, built on first need
            object.__setattr__(self, "typer_param", [])

        descriptor: Any
        typer_param: list[Any]

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            ann = self.annotation
            if ann is str and type(value) is str:
                return value
            if ann is bool and type(value) is bool:
                return value
            if ann is int and type(value) is str and _DIGITS.fullmatch(value):
                number = int(value)
                info = self.parameter_info
                low, high = info.min, info.max
                if (
                    not info.clamp
                    and (low is None or number >= low)
                    and (high is None or number <= high)
                ):
                    return number
            if (
                ann == list[str]
                and isinstance(value, list | tuple)
                and all(type(v) is str for v in value)
            ):
                return list(value)
            if not self.typer_param:
                self.typer_param.append(build_runtime_param(self.descriptor))
            return self.typer_param[0]._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            desc = self.type_descriptor
            if desc.file_annotation is not None or desc.parameter_info.parser is not None:
                return original(self)
            self._runtime_param = PlainValues(
                parameter_info=desc.parameter_info, annotation=desc.annotation, descriptor=desc
            )
        return self._runtime_param

    setattr(get_runtime_param, _INSTALLED, True)
    param_cls.get_runtime_param = get_runtime_param
    return True

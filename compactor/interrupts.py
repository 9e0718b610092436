"""Signals that stop a run (SIGINT, SIGTERM, SIGHUP), as exceptions with their signal number.

A library never takes over the process's signals on its own: :func:`install_handlers` is called
by the command line (or by a program that wants the same behaviour). Its handlers raise
:class:`Interrupted` at once, also inside a blocking write or a sleep, except inside a
:func:`critical` section: there the signal is held and raised when the section ends. The run
wraps each rename and the bookkeeping that records it in such a section, so a report can say
exactly what was written when a signal arrives at the moment of the rename.

When a signal lands inside the event loop's own code, ``asyncio.run`` cancels the run's task:
the run then sees ``CancelledError``, and :data:`last_signal` says which signal it was.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = [
    "SIGNALS",
    "Interrupted",
    "critical",
    "install_handlers",
    "last_signal",
    "signal_name",
]

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals a run stops on; the exit code is 128 + the signal number (130, 143, 129)."""


class Interrupted(KeyboardInterrupt):
    """The run was stopped by ``signum`` (a KeyboardInterrupt, so code that handles Ctrl-C
    handles SIGTERM and SIGHUP the same way)."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        self.signum = int(signum)
        super().__init__(signal_name(self.signum))

    @property
    def exit_code(self) -> int:
        """128 + the signal number, as a shell reports a process killed by it."""
        return 128 + self.signum


def signal_name(signum: int) -> str:
    """``SIGTERM`` for 15, and so on."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


_state: dict[str, int] = {"depth": 0}
_held: list[int] = []
_last: list[int] = []


def last_signal() -> int | None:
    """The last signal a handler installed by :func:`install_handlers` received, if any."""
    return _last[-1] if _last else None


def _handler(signum: int, frame: FrameType | None) -> None:
    _last.append(signum)
    if _state["depth"]:
        _held.append(signum)
        return
    raise Interrupted(signum)


def install_handlers() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` in the main thread.

    A signal the process ignores (``nohup``, a shell's background job) stays ignored.
    """
    for sig in SIGNALS:
        if signal.getsignal(sig) is signal.SIG_IGN:
            continue
        signal.signal(sig, _handler)


@contextmanager
def critical() -> Iterator[None]:
    """Hold signals until the block ends (then the first one held is raised)."""
    _state["depth"] += 1
    try:
        yield
    finally:
        _state["depth"] -= 1
        if not _state["depth"] and _held:
            signum = _held[0]
            _held.clear()
            raise Interrupted(signum)

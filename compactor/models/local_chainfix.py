"""A failed chain ``A && B && C`` is fixed when each of its parts later ran and succeeded, in one
later call or in several (blind check 75 W1).

em_vpn: ``sudo nmcli connection modify "Profile 1" … && sudo nmcli connection down "Profile 1"
&& sudo nmcli connection up "Profile 1"`` failed ("sudo: a terminal is required"); the agent
re-ran it as two calls, ``echo PW | sudo -S nmcli connection modify … 2>/dev/null`` and ``echo PW
| sudo -S nmcli connection down … 2>/dev/null && echo PW | sudo -S nmcli connection up …
2>/dev/null``, both succeeded ("Connection successfully activated"), yet section 4 said "Not
retried afterwards": no single later call held the whole chain (:mod:`.local_retries`).

:class:`Chains` keeps, for each failed shell call of two or more working parts, the parts no
later success has run yet; :meth:`Chains.ran` takes a later successful call's parts away and
returns the failures it finished. A part is compared as the retry tests read a command (quotes
aside, ``echo PW | sudo -S`` as ``sudo``: :func:`.local_retries.chain_parts`), without a
redirection to ``/dev/null`` or to a stream and without ``sudo`` itself; a part that only prints
or waits (``echo "---"``, ``sleep 2``) needs no later run. A later call that holds ``||`` (one
part run in place of another) or hides errors (``… || true``) finishes nothing."""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of
from compactor.facts.filteredrun import hides_errors

from .local_records import ErrorFact
from .local_retries import chain_parts

__all__ = ["Chains"]

_LAST_RE = lazy_pattern(r";|\n")
_IDLE = frozenset({"echo", "printf", "sleep", "true", ":", "clear"})
"""Programs of a part that does no work a retry must repeat."""


def _working(command: str) -> frozenset[str]:
    """The parts of ``command`` that do work (see the module doc)."""
    return frozenset(p for p in chain_parts(command) if p.split(" ", 1)[0] not in _IDLE)


class Chains:
    """The failed chains whose parts are not all run again yet."""

    def __init__(self) -> None:
        self._left: dict[int, tuple[ErrorFact, set[str]]] = {}

    def failed(self, err: ErrorFact, call: Call) -> None:
        """Note a failed call: a chain of two working parts or more is followed."""
        command = command_of(call) or ""
        if "&&" not in command and ";" not in command and "\n" not in command:
            return
        parts = _working(command)
        if len(parts) >= 2:
            self._left[id(err)] = (err, set(parts))

    def ran(self, call: Call, tried: set[int]) -> list[ErrorFact]:
        """The followed failures whose last parts the succeeding ``call`` ran (then forgotten);
        those whose ids are in ``tried`` the call retried whole, and its retry test judged."""
        if not self._left:
            return []
        command = command_of(call) or ""
        if not command or hides_errors(command):
            return []
        if ";" in command or "\n" in command:  # `A; B`: its status is B's (A may have failed)
            command = _LAST_RE.split(command.rstrip("; \n"))[-1]
        parts = _working(command)
        if not parts:
            return []
        done: list[ErrorFact] = []
        for key, (err, left) in list(self._left.items()):
            if err.after and err.after != "failed again":
                del self._left[key]  # fixed, interrupted or pending: judged already
                continue
            if key in tried:
                continue
            left.difference_update(
                p for p in list(left) if any(q == p or q.startswith(p + " |") for q in parts)
            )
            if not left:
                done.append(err)
                del self._left[key]
        return done

"""The failures a session's walk records, and which later result decides each one's fate.

:class:`Failures` is where :func:`~.local_session.build_session` sends every tool result:
:meth:`Failures.failure` records a failed one (and marks the earlier failures it retried as
"failed again" or "interrupted"), :meth:`Failures.success` decides which earlier failures a
succeeding call fixed (a retry of the same command or of its stage: :mod:`.local_retries`,
:mod:`.local_stages`), and :meth:`Failures.settle` decides, once the walk is over, what a failure
without a verdict waits for. :func:`judge_last_runs`, the last judge of all, decides whether a
fix by another command held: the last run of the failed command decides.
"""

from __future__ import annotations

from compactor._json import JsonObject
from compactor.facts import STOPPED, Call, Entry, Outcome, Result, command_of
from compactor.facts.filteredrun import hides_errors
from compactor.facts.masked import reran
from compactor.facts.wrappedread import is_wrapped_read

from .local_again import FailedAgain
from .local_chainfix import Chains
from .local_ctrlc import writes_ctrl_c
from .local_editrelated import edit_pairs, related_edit
from .local_records import ErrorFact
from .local_retries import (
    job_started,
    piped_error,
    reruns_stopped,
    restated,
    retries,
    signature,
    waited_out,
)
from .local_stages import Stages
from .local_standin import only_help, retry_tied, vacuous
from .local_text import call_line
from .local_writefix import same_file, shell_writes, written_file

__all__ = ["Failures", "judge_last_runs"]

_RETRY_WINDOW = 64  # a retry is looked for among the last this-many unfixed errors
_REFUSED = "The user rejected this call"  # how compactor.facts.outcome says so
_BY = 160
_SAME = 120
_CONTENT = ("content", "file_text")


class Failures:
    """The session's failed calls (``errors``, ``failed_calls``: the :class:`.Session`'s own
    list and set) and the state that judges them while the walk goes on."""

    def __init__(
        self, errors: list[ErrorFact], failed_calls: set[str], requests: list[Entry]
    ) -> None:
        self.errors, self.failed_calls = errors, failed_calls
        self.requests = requests  # the session's user requests so far (the walk's own list)
        self.stages = Stages()  # restores and build stages
        self.unfixed: list[ErrorFact] = []
        self.again = FailedAgain()  # a failure's later failing retries (BENCH45 W4)
        self.chains = Chains()  # a failed `A && B` whose parts later calls ran (blind 75 W1)
        self.edits: dict[int, tuple[JsonObject, int]] = {}  # a failed edit's arguments (75 N3)
        self.edit_count = 0  # the edits seen so far (the next one retries a failed one: 78 W1)
        self.writes: dict[int, tuple[ErrorFact, str]] = {}  # a failed write's file (80 W1)

    def _related(self, err: ErrorFact, call: Call) -> bool:
        """Whether ``call`` may retry ``err`` as an edit: ``err`` is no failed string edit, or
        ``call`` relates to it (:func:`.related_edit`; the next edit, no request between)."""
        if id(err) not in self.edits:
            return True
        args, count = self.edits[id(err)]
        return related_edit(args, call, count == self.edit_count and not self._asked_since(err))

    def _asked_since(self, err: ErrorFact) -> bool:
        return bool(self.requests) and self.requests[-1].index > err.index

    def failure(self, call: Call, oc: Outcome, index: int, reading: bool) -> None:
        sig, by = signature(call), ""  # by: the call's line, made once (not once an error)
        stopped = oc.lines[0] if oc.lines and oc.lines[0].startswith(STOPPED) else ""
        refused = oc.lines[0] if oc.lines and oc.lines[0].startswith(_REFUSED) else ""
        after, why = (
            ("interrupted", stopped or refused) if stopped or refused else ("failed again", "")
        )
        tries = [] if writes_ctrl_c(call) else self.unfixed[-_RETRY_WINDOW:]  # a stop (43 W2)
        err = ErrorFact(call_line(call, 300), oc, index, sig, reading, is_wrapped_read(call))
        for old in reran(tries, call):  # not a re-read (set 21)
            if (
                old.signature[0] == sig[0] and old.index < index
                and retries(old.signature, sig) and retry_tied(old, sig, index)  # (BENCH46 W1)
                and self._related(old, call)  # another change of the file (78 W1)
            ):  # fmt: skip
                old.after, old.by, old.why = after, (by := by or call_line(call, _BY)), why
                self.again.link(old, err)
        self.failed_calls.add(call.id)
        if stopped:  # the user stopped it: neither a success nor a failure to fix
            err.after, err.why = "interrupted", stopped
        self.errors.append(err)
        self.unfixed.append(err)
        if not stopped and (file := written_file(call)):
            self.writes[id(err)] = (err, file)
        if sig[0] == "shell" and not stopped:
            self.chains.failed(err, call)
        elif edit_pairs(call.args):
            self.edit_count += 1
            self.edits[id(err)] = (call.args, self.edit_count)
        elif _edits(call):
            self.edit_count += 1

    def success(self, call: Call, r: Result, index: int, reading: bool) -> None:
        sig, fixed, by, job, piped = signature(call), False, "", None, None
        looked: bool | None = None  # a read, ``bash -lc 'sed -n …'`` too, fixes no build
        hidden: bool | None = None  # these two: of the call alone, judged once (not per error)
        empty: bool | None = None
        self.stages.note(sig, index)  # a restore (a build blocked before it may pass now)
        tries = [] if writes_ctrl_c(call) else self.unfixed[-_RETRY_WINDOW:]  # a stop (43 W2)
        tried: set[int] = set()  # the failures this call retried whole (judged above)
        for err in (e for e in tries if e.signature[0] == sig[0]):
            if err.index < index and (
                (
                    retries(err.signature, sig)
                    and retry_tied(err, sig, index)  # (41 W8)
                    and self._related(err, call)
                    and (err.after != "interrupted" or reruns_stopped(err.signature, sig))
                )
                or self.stages.fixes(err, sig, r.text)
            ):  # the same job: `dotnet test` builds (local_stages)
                tried.add(id(err))
                looked = (reading or is_wrapped_read(call)) if looked is None else looked
                if (looked and not (err.reading or err.probe)) or waited_out(r.text):
                    continue  # a wait that timed out ended nothing (blind check 29 W4)
                hidden = hides_errors(command_of(call) or "") if hidden is None else hidden
                if hidden:  # `| grep NAME || echo ok` (blind check 35)
                    continue
                if only_help(err, call, r.text):  # `x.ps1 -Help` fixes nothing (41 W3)
                    continue
                empty = vacuous(call, r.text) if empty is None else empty
                if empty:  # a test run that ran no test (BENCH49 W2)
                    continue
                by = by or call_line(call, _BY)
                job = job_started(r.text) if job is None else job  # its job's end decides
                piped = piped_error(command_of(call) or "", r.text) if piped is None else piped
                said = piped or restated(err.outcome, r.text)  # or it printed the error
                if job or (said and not reading):  # a pipe hid the exit status
                    err.after, err.by, err.job = "retry pending" if job else "failed again", by, job
                    err.why = f"its output says: {said}" if not job else err.why
                    continue
                err.after, err.by, err.why = "fixed", by, ""  # not an earlier verdict's why
                self.again.fixed(err, by)  # and the failures it retried (BENCH45 W4)
                fixed = True
        if _edits(call):
            self.edit_count += 1
        if (
            sig[0] == "shell"
            and not waited_out(r.text)
            and not (piped if piped is not None else piped_error(command_of(call) or "", r.text))
        ):
            for err in self.chains.ran(call, tried):  # its last parts ran (blind check 75 W1)
                if restated(err.outcome, r.text):
                    continue  # it printed the chain's error
                err.after, err.by, err.why = "fixed", by or call_line(call, _BY), ""
                self.again.fixed(err, err.by)
                fixed = True
        if sig[0] == "shell" and self.writes and (command := command_of(call)):
            fixed = self._rewritten(command, call) or fixed
        if fixed:
            self.unfixed = [e for e in self.unfixed if e.after != "fixed"]

    def _rewritten(self, command: str, call: Call) -> bool:
        """A failed write whose file this succeeding shell command wrote (``cat > F <<EOF``) is
        fixed by it (blind check 80 W1)."""
        files = shell_writes(command)
        done = [k for k, (_, f) in self.writes.items() if any(same_file(f, g) for g in files)]
        for key in done:
            err = self.writes.pop(key)[0]
            if err.after in ("", "failed again"):
                err.after, err.by, err.why = "fixed", call_line(call, _BY), ""
                self.again.fixed(err, err.by)
        return bool(done)

    def settle(self, in_flight: list[Call]) -> None:
        """At the walk's end: a failure without a verdict whose retry has no result yet is
        "retry pending"."""
        for err in self.errors:
            if err.after:
                continue
            for call in in_flight:
                if call.index > err.index and retries(err.signature, signature(call)):
                    err.after, err.by = "retry pending", call_line(call, _BY)
                    break


def _edits(call: Call) -> bool:
    """Whether ``call`` is a string edit or a write of a whole file."""
    args = call.args
    return bool(edit_pairs(args)) or any(isinstance(args.get(k), str) for k in _CONTENT)


def judge_last_runs(errors: list[ErrorFact]) -> None:
    """A failure "fixed" by another command (``npx claude`` for ``claude``) whose own command
    failed again later, that later failure not fixed, is "failed again" by that later run: the
    last attempt decides (blind check 70 W4: ``claude --version`` failed, ``npx claude
    --version`` succeeded, and plain ``claude --version`` failed again later). A run of the same
    command that fixed it makes a later failure a new one.

    Run after every other judge (:func:`~.local_judges.modelled`): it reads the final verdict
    of the later failure, which later judges may give ("worked around by …" leaves it open), and
    its verdict must be final (a "failed again" here is not one :mod:`.local_retrychain` may
    resolve through that later failure).
    """
    for n, err in enumerate(errors):
        if err.after != "fixed" or not err.by or err.job or err.by[:_SAME] == err.call[:_SAME]:
            continue
        again = [e for e in errors[n + 1 :] if e.call == err.call and e.index > err.index]
        if again and again[-1].after not in ("fixed", "interrupted"):
            err.after, err.by, err.why, err.via = "failed again", again[-1].call[:_BY], "", ""

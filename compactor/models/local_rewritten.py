"""A failed whole-file write that a later call made anyway (issue 28, blind check 26 W2).

cc-matt: ``Write(/home/u/vercel.json)`` failed ("File has not been read yet"); two calls later
``cat > vercel.json << 'EOF' … EOF`` wrote the same file, yet section 7 listed "Unresolved
failure: Write(/home/u/vercel.json)". A failed call that writes a whole file (its arguments carry
the file's path and its ``content``) is fixed when a later call of any tool changed that file
(the session model's file list: a heredoc, ``tee``, a script's writes, another Write)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from compactor.facts import Call

from .local_patchfix import judge_patch_rewrites
from .local_records import ErrorFact
from .local_shellwrite import judge_edit_rewrites
from .local_text import call_line

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["judge_rewritten"]

_PATH_KEYS = ("file_path", "path", "filename")


def judge_rewritten(s: Session) -> None:
    """Mark ``fixed`` each open failure of a whole-file write whose file a later call changed,
    and each failed patch whose file a later call changed (blind check 37 W5)."""
    judge_patch_rewrites(s)
    judge_edit_rewrites(s)  # an edit's file a shell call wrote (BENCH49 W5)
    open_errors = [e for e in s.errors if not e.after and e.signature[0] != "shell"]
    if not open_errors:
        return
    writes = [c for c in s.calls if c.id in s.failed_calls and "content" in c.args]
    for err in open_errors:
        call = next((c for c in reversed(writes) if c.index < err.index and _is(err, c)), None)
        if call is None or not isinstance(call.args.get("content"), str):
            continue
        path = next((v for k in _PATH_KEYS if isinstance(v := call.args.get(k), str) and v), "")
        state = s.files.get(path)
        later = [i for i in state.changed_at if i > err.index] if state is not None else []
        if later:
            base = path.rsplit("/", 1)[-1]
            by = [c for c in s.calls if c.index < later[0] and base in c.arguments]
            err.after, err.why = "fixed", ""
            err.by = call_line(by[-1], 160) if by else f"a write of {path}"


def _is(err: ErrorFact, call: Call) -> bool:
    return err.call == call_line(call, 300)

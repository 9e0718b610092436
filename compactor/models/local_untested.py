"""Code changed for an answered request that nothing ran afterwards says so (blind check 70 N3).

cj_compact ended with the assistant's "API 커버리지: 100% … 모든 기능이 구현되었습니다" (every
feature implemented) after twelve new tools were edited into ``client.py`` and ``server.py``; no
install, run or test call followed the edits, and the summary relayed the claim without that
caveat. A resuming agent reads "completed" and never checks that the code even imports.

:func:`untested_items` walks the calls of the current request in order: a call that changes a
code file (by a file tool, a patch or the shell) is an edit; a call that may run code is a run:
a shell command that does not only read, list or search and is no housekeeping (``git``, ``mkdir``,
``mv`` …), or a tool that is neither a file tool nor the agent's bookkeeping (an MCP server's tool,
a browser); a sub-agent whose tools include a shell. When the last edit of a code file has no run
after it, the line names the last run before it (or says there was none).
"""

from __future__ import annotations

from compactor.facts import Call, command_of, is_reading_call, main_program

from .local_files import file_changes
from .local_session import Session
from .local_text import call_line, code

__all__ = ["untested_items"]

_CODE_SUFFIXES = frozenset(
    ".py .pyw .js .mjs .cjs .ts .tsx .jsx .mts .go .rs .java .kt .kts .rb .php .c .h .cc .cpp "
    ".cxx .hpp .cs .swift .scala .lua .dart .vue .svelte .ex .exs .zig .m .mm .sh .ps1 .pl .r "
    ".jl".split()
)
_NO_RUN_PROGRAMS = frozenset(
    "git echo printf mkdir rmdir cp mv rm touch chmod chown ln pwd which whoami sleep kill pkill "
    "killall date clear open code start explorer gh tee".split()
)
"""Programs whose run exercises none of the project's code."""
_NO_RUN_TOOLS = frozenset(
    "read write edit multiedit notebookedit notebookread glob grep ls todowrite todoread "
    "webfetch websearch exitplanmode enterplanmode askuserquestion skill killbash killshell "
    "bashoutput taskoutput taskstop update_plan view_image str_replace_based_edit_tool "
    "apply_patch".split()
)
"""Tools that read, change files or keep the agent's books: none runs the code."""
_SHELLS = ("bash", "shell", "exec_command", "powershell")


def _is_code(path: str) -> bool:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return "." in name and "." + name.rsplit(".", 1)[-1] in _CODE_SUFFIXES


def _runs(call: Call) -> bool:
    """Whether ``call`` may run the project's code (module docstring)."""
    command = command_of(call)
    if command is not None:
        program = main_program(command).split(" ", 1)[0]
        return not is_reading_call(call) and program not in _NO_RUN_PROGRAMS
    name = call.name.lower()
    if call.subagent is not None:
        return any(t.lower() in _SHELLS for t in call.subagent)
    if name in ("task", "agent"):
        return False
    return name not in _NO_RUN_TOOLS and not is_reading_call(call)


def untested_items(s: Session, since: int, width: int) -> list[str]:
    """For an answered request (its message at entry ``since``) whose last code edit no run
    followed: one line saying so (module docstring); none otherwise."""
    if not s.turn_ended:
        return []
    edit: Call | None = None
    run: Call | None = None
    ran_after = False
    for c in s.calls:
        if c.index <= since or c.id not in s.answered:
            continue
        changes = [] if c.id in s.failed_calls else file_changes(c)
        if any(_is_code(ch.path) for ch in changes if ch.action != "deleted"):
            edit, ran_after = c, False
        if _runs(c):
            run, ran_after = c, True
    if edit is None or ran_after:
        return []
    if run is not None and run.index < edit.index:
        what = (
            f"the code edits since {code(call_line(run, width // 2))} (the last call that ran "
            "anything) were not run or tested"
        )
    else:
        what = "the code edits for it were never run or tested"
    return [
        f"Not checked: {what}: no build, install, test or run call followed the last edit "
        f"({call_line(edit, width // 2)}), so the answer's claims about them are unverified"
    ]

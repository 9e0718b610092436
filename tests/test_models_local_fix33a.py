"""Blind check 33 (fix33a): a later call fixes a failure only when it runs the same program and
step on the same path, whatever directory change both start with (W1-W3); a listing or delete of
a path that is not there is a fact, not a failure (W1, W2); pasted runs of one command with other
output are different messages, not one "edited" (W4); a failed legacy ``apply_patch`` heredoc
changed nothing (N2); an answer to a long question is quoted whole (N6). Every session is built
here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts.resent import edited_again
from compactor.facts.samecommand import core_command, leading_cd, unwrapped
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_noise import collapse_resent

from .cc_session import Session as CcSession
from .codex_rollout import rec
from .test_finalize import REPLY, A, U, block_lines, direct
from .test_models_local_session import section


def _codex(records: list[dict[str, Any]], tmp_path: Path) -> str:
    head = rec("session_meta", {"id": "1a2b3c4d-0000-4000-8000-000000000133", "cwd": "/w/kit"})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _message(role: str, text: str) -> dict[str, Any]:
    kind = "input_text" if role == "user" else "output_text"
    body = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
    return rec("response_item", body)


class _Calls:
    """``shell_command`` calls (Codex 0.6x, the PowerShell or zsh command as one string) with
    their ``Exit code: N`` outputs, and ``apply_patch`` custom calls."""

    def __init__(self) -> None:
        self.n = 0

    def _id(self) -> str:
        self.n += 1
        return f"call_{self.n}"

    def shell(self, command: str, code: int, out: str) -> list[dict[str, Any]]:
        cid = self._id()
        args = json.dumps({"command": command, "workdir": "/w/kit"})
        call = {"type": "function_call", "name": "shell_command", "call_id": cid, "arguments": args}
        text = f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{out}"
        result = {"type": "function_call_output", "call_id": cid, "output": text}
        return [rec("response_item", call), rec("response_item", result)]

    def patch(self, path: str, old: str, new: str) -> list[dict[str, Any]]:
        cid = self._id()
        body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
        call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": cid, "input": body}
        out = {"output": f"Success. Updated the following files:\nM {path}\n"}
        out["metadata"] = {"exit_code": 0}  # type: ignore[assignment]
        result = {"type": "custom_tool_call_output", "call_id": cid, "output": json.dumps(out)}
        return [rec("response_item", call), rec("response_item", result)]


_CD = "cd /Users/dev/repos/lintkit && "
_PS = "Set-Location -Path C:\\Users\\dev\\scanapp; "
_FRONT = "Set-Location -Path C:\\Users\\dev\\scanapp\\frontend; "
_GONE = "Remove-Item: Cannot find path 'C:\\Users\\dev\\scanapp\\{0}' because it does not exist.\n"
_TS = (
    "src/services/roles.service.ts(1,1): error TS6133: 'x' is declared but its value is never "
    "read.\nsrc/services/export.service.ts(40,22): error TS2322: Type 'string' is not "
    "assignable to type 'number'.\n"
)


def _folder_session() -> list[dict[str, Any]]:
    """cx-dslint's and cx-ocr's shapes: every call starts with the same directory change; a
    listing of a missing folder, two deletes of files that were not there, a failed build; a
    later call in the same folder does something else; the build passes after an edit."""
    sh = _Calls()
    return [
        _message("user", "Start the new feature, drop the old docker files, make the build pass."),
        *sh.shell(_CD + "ls specs 2>/dev/null", 1, ""),
        *sh.shell(_CD + "ls .specify/scripts/bash", 0, "create-new-feature.sh\ncommon.sh\n"),
        *sh.shell(_PS + "Remove-Item Dockerfile.dev", 1, _GONE.format("Dockerfile.dev")),
        *sh.shell(_PS + "Remove-Item backend/Dockerfile.dev", 0, ""),
        *sh.shell(_PS + "Remove-Item backend/compose.yml", 1, _GONE.format("backend\\compose.yml")),
        *sh.shell(_PS + "Remove-Item .dockerignore", 0, ""),
        *sh.shell(_FRONT + "npm run --silent build", 1, _TS),
        *sh.shell(_FRONT + "Get-Content src/services/roles.service.ts", 0, "import x from 'y';\n"),
        _message("assistant", "I'll fix the two type errors."),
        *sh.patch("frontend/src/services/roles.service.ts", "import x from 'y';", ""),
        *sh.shell(_FRONT + "npm run --silent build", 0, "vite v5 building...\n✓ built in 5.9s\n"),
        _message("assistant", "The build passes now."),
        _message("user", "thanks, now write the commit message"),
    ]


def _item(errors: str, failed: str) -> str:
    """Section 4's lines about the failure whose call ends with ``failed``."""
    start = errors.index(failed + "` failed")
    rest = errors[start:].split("\n   - `", 1)[0]
    return rest


def test_a_later_call_in_the_same_folder_fixes_only_the_same_command(tmp_path: Path) -> None:
    """Blind check 33 W1-W3: "Fixed: a later `cd DIR && ls .specify/scripts/bash` succeeded" for
    ``ls specs``; a delete "fixed" by the delete of another file; a failed build "fixed" by a
    ``Get-Content`` read: the later call only shared the directory change."""
    errors = section(_codex(_folder_session(), tmp_path), 4)
    listing = _item(errors, "ls specs 2>/dev/null")
    assert "Fixed" not in listing and ".specify" not in listing, errors
    for gone in ("Remove-Item Dockerfile.dev", "Remove-Item backend/compose.yml"):
        deleted = _item(errors, gone)
        assert "Fixed" not in deleted and "Worked around" not in deleted, errors
        assert "backend/Dockerfile.dev" not in deleted and ".dockerignore" not in deleted, errors
    build = _item(errors, "npm run --silent build")
    assert "Get-Content" not in build, errors
    assert "Fixed" in build and build.count("npm run --silent build") == 2, errors


def test_a_listing_or_delete_of_a_missing_path_is_a_fact(tmp_path: Path) -> None:
    """``ls X 2>/dev/null`` that printed nothing, PowerShell's "Cannot find path … because it
    does not exist" on a delete, and ``rm``'s "No such file or directory" are facts found, wrapped
    in a directory change or not."""
    errors = section(_codex(_folder_session(), tmp_path), 4)
    listing = _item(errors, "ls specs 2>/dev/null")
    assert "A fact it established (not a failure to fix): `specs` is not there" in listing, errors
    for gone in ("Remove-Item Dockerfile.dev", "Remove-Item backend/compose.yml"):
        deleted = _item(errors, gone)
        assert "A fact it established (not a failure to fix)" in deleted, errors
        assert "nothing to delete" in deleted, errors
    sh = _Calls()
    gone = "rm: cannot remove 'notes/old.md': No such file or directory\n"
    records = [
        _message("user", "Tidy the notes folder."),
        *sh.shell("rm notes/old.md", 1, gone),
        *sh.shell("rm notes/draft.md", 0, ""),
        _message("assistant", "Tidied."),
    ]
    errors = section(_codex(records, tmp_path), 4)
    deleted = _item(errors, "rm notes/old.md")
    assert "A fact it established" in deleted and "Fixed" not in deleted, errors


def test_the_legacy_wrapped_form_is_judged_alike(tmp_path: Path) -> None:
    """The legacy Codex ``shell`` tool runs ``bash -lc 'cd DIR && …'``: its directory change is
    inside the wrapper, and no more a shared target there than outside."""

    def legacy(n: int, script: str, code: int, out: str) -> list[dict[str, Any]]:
        args = json.dumps({"command": ["bash", "-lc", script]})
        call = {"type": "function_call", "name": "shell", "call_id": f"s{n}", "arguments": args}
        text = f"Exit code: {code}\nOutput:\n{out}"
        result = {"type": "function_call_output", "call_id": f"s{n}", "output": text}
        return [rec("response_item", call), rec("response_item", result)]

    cd = "cd /w/kit && "
    records = [
        _message("user", "Start the feature and build it."),
        *legacy(1, cd + "ls specs 2>/dev/null", 1, ""),
        *legacy(2, cd + "ls .specify/scripts/bash", 0, "common.sh\n"),
        *legacy(3, cd + "npm run build", 1, _TS),
        *legacy(4, cd + "cat src/services/roles.service.ts", 0, "import x from 'y';\n"),
        _message("assistant", "Done looking."),
    ]
    errors = section(_codex(records, tmp_path), 4)
    listing = _item(errors, "ls specs 2>/dev/null")
    assert "Fixed" not in listing and "`specs` is not there" in listing, errors
    build = _item(errors, "npm run build")
    assert "Fixed" not in build and "Next call after it: `shell: bash -lc cd" in build, errors


def test_a_directory_change_is_where_a_command_ran_not_what_it_ran() -> None:
    assert leading_cd(_PS + "Remove-Item a.txt") == ("C:\\Users\\dev\\scanapp", "Remove-Item a.txt")
    assert leading_cd("set-location 'C:\\a b'; npm test") == ("C:\\a b", "npm test")
    assert leading_cd("cd /w && ls") == ("/w", "ls")
    assert leading_cd("ls /w") == ("", "ls /w")
    assert core_command(_FRONT + "npm run build") == "npm run build"  # fix32a's variants too
    assert core_command("cd /w && PYTHONPATH=. pytest -q") == "pytest -q"
    assert unwrapped("bash -lc cd /w && ls") == "cd /w && ls" and unwrapped("ls -la") == "ls -la"


# -- W4: pasted runs of one command are different messages -----------------------------------------

_PROMPT = (
    "PS C:\\Users\\dev\\Desktop\\scanapp> curl.exe -X POST http://localhost:3000/api/scan `\n"
    '>> -F "images=@C:\\Users\\dev\\Desktop\\scanapp\\data\\sample_0002.jpg"\n'
)
_PAGE = (
    "<!DOCTYPE html><html><head><title>500: Internal Server Error</title></head><body>"
    "<pre>Module not found: Can't resolve '../../shared/report.schema'</pre></body></html>"
)


def _aborted(ms: int) -> str:
    return (
        '{"success":false,"error":"Request was aborted."}\n server log:\n Error: Request was '
        f"aborted.\n    at async POST (app/api/scan/route.ts:41:18)\n    timeout: {ms} ms\n"
    )


_OK = '{"success":true,"data":{"patient":"Taro","height_cm":171.2,"blood_pressure":"118/76"}}'
_RUNS = [_PROMPT + out for out in (_PAGE, _aborted(10_000), _aborted(20_000), _OK)]


def test_pasted_runs_of_one_command_are_different_messages() -> None:
    """cx-ocr: four pastes of one ``curl.exe`` line with a 500 page, two aborts and the success
    were one message "sent 4 times, edited; the last version" in the re-inserted block."""
    history: list[Any] = [U("Build the scan endpoint and let me test it."), A("Built.")]
    for n, text in enumerate(_RUNS):
        history += [U(text), A(f"Fixed step {n}.")]
    history.append(U("great, write the commit message"))
    lines = "\n".join(block_lines(direct(history, A(REPLY), earlier_user_chars=4_000)))
    assert "sent 4 times" not in lines and "edited; the last version" not in lines, lines
    for marker in ("Module not found", "timeout: 10000 ms", "timeout: 20000 ms", '"success":true'):
        assert marker in lines, (marker, lines)
    runs = collapse_resent(_RUNS)  # the local summary's own list (section 6)
    assert [label for _, label in runs] == ["", "", "", ""], runs


def test_an_edited_message_sent_again_is_still_one() -> None:
    """Not every shared start is a paste: a message interrupted and sent again with an edit, or
    a pasted run sent again with more of its output, is one message."""
    ask = "Please refactor the export service so that every CSV column is typed and validated " * 2
    assert edited_again(ask + "before writing.", ask + "before it is written.")
    assert edited_again(_RUNS[1], _RUNS[1] + "    at process.processTicksAndRejections\n")
    assert not edited_again(_RUNS[1], _RUNS[2]) and not edited_again(_RUNS[0], _RUNS[3])
    history: list[Any] = [U(ask + "before writing."), U(ask + "before it is written."), A("ok")]
    history.append(U("and the tests"))
    lines = "\n".join(block_lines(direct(history, A(REPLY), earlier_user_chars=4_000)))
    assert "(sent 2 times, edited; the last version)" in lines, lines


# -- N2: a failed legacy apply_patch heredoc changed nothing ---------------------------------------


def _legacy_patch(n: int, path: str, old: str, new: str, applied: bool) -> list[dict[str, Any]]:
    script = (
        f"apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n"
        "*** End Patch\nPATCH"
    )
    args = json.dumps({"command": ["bash", "-lc", script], "workdir": "/w/kit"})
    call = {"type": "function_call", "name": "shell", "call_id": f"p{n}", "arguments": args}
    out = (
        f"Success. Updated the following files:\nM {path}\n"
        if applied
        else f"apply_patch verification failed: Failed to find expected lines in /w/kit/{path}:\n"
        f"- {old}\n"
    )
    result = {"type": "function_call_output", "call_id": f"p{n}", "output": out}
    return [rec("response_item", call), rec("response_item", result)]


def test_a_failed_legacy_apply_patch_changes_nothing(tmp_path: Path) -> None:
    """cx-udocket (Codex 0.58, legacy ``shell``): "constitution.md (7 changes)" where 4 patches
    applied; the others' plain output said "apply_patch verification failed", no exit code."""
    path = "memory/charter.md"
    records = [_message("user", "Renumber the charter's principles.")]
    for n, (old, applied) in enumerate(
        [("Principle 1", True), ("Principle 9", False), ("Principle 8", False), ("P 2", True)]
    ):
        records += _legacy_patch(n, path, old, old.upper(), applied)
    records += [_message("assistant", "Renumbered."), _message("user", "thanks")]
    text = _codex(records, tmp_path)
    files = section(text, 3)
    assert "(edited by shell, 2 changes)" in files, files
    errors = section(text, 4)
    assert errors.count("apply_patch verification failed") == 2, errors


# -- N6: an answer to a long question is quoted whole ----------------------------------------------

_LONG_Q = (
    "The three markerless loops (the boot delay, the UART poll and the timer calibration in "
    "demo_roundtrip.sh) still call icount_spin to burn cycles while the guest waits. With the "
    "marked loops moved to the hybrid handoff, how should the plan treat these three when the "
    "new timing mode is on, and should they be able to switch back?"
)
_ANSWER = "Keep them as they are for now but you could add a macro to enable/disable it"


def test_an_answer_to_a_long_question_is_quoted_whole(tmp_path: Path) -> None:
    """cc-hsim32 §1: "you could add a macro to" of an answer ending "…to enable/disable it": the
    question's text took the room of the answer."""
    s = CcSession()
    s.user("Plan how the emulator should handle the spin loops in the timing demo.")
    s.bash("grep -rn icount_spin src/", "src/cpu.c:12: icount_spin(3);")
    second = "Should the thresholds be fixed constants or self-calibrated at start-up?"
    options = [{"label": "Keep as is", "description": "no change"}, {"label": "Drop them"}]
    questions = [
        {"question": _LONG_Q, "header": "Spin", "multiSelect": False, "options": options},
        {"question": second, "header": "Limits", "multiSelect": False, "options": options},
    ]
    ask = {"type": "tool_use", "id": "toolu_q1", "name": "AskUserQuestion"}
    s.assistant(
        [{"type": "text", "text": "Two questions."}, {**ask, "input": {"questions": questions}}]
    )
    said = (
        f'User has answered your questions: "{_LONG_Q}"="{_ANSWER}", "{second}"="Fixed constants".'
    )
    s.user([{"type": "tool_result", "tool_use_id": "toolu_q1", "content": said}])
    s.say("I'll write the plan with a macro and fixed constants.")
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    text = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    intent = section(text, 1)
    assert f") {_ANSWER};" in intent, intent
    assert "guest…" in intent, intent  # the question is cut, and says so
    assert _ANSWER in section(text, 6), text

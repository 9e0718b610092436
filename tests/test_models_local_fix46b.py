"""Blind check 46, W2 and W4 (helper fix46b, rows 2150-2169).

W2: files written by tools were listed at their first paths after later shell calls renamed
their folders (to lowercase, through temporary names), moved one into another root
(``~/.codex/skills`` → ``~/.agents/skills``) and removed the link left in its place. W4: "T030 is
still unchecked because …" stayed a decision after a later patch checked T030. Every session is
built here, by shape, with invented content."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from compactor.models.local_home import aliases, folds_case, home_of, tilde

from .cc_session import Session
from .codex_rollout import codex_say, codex_summary, codex_user, rec

_HOME = "/Users/ann"
_CWD = f"{_HOME}/proj"


def _part(summary: str, number: int) -> str:
    """Section ``number`` of the summary (its heading line to the next section's)."""
    body = summary.split("<summary>", 1)[-1]
    heads = list(re.finditer(r"(?m)^(\d)\. [A-Z][^\n]*:$", body))
    for n, head in enumerate(heads):
        if head.group(1) == str(number):
            end = heads[n + 1].start() if n + 1 < len(heads) else len(body)
            return body[head.start() : end]
    raise AssertionError(f"no section {number}")


class _Rollout:
    """A Codex rollout: ``exec_command`` calls (their exit codes in the output's header) and
    ``apply_patch`` calls."""

    def __init__(self, cwd: str = _CWD) -> None:
        self.records: list[dict[str, Any]] = [rec("turn_context", {"cwd": cwd})]
        self.cwd = cwd
        self.n = 0

    def _pair(self, call: dict[str, Any], out: dict[str, Any]) -> None:
        self.records += [rec("response_item", call), rec("response_item", out)]

    def exec(self, cmd: str, output: str = "", code: int = 0) -> None:
        self.n += 1
        key = f"call_{self.n}"
        head = f"Chunk ID: {self.n}\nWall time: 0.1 seconds\nProcess exited with code {code}\n"
        self._pair(
            {"type": "function_call", "name": "exec_command", "call_id": key,
             "arguments": json.dumps({"cmd": cmd})},
            {"type": "function_call_output", "call_id": key, "output": head + "Output:\n" + output},
        )  # fmt: skip

    def patch(self, body: str) -> None:
        self.n += 1
        key = f"call_{self.n}"
        said = {"output": "Success. Updated the following files:\n", "metadata": {"exit_code": 0}}
        self._pair(
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": key, "input": body},
            {"type": "custom_tool_call_output", "call_id": key, "output": json.dumps(said)},
        )

    def user(self, text: str) -> None:
        self.records.append(codex_user(text))

    def say(self, text: str) -> None:
        self.records.append(codex_say(text))

    def summary(self, tmp_path: Path) -> str:
        return codex_summary(self.records, tmp_path, "s-46b", self.cwd)


# -- W2: folders renamed, moved to another root, removed or replaced by a link ------------------

_REGISTRY = "skills:\n  - id: lint-runtime\n    file: skills/lint-runtime/SKILL.md\n"


def _written(r: _Rollout) -> None:
    """Skill, registry, hook and rule files written under ~/.codex (as ``$HOME/…``, ``~/…`` and
    by ``apply_patch`` at the home folder's absolute path)."""
    r.user("set up the global skills, hooks and rules")
    r.exec(
        'mkdir -p "$HOME/.codex/skills/tidy-flow" && cat > "$HOME/.codex/skills/tidy-flow/SKILL.md"'
        " <<'EOF'\n---\nname: tidy-flow\n---\nStep one\nEOF\necho WROTE",
        "WROTE\n",
    )
    r.exec(
        "mkdir -p ~/.codex/Skills ~/.codex/Hooks/_internal && cat > ~/.codex/Skills/registry.yaml"
        f" <<'EOF'\n{_REGISTRY}EOF\ncat > ~/.codex/Hooks/_internal/pipeline <<'EOF'\n#!/bin/sh\n"
        "echo hook\nEOF"
    )
    r.patch(
        f"*** Begin Patch\n*** Add File: {_HOME}/.codex/Rules/base.md\n+# Rules\n*** End Patch\n"
    )
    r.say("Wrote the skills, hooks and rules.")


def test_folders_renamed_through_temp_names_and_moved_to_another_root_carry_their_files(
    tmp_path: Path,
) -> None:
    """cx-global (blind check 46 W2): ``mv Hooks hooks.tmp && mv hooks.tmp hooks`` (and so on)
    in ``cd "$HOME/.codex"``, then ``mv "$HOME/.codex/skills" "$HOME/.agents/skills"``, a link
    in its place, and the link removed; §3 listed the four files at their first paths."""
    r = _Rollout()
    _written(r)
    r.user("use lowercase folder names")
    r.exec(
        'set -euo pipefail\ncd "$HOME/.codex"\nif [ -d Hooks ]; then mv Hooks hooks.tmp && '
        "mv hooks.tmp hooks; fi\nmv Skills skills.tmp && mv skills.tmp skills\n"
        "mv Rules rules_tmp && mv rules_tmp rules\necho RENAMED_OK",
        "RENAMED_OK\n",
    )
    r.user("move the skills to ~/.agents/skills")
    r.exec(
        'mkdir -p "$HOME/.agents" && mv "$HOME/.codex/skills" "$HOME/.agents/skills" && '
        'ln -s "$HOME/.agents/skills" "$HOME/.codex/skills" && echo MOVED',
        "MOVED\n",
    )
    r.exec('rm "$HOME/.codex/skills" && ls ~/.agents/skills', "registry.yaml\ntidy-flow\n")
    r.say("The skills are in ~/.agents/skills now.")
    files = _part(r.summary(tmp_path), 3)
    moved = {
        "~/.agents/skills/tidy-flow/SKILL.md": "~/.codex/skills/tidy-flow/SKILL.md",
        "~/.agents/skills/registry.yaml": "~/.codex/Skills/registry.yaml",
        "~/.codex/hooks/_internal/pipeline": "~/.codex/Hooks/_internal/pipeline",
        f"{_HOME}/.codex/rules/base.md": f"{_HOME}/.codex/Rules/base.md",
    }
    for new, old in moved.items():
        assert re.search(
            rf"(?m)^   - {re.escape(new)} \(created, then moved from {re.escape(old)}", files
        ), files
    current = [ln for ln in files.splitlines() if ln.startswith("   - ")]
    for stale in ("~/.codex/skills/", "~/.codex/Skills/", "/.codex/Hooks/", "/.codex/Rules/"):
        assert not any(ln.startswith(f"   - {stale}") or f" {stale}" in ln.split(" (")[0]
                       for ln in current), files  # fmt: skip
    assert "id: lint-runtime" in files  # the latest content stays, under the new path
    assert "tmp" not in files, files  # no temporary folder is a file of its own


def test_a_rename_in_a_call_that_failed_moves_nothing(tmp_path: Path) -> None:
    """Guard: the same rename in a call that exited 1 changed nothing: the files stay."""
    r = _Rollout()
    _written(r)
    r.exec('mv "$HOME/.codex/Skills" "$HOME/.agents/skills"', "mv: rename failed\n", code=1)
    r.say("The move failed.")
    files = _part(r.summary(tmp_path), 3)
    assert "~/.codex/Skills/registry.yaml (created" in files, files
    assert ".agents" not in files and "moved from" not in files, files


class _Claude(Session):
    """Claude Code records whose ``cwd`` is ``where``."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def _add(self, rec: dict[str, Any]) -> dict[str, Any]:
        full = super()._add(rec)
        full["cwd"] = self.where
        return full


def _claude(where: str) -> Session:
    return _Claude(where)


def test_claude_bash_moves_and_removals_of_home_folders_follow_every_spelling() -> None:
    """Claude Code: files written by Write at ``/Users/NAME/…``; Bash moves and removes their
    folders as ``~/…``: ``cp -R A B && rm -rf A`` is a move, ``rm -rf $HOME/DIR`` removes, a
    chain of moves ends at its last place."""
    s = _claude(_CWD)
    s.user("write the agent notes")
    for name in ("notes/a.md", "drafts/b.md", "old/c.md"):
        path = f"{_HOME}/.claude/{name}"
        s.call("Write", {"file_path": path, "content": f"# {name}\n"}, f"File created at: {path}")
    s.say("Wrote the notes.")
    s.user("reorganise them")
    s.bash("cp -R ~/.claude/notes ~/.agents/notes && rm -rf ~/.claude/notes", "")
    s.bash('rm -rf "$HOME/.claude/drafts"', "")
    s.bash("mv ~/.claude/old ~/.claude/mid && mv ~/.claude/mid ~/archive", "")
    s.say("Done.")
    files = _part(s.summary(), 3)
    assert (
        f"{_HOME}/.agents/notes/a.md (created, then moved from {_HOME}/.claude/notes/a.md" in files
    )
    assert re.search(rf"{re.escape(_HOME)}/\.claude/drafts/b\.md \(created, then deleted", files), (
        files
    )
    assert f"{_HOME}/archive/c.md (created, then moved from {_HOME}/.claude/old/c.md" in files
    assert "/mid/" not in files, files


def test_the_home_folder_helpers() -> None:
    assert tilde("$HOME/.codex/x") == "~/.codex/x"
    assert tilde('"$HOME"/.codex/x') == "~/.codex/x" == tilde("${HOME}/.codex/x")
    assert tilde("$HOMEDIR/x") == "$HOMEDIR/x" and tilde("$OUT/x") == "$OUT/x"
    assert home_of("/Users/ann/proj") == "/Users/ann" and home_of("/home/bo") == "/home/bo"
    assert home_of("/srv/app") == "" and home_of("/root/x") == "/root"
    assert aliases("~/.codex", "/home/bo") == ("~/.codex", "/home/bo/.codex")
    assert aliases("/home/bo/x", "/home/bo") == ("/home/bo/x", "~/x")
    assert aliases("/srv/x", "/home/bo") == ("/srv/x",) and aliases("~/x", "") == ("~/x",)
    assert folds_case("/Users/ann", "~/x") and not folds_case("/home/bo", "~/x")


def test_on_linux_a_folder_named_in_another_case_is_another_folder() -> None:
    """Guard: outside macOS, ``mv Skills skills.tmp`` leaves the files under ``skills/``."""
    s = _claude("/home/bo/proj")
    s.user("write them")
    for name in ("Skills/a.md", "skills/b.md"):
        path = f"/home/bo/proj/{name}"
        s.call("Write", {"file_path": path, "content": "# x\n"}, f"File created at: {path}")
    s.bash("mv Skills other", "")
    s.say("Done.")
    files = _part(s.summary(), 3)
    assert "/home/bo/proj/other/a.md (created, then moved from" in files, files
    assert "/home/bo/proj/skills/b.md (created by Write)" in files, files


def test_a_link_in_a_moved_folder_s_place_and_files_written_through_it() -> None:
    """``mv A B && ln -s B A``, a file written through the link, then the link removed (``rm
    A``): every file is under B (the link led there); a copy is a move only for the files it
    held (``cp -R`` then a later write, then ``rm -rf``: the later file is deleted with it)."""
    s = _claude("/home/bo/proj")
    s.user("move the prompts")
    s.call("Write", {"file_path": "/home/bo/proj/prompts/a.md", "content": "# a\n"}, "File created")
    s.bash("mv prompts shared-prompts && ln -s shared-prompts prompts", "")
    s.call("Write", {"file_path": "/home/bo/proj/prompts/b.md", "content": "# b\n"}, "File created")
    s.bash("rm prompts", "")
    s.call("Write", {"file_path": "/home/bo/proj/tpl/c.md", "content": "# c\n"}, "File created")
    s.bash("cp -R tpl /home/bo/kept", "")
    s.call("Write", {"file_path": "/home/bo/proj/tpl/d.md", "content": "# d\n"}, "File created")
    s.bash("rm -rf tpl", "")
    s.say("Done.")
    files = _part(s.summary(), 3)
    assert (
        "/home/bo/proj/shared-prompts/a.md (created, then moved from /home/bo/proj/prompts/a.md"
        in files
    )
    assert (
        "/home/bo/proj/shared-prompts/b.md (created, then moved from /home/bo/proj/prompts/b.md"
        in files
    )
    assert "/home/bo/kept/c.md (created, then moved from /home/bo/proj/tpl/c.md" in files, files
    assert re.search(r"/home/bo/proj/tpl/d\.md \(created, then deleted", files), files
    assert "/home/bo/proj/prompts (" not in files, files


def test_folders_renamed_in_a_for_loop_through_temp_names_carry_their_files(tmp_path: Path) -> None:
    """The same case rename written as a loop (``for d in Hooks Rules Skills; do
    lower=$(printf '%s' "$d" | tr '[:upper:]' '[:lower:]'); tmp="${lower}.tmp_$$"; mv "$d"
    "$tmp"; mv "$tmp" "$lower"; done``); a loop over ``$(ls)`` moves nothing."""
    for words in ("Hooks Rules Skills", "$(ls)"):
        r = _Rollout()
        _written(r)
        r.exec(
            'cd "$HOME/.codex"\nfor d in ' + words + "; do\n"
            "  lower=$(printf '%s' \"$d\" | tr '[:upper:]' '[:lower:]')\n"
            '  if [ -d "$d" ]; then\n    tmp="${lower}.tmp_$$"\n    mv "$d" "$tmp"\n'
            '    mv "$tmp" "$lower"\n  fi\ndone\necho DONE',
            "DONE\n",
        )
        r.say("Renamed the folders.")
        files = _part(r.summary(tmp_path), 3)
        if words == "$(ls)":
            assert "moved from" not in files, files
            continue
        assert "~/.codex/skills/registry.yaml (created, then moved from ~/.codex/Skills/" in files
        assert "~/.codex/hooks/_internal/pipeline (created, then moved from" in files, files
        assert f"{_HOME}/.codex/rules/base.md (created, then moved from" in files, files
        assert "tmp" not in files, files


# -- W4: an item said open, closed by a later change or run -------------------------------------

_OPEN = (
    "Phase 6 is mostly done. T030 is still unchecked because the quickstart validation needs the "
    "desktop app and full test runs; I did not execute those here."
)


def _tasks(r: _Rollout, check: bool, item: str = "T030") -> None:
    r.user("implement phase 6 from specs/tasks.md")
    r.patch(
        "*** Begin Patch\n*** Add File: specs/tasks.md\n+# Tasks\n+- [x] T029 Write release notes\n"
        "+- [ ] T030 Run quickstart validation steps\n+- [ ] T031 Tag the release\n*** End Patch\n"
    )
    r.say(_OPEN)
    r.user("run the quickstart validation now")
    r.exec("npm run test:all", "all 41 tests passed\n")
    if check:
        text = {"T030": "Run quickstart validation steps", "T031": "Tag the release"}[item]
        r.patch(
            f"*** Begin Patch\n*** Update File: specs/tasks.md\n@@\n-- [ ] {item} {text}\n"
            f"+- [x] {item} {text}\n*** End Patch\n"
        )
    r.say("Validation passed; Phase 6 is complete.")


def _decisions(summary: str) -> str:
    return _part(summary, 5).split("- What commands printed", 1)[0]


def test_an_open_task_a_later_patch_checked_no_longer_holds(tmp_path: Path) -> None:
    """cx-tauri (blind check 46 W4): "T030 is still unchecked because …", then an apply_patch of
    tasks.md turned ``- [ ] T030`` into ``- [x] T030``; §5 kept the sentence unmarked."""
    r = _Rollout("/w/app")
    _tasks(r, check=True)
    decisions = _decisions(r.summary(tmp_path))
    label = 'No longer holds (a later change to tasks.md checked "T030 Run quickstart validation'
    assert label + ' steps"): T030 is still unchecked' in decisions, decisions


def test_an_open_task_left_open_or_another_task_checked_stays(tmp_path: Path) -> None:
    """Guards: no later check, or a later check of another task (T031): the sentence stands."""
    for check, item in ((False, "T030"), (True, "T031")):
        r = _Rollout("/w/app")
        _tasks(r, check=check, item=item)
        decisions = _decisions(r.summary(tmp_path))
        assert "T030 is still unchecked" in decisions, decisions
        assert "No longer holds" not in decisions, decisions


def test_a_checkbox_checked_by_a_later_edit_closes_the_sentence_naming_its_text() -> None:
    """Claude Code Edit of a checklist with no task ids: "Update the changelog is not done yet",
    then ``- [ ] Update the changelog`` → ``- [x] Update the changelog``."""
    s = _claude("/w/lib")
    s.user("finish the release checklist")
    s.call(
        "Write",
        {
            "file_path": "/w/lib/RELEASE.md",
            "content": "- [x] Bump version\n- [ ] Update the changelog\n",
        },
        "File created successfully at: /w/lib/RELEASE.md",
    )
    s.say(
        "The version is bumped. Update the changelog is not done yet because the notes are missing."
    )
    s.user("here are the notes: fixed the parser")
    s.call(
        "Edit",
        {"file_path": "/w/lib/RELEASE.md", "old_string": "- [ ] Update the changelog",
         "new_string": "- [x] Update the changelog"},
        "The file /w/lib/RELEASE.md has been updated successfully.",
    )  # fmt: skip
    s.say("Checked the changelog item.")
    decisions = _decisions(s.summary())
    assert (
        'No longer holds (a later change to RELEASE.md checked "Update the changelog")' in decisions
    )


def test_a_command_said_not_run_that_a_later_call_ran_no_longer_holds(tmp_path: Path) -> None:
    """ "I did not run `npm run e2e` here." then ``npm run e2e`` ran and exited 0: no longer holds;
    a later run that failed leaves the sentence as it is."""
    for code in (0, 1):
        r = _Rollout("/w/app")
        r.user("add the login page")
        r.patch(
            "*** Begin Patch\n*** Add File: src/login.ts\n+export const login = 1;\n*** End Patch\n"
        )
        r.say("Added the login page. I did not run `npm run e2e` because the browser is missing.")
        r.user("the browser is installed now")
        r.exec("npm run e2e", "12 passed\n" if code == 0 else "3 failed\n", code=code)
        r.say("Ran the end-to-end tests.")
        decisions = _decisions(r.summary(tmp_path))
        marked = (
            "No longer holds (a later call ran `npm run e2e` and it succeeded): I did not"
            in decisions
        )
        assert marked == (code == 0), decisions


def test_an_item_checked_before_the_sentence_or_another_clause_s_id_closes_nothing() -> None:
    """Guards: "T030 is done, T031 is still open" names T031 as the open one; a whole-file write
    after it repeating the already checked T030 checks nothing new; an item checked before the
    sentence was said does not close it."""
    s = _claude("/w/app")
    s.user("work through specs/tasks.md")
    tasks = "/w/app/specs/tasks.md"
    s.call(
        "Write",
        {"file_path": tasks, "content": "- [x] T030 Validate\n- [ ] T031 Tag\n"},
        "File created",
    )
    s.say("T030 is done, T031 is still open because the tag needs your approval.")
    s.user("fix the heading")
    content = "# Tasks\n- [x] T030 Validate\n- [ ] T031 Tag\n"
    s.call("Write", {"file_path": tasks, "content": content}, "File updated")
    s.say("Fixed the heading.")
    decisions = _decisions(s.summary())
    assert "T031 is still open" in decisions and "No longer holds" not in decisions, decisions

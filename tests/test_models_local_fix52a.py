"""Blind check 52 W8, W10, W11 (RELIABILITY rows 2470-2489), by shape, with invented sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

# -- W11: an empty user-input block has no words of the user's own ---------------------------

TAIL = "Do not create a new template; always operate on the existing .specify/memory/rules.md file."


def _constitution(slot: str) -> str:
    """A ``/speckit.constitution``-like expansion whose ``## User Input`` block holds ``slot``;
    the template's own last line is :data:`TAIL`."""
    steps = "\n".join(
        f"{k}. Step {k}: load the rules file, collect the values for placeholder number {k} "
        "and write them back with a version bump and a sync impact report."
        for k in range(1, 40)
    )
    return (
        "---\ndescription: Create or update the project rules from principle inputs.\n---\n\n"
        f"## User Input\n\n```text\n{slot}```\n\nYou **MUST** consider the user input before "
        f"proceeding (if not empty).\n\n## Outline\n\n{steps}\n\n## Formatting\n\n"
        f"- Use Markdown headings exactly as in the template.\n\n{TAIL}"
    )


def test_an_empty_user_input_block_gives_no_words_of_the_users_own(tmp_path: Path) -> None:
    for slot in ("\n", ""):  # "```text\n\n```" and "```text\n```"
        records = [
            rec("turn_context", {"cwd": "/work/shop"}),
            codex_user(_constitution(slot)),
            codex_say("The rules file is at version 1.0.0 with five principles."),
            rec("event_msg", {"type": "task_complete"}),
        ]
        text = codex_summary(records, tmp_path, "s-const", "/work/shop")
        first = section(text, 1)
        assert "Do not create a new template" not in text, text  # no request, no constraint
        assert "no words of the user's own" in first, first


def test_a_placeholder_slot_or_a_filled_one_is_unchanged() -> None:
    from compactor.facts.templates import SLOT_RE, tail_words

    assert tail_words(_constitution("\n")) == ""
    assert tail_words(_constitution("")) == ""
    assert tail_words(_constitution("$ARGUMENTS\n")) == TAIL  # row 2331: words after the template
    filled = SLOT_RE.search(_constitution("add a privacy principle\n"))
    assert filled is not None and filled.group(2) == "add a privacy principle"
    empty = SLOT_RE.search(_constitution(""))
    assert empty is not None and empty.group(2) == ""


# -- helpers for Codex shell calls -------------------------------------------------------------


def _exec(n: int, cmd: str, output: str = "", code: int = 0) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "exec_command", "call_id": f"c{n}"}
    call["arguments"] = json.dumps({"cmd": cmd, "workdir": "/work/dazi"})
    out = f"Chunk ID: x{n}\nWall time: 0.01 seconds\nProcess exited with code {code}\nOutput:\n"
    out += output
    return [
        rec("response_item", call),
        rec("response_item", {"type": "function_call_output", "call_id": f"c{n}", "output": out}),
    ]


# -- W10: the last effect in a command chain decides a path's state --------------------------

LINKS = (
    "rm -rf .dazi/skills/dazi && mkdir -p .dazi/skills/dazi && "
    "ln -s ../../../SKILL.md .dazi/skills/dazi/SKILL.md && "
    "ln -s ../../../README.md .dazi/skills/dazi/README.md && "
    "ln -s ../../../assets .dazi/skills/dazi/assets"
)


def _install_session() -> list[dict[str, Any]]:
    return [
        rec("turn_context", {"cwd": "/work/dazi"}),
        codex_user("Install the skill into .dazi/skills/dazi."),
        *_exec(1, "mkdir -p .dazi/skills && cp -r skill-src .dazi/skills/dazi"),
        codex_say("Installed the skill by copying it to .dazi/skills/dazi."),
        rec("event_msg", {"type": "task_complete"}),
        codex_user("Use links instead of copies, so edits show up at once."),
        *_exec(2, LINKS),
        *_exec(3, "ls -la .dazi/skills/dazi", "SKILL.md -> ../../../SKILL.md\n"),
        codex_say("The install now uses symlinks to the repository's files."),
        rec("event_msg", {"type": "task_complete"}),
    ]


def test_a_folder_removed_and_made_again_in_one_command_exists(tmp_path: Path) -> None:
    text = codex_summary(_install_session(), tmp_path, "s-links", "/work/dazi")
    files = section(text, 3)
    line = next(ln for ln in files.splitlines() if "skills/dazi (" in ln)
    assert "then deleted" not in line, files
    assert "made again" in line, files
    assert "SKILL.md (created as a link to ../../../SKILL.md" in files, files
    assert "assets (created as a link to ../../../assets" in files, files
    assert "deleted" not in files, files


def test_the_chain_rules() -> None:
    from compactor.facts import Call
    from compactor.models.local_chain import REMADE, links
    from compactor.models.local_files import file_changes

    assert links(["ln", "-sfn", "../a", "b/c"]) == [("b/c", "../a")]
    assert links(["ln", "-s", "../a", "../b", "dir/"]) == [("dir/a", "../a"), ("dir/b", "../b")]
    assert links(["ln", "a", "b"]) == []  # a hard link: no link to name

    def actions(cmd: str) -> list[tuple[str, str]]:
        call = Call("c", "shell", json.dumps({"command": cmd}), 0)
        return [(c.path, c.action) for c in file_changes(call)]

    assert ("web/out", "deleted") not in actions("rm -rf web/out && mkdir -p web/out")
    assert ("web/out", REMADE) in actions("rm -rf web/out && mkdir -p web/out")
    assert actions("rm -f notes.txt && echo hi > notes.txt") == [("notes.txt", "written")]
    assert actions("mkdir -p web/out && rm -rf web/out") == [
        ("web/out", "deleted")
    ]  # the last: removed
    assert ("web/out", "deleted") in actions("rm -rf web/out && mkdir -p web/other")


# -- W8: a file an answer cites is no file it changed ------------------------------------------


def test_a_file_the_answer_cites_with_a_line_anchor_is_not_changed() -> None:
    from compactor.models.local import summarize_transcript

    from .planted_session import SessionBuilder

    s = SessionBuilder()
    s.user("The release pipeline fails since the last change, please fix it.")
    s.call("Read", {"file_path": "/repo/.github/workflows/release.yml"}, "76: - name: Package")
    s.call("Read", {"file_path": "/repo/.gitignore"}, "bin/\n")
    s.call(
        "Edit",
        {"file_path": "/repo/.gitignore", "old_string": "bin/\n", "new_string": "bin/\nvendor/\n"},
        "The file /repo/.gitignore has been updated successfully.",
    )
    s.say(
        'The recently added "Package Go module dependencies" step in '
        "[release.yml:76](/repo/.github/workflows/release.yml#L76) writes vendor/, which the "
        "dirty-tree check then rejects. I added vendor/ to /repo/.gitignore."
    )
    files = section(summarize_transcript(s.messages), 3)
    assert "final answer says" not in files, files
    read = files[files.index("Read, not changed") :]
    assert "release.yml" in read, files


def test_what_reports_an_edit() -> None:
    from compactor.models.local_results import _said

    path = "src/app/main.py"
    assert _said("Removed the banner from src/app/main.py.", path)
    assert _said("- Updated src/app/main.py to load the config", path)
    assert _said("I've also changed src/app/main.py: the port is 8080", path)
    assert _said("Tests pass; updated src/app/main.py as asked", path)
    assert not _said("The recently added check in [main.py:12](src/app/main.py#L12) fails", path)
    assert not _said("The file was changed upstream in src/app/main.py", path)
    assert not _said("See the newly created helper in src/app/main.py:40", path)


RELINK = (
    "unlink .dazi/skills/dazi/SKILL.md && unlink .dazi/skills/dazi/assets && "
    "ln -s ../../../../SKILL.md .dazi/skills/dazi/SKILL.md && "
    "ln -s ../../../../assets .dazi/skills/dazi/assets"
)


def test_a_link_removed_and_made_again_stays_where_it_is(tmp_path: Path) -> None:
    """``unlink L && ln -s T L`` (a link's depth corrected): the link L stays a link at L; it is
    never "moved" to its target's place, which the agent did not touch (set 52 cx_dazi, seen)."""
    records = _install_session()[:-1]
    records += [*_exec(4, RELINK), *_exec(5, RELINK.replace("../../../../", "../../../"))]
    records += [codex_say("Fixed the link depth."), rec("event_msg", {"type": "task_complete"})]
    files = section(codex_summary(records, tmp_path, "s-relink", "/work/dazi"), 3)
    assert "skills/dazi/SKILL.md (created as a link to ../../../SKILL.md" in files, files
    assert "skills/dazi/assets (created as a link to ../../../assets" in files, files
    assert "moved from" not in files, files
    assert "/work/dazi/SKILL.md (" not in files, files

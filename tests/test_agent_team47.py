"""Claude Code agent teams, read by shape (blind check 47: W1, W2, W3).

An agent-team lead (``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS``) creates a team (``TeamCreate``),
plans with ``TaskCreate``/``TaskUpdate`` (owners only), spawns teammates with ``Task`` calls that
carry ``name`` + ``team_name`` + ``run_in_background``, receives their mailbox deliveries as user
records of ``<teammate-message teammate_id=…>`` blocks (reports, idle notices, then
``shutdown_approved`` and ``teammate_terminated`` after its ``SendMessage`` shutdown requests),
reads the task list back (``TaskList``: the teammates marked their tasks completed) and removes
the team (``TeamDelete``). The local summary said the teammates were background jobs still
running (W1), that the plan had 0 items done (W2), and took every delivery as a user request
and a teammate's recommendation as the user's constraint (W3). Sessions are invented, built here.
"""

from __future__ import annotations

import json
from pathlib import Path

from compactor.facts import background_jobs, entries_of
from compactor.facts.teams import teammates
from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage

from .cc_session import Session, cc_summary
from .test_models_local_session import section

TEAM = "docs-sweep"
NAMES = ("writer", "linker", "checker")
FIRST = (
    "Create an agent team to sweep the docs: rewrite the README intro, fix the broken links,"
    " then verify the site builds. Use three teammates."
)
SUBJECTS = (
    "DS-1: Rewrite the README intro",
    "DS-2: Fix broken links in docs/guide.md",
    "DS-3: Verify the site builds",
)
DEBT = "These warnings should be tracked as technical debt"


def _delivery(name: str, body: str, color: str = "blue", summary: str = "") -> str:
    extra = f' summary="{summary}"' if summary else ""
    return (
        f'<teammate-message teammate_id="{name}" color="{color}"{extra}>\n{body}\n'
        "</teammate-message>"
    )


def _idle(name: str) -> str:
    note = {"type": "idle_notification", "from": name, "idleReason": "available"}
    return _delivery(name, json.dumps(note))


def _ended(name: str) -> str:
    approved = {
        "type": "shutdown_approved",
        "requestId": f"shutdown-1786000000000@{name}",
        "from": name,
        "paneId": "in-process",
        "backendType": "in-process",
    }
    gone = {"type": "teammate_terminated", "message": f"{name} has shut down."}
    return (
        _delivery(name, json.dumps(approved))
        + "\n\n"
        + _delivery("system", json.dumps(gone), color="gray")
    )


def _team(
    listed: tuple[str, ...] | None = ("completed",) * 3,
    shutdowns: bool = True,
    delete: str | None = "ok",
    got: str = "",
) -> Session:
    """The lead's session. ``listed``: the statuses a ``TaskList`` result shows (None: no
    ``TaskList``); ``shutdowns``: each teammate asked to shut down and seen ending; ``delete``:
    ``TeamDelete`` succeeded ("ok"), was refused ("refused"), or was never called (None)."""
    s = Session()
    s.user(FIRST)
    created = {"team_name": TEAM, "lead_agent_id": f"team-lead@{TEAM}"}
    s.call("TeamCreate", {"team_name": TEAM, "description": "Docs sweep"}, json.dumps(created))
    for i, subject in enumerate(SUBJECTS, 1):
        s.call(
            "TaskCreate",
            {"subject": subject, "description": subject, "activeForm": "Working"},
            f"Task #{i} created successfully: {subject}",
        )
    for i, name in enumerate(NAMES, 1):
        s.call("TaskUpdate", {"taskId": str(i), "owner": name}, f"Updated task #{i} owner")
    for name in NAMES:
        s.call(
            "Task",
            {
                "description": f"{name} teammate",
                "prompt": f"You are {name} on team {TEAM}. Take your task from the task list.",
                "subagent_type": "general-purpose",
                "name": name,
                "team_name": TEAM,
                "run_in_background": True,
            },
            f"Spawned successfully.\nagent_id: {name}@{TEAM}\nname: {name}\nteam_name: {TEAM}\n"
            "The agent is now running and will receive instructions via mailbox.",
        )
    s.say("The team is working; I will wait for their reports.")
    s.user(_delivery("writer", "Done with DS-1: README.md intro rewritten.", summary="DS-1 done"))
    s.user(_idle("writer"))
    report = f"DS-3: `mkdocs build` passes with 4 warnings. {DEBT}, but they do NOT block it."
    s.user(_delivery("checker", report, color="green", summary="build verified"))
    if listed is not None:
        lines = [
            f"#{i} [{status}] {subject} ({name})"
            for i, (status, subject, name) in enumerate(
                zip(listed, SUBJECTS, NAMES, strict=True), 1
            )
        ]
        s.call("TaskList", {}, "\n".join(lines))
    if got:  # a later TaskGet of DS-3 shows its status
        shown = f"Task #3: {SUBJECTS[2]}\nStatus: {got}\nDescription: {SUBJECTS[2]}\nOwner: checker"
        s.call("TaskGet", {"taskId": "3"}, shown)
    for name in NAMES if shutdowns else ():
        sent = {"success": True, "request_id": f"shutdown-1786000000000@{name}", "target": name}
        s.call(
            "SendMessage",
            {"type": "shutdown_request", "recipient": name, "content": "Please shut down."},
            json.dumps(sent),
        )
        s.user(_ended(name))
    if delete == "ok":
        done = f'Cleaned up directories and worktrees for team "{TEAM}"'
        s.call("TeamDelete", {}, json.dumps({"success": True, "message": done, "team_name": TEAM}))
    elif delete == "other":  # another tool, whose result says the team was removed
        said = f"Team '{TEAM}' deleted; 3 member folders removed."
        s.call("mcp__teams__cleanup", {"team": TEAM}, said)
    elif delete == "other-team":
        s.call("mcp__teams__cleanup", {"team": "infra"}, "Team 'infra' deleted.")
    elif delete == "refused":
        refused = "Cannot cleanup team with 3 active member(s): writer, linker, checker."
        s.call("TeamDelete", {}, refused, error=True)
    s.say("All three tasks are done: the README intro is rewritten, links fixed, site builds.")
    return s


# -- W1: a teammate's job ends at its shutdown notice, every one at TeamDelete ---------------------


def test_teammates_that_shut_down_are_no_running_jobs(tmp_path: Path) -> None:
    text = cc_summary(_team(delete=None), tmp_path)
    pending, step = section(text, 7), section(text, 9)
    assert "still running" not in pending and "still running" not in step, pending + step
    assert "do not start it again" not in text, pending


def test_a_team_delete_ends_every_teammate(tmp_path: Path) -> None:
    text = cc_summary(_team(shutdowns=False), tmp_path)
    pending, step = section(text, 7), section(text, 9)
    assert "still running" not in pending and "still running" not in step, pending + step


def test_a_result_saying_the_team_was_removed_ends_its_teammates(tmp_path: Path) -> None:
    entries = entries_of(_messages(_team(shutdowns=False, delete="other"), tmp_path))
    assert all(m.ended for m in teammates(entries)), teammates(entries)
    other = entries_of(_messages(_team(shutdowns=False, delete="other-team"), tmp_path))
    assert not any(m.ended for m in teammates(other)), teammates(other)


def test_teammates_never_seen_ending_still_run(tmp_path: Path) -> None:
    """The control: no shutdown notice and a refused ``TeamDelete`` end nothing."""
    text = cc_summary(_team(shutdowns=False, delete="refused"), tmp_path)
    pending = section(text, 7)
    for name in NAMES:
        assert f"`{name} teammate`" in pending, pending
    assert "Background job still running" in pending, pending


def test_the_jobs_judged_by_shape_end_with_the_team(tmp_path: Path) -> None:
    entries = entries_of(_messages(_team(shutdowns=False), tmp_path))
    assert [m.name for m in teammates(entries)] == list(NAMES)
    assert all(m.ended.startswith("its team docs-sweep was deleted") for m in teammates(entries))
    assert [j.id for j in background_jobs(entries) if j.running] == []
    ended = entries_of(_messages(_team(delete=None), tmp_path))
    assert all(m.ended.startswith("shut down") for m in teammates(ended))
    running = entries_of(_messages(_team(shutdowns=False, delete="refused"), tmp_path))
    assert not any(m.ended for m in teammates(running))


# -- W2: the task list as the latest TaskList result shows it ----------------------------------


def test_a_task_list_result_sets_the_statuses_other_agents_changed(tmp_path: Path) -> None:
    text = cc_summary(_team(), tmp_path)
    pending = section(text, 7)
    assert "marked pending" not in pending and "0 of 3" not in pending, pending
    assert "[pending]" not in pending and "DS-1" not in pending, pending


def test_an_item_the_task_list_shows_open_stays_open(tmp_path: Path) -> None:
    text = cc_summary(_team(listed=("completed", "completed", "in_progress")), tmp_path)
    pending = section(text, 7)
    assert "DS-3: Verify the site builds" in pending, pending
    assert "DS-1" not in pending and "DS-2" not in pending, pending
    assert "2 of 3" in pending, pending


def test_a_later_task_get_result_is_newer_than_the_list(tmp_path: Path) -> None:
    listed = ("completed", "completed", "in_progress")
    pending = section(cc_summary(_team(listed=listed, got="completed"), tmp_path), 7)
    assert "DS-3" not in pending and "[in_progress]" not in pending, pending


def test_without_a_task_list_result_the_items_stay_as_written(tmp_path: Path) -> None:
    """The control: the lead's own calls only set owners, so nothing is marked done."""
    pending = section(cc_summary(_team(listed=None), tmp_path), 7)
    assert "0 of 3" in pending and "DS-1" in pending, pending


# -- W3: teammate deliveries are other agents' words, never the user's -----------------------------


def _messages(s: Session, tmp_path: Path) -> list[AgenticMessage]:
    src = tmp_path / "team.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    read = read_transcript(str(src), src.read_bytes()).messages
    return [m for m in read if isinstance(m, AgenticMessage)]


def test_the_reader_marks_teammate_deliveries_injected(tmp_path: Path) -> None:
    flags = [
        ((b.text or "")[:18], bool(m.extra.get("injected")))
        for m in _messages(_team(), tmp_path)
        if m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]
    assert flags[0] == (FIRST[:18], False), flags
    assert all(injected for _, injected in flags[1:]) and len(flags) == 7, flags


def test_teammate_deliveries_are_no_requests_and_no_constraints(tmp_path: Path) -> None:
    text = cc_summary(_team(), tmp_path)
    request = section(text, 1)
    assert f'"{FIRST}" (the current request)' in request, request
    assert "Later requests" not in request and "Current request:" not in request, request
    assert "stated by the user" not in request, request
    assert "Teammate report from checker: DS-3: `mkdocs build` passes" in request, request
    everyone = text.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert "teammate-message" not in everyone and DEBT not in everyone, everyone
    assert "1 requests from the user" in text or "1 request from the user" in text, text[:400]
    assert "was completed" in section(text, 8), section(text, 8)


def test_a_teammate_never_seen_ending_is_listed_once_with_its_id_and_name(tmp_path: Path) -> None:
    """debt51: the spawn call (its call id) and the job its result named (the agent's name)
    are one job: one pending item each, naming both; the next step names the call ids."""
    text = cc_summary(_team(shutdowns=False, delete="refused"), tmp_path)
    pending = section(text, 7)
    assert pending.count("Background job still running") == len(NAMES), pending
    for name in NAMES:
        item = next(line for line in pending.splitlines() if f"`{name} teammate`" in line)
        assert "(id toolu_" in item and f"agent_id: {name}@{TEAM}" in item, item
        assert f"(id {name})" not in pending, pending
    assert ", linker)" not in section(text, 9) and ", checker)" not in section(text, 9)

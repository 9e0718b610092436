"""Blind check 18 (issue 28): an earlier summary's state is the state at its boundary, never
the current one once calls ran after it; and noise a resuming agent does not need."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import PreserveSkillsConfig, new_finalizer
from compactor.prompts import PLAN_HEADING
from compactor.schema import Message, ToolCall, user_text

from .cc_session import Session
from .planted_session import SessionBuilder
from .test_models_local_session import section

_OWN_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user wants the service deployed.\n\n"
    "Summary:\n## 1. Primary Request and Intent\nDeploy the queue service and push to main.\n\n"
    "## 5. Problem Solving\n**Ongoing:** - Service still not running - needs the route fix "
    "before it comes up\n\n"
    "## 7. Pending Tasks\n- Find the bad route registration\n- Push to main\n\n"
    "## 8. Current Work\nImmediately before this summary request, was investigating why the "
    "queue service keeps crash-looping with RouteError; handlers/extra.py was the next file to "
    "investigate.\n\n"
    "## 9. Optional Next Step\nRead handlers/extra.py to find the bad route registration.\n"
)


def _after_boundary(tmp_path: Path, request: str = "") -> str:
    """The own summary, then (optionally a user request and) calls that found and fixed the
    cause, a restart whose log says the service started, and a health check in flight."""
    s = Session()
    s.user(_OWN_SUMMARY)
    s.records[-1]["isCompactSummary"] = True
    if request:
        s.user(request)
    s.assistant([{"type": "text", "text": "Let me read the file the search found."}])
    s.bash("cat handlers/extra.py", "from app import routes\nroutes.add('queue.v2.jobs')\n")
    s.bash("ls app/", "server.py\nroutes.py\n")
    s.assistant([{"type": "text", "text": "The module server_v2 does not exist; point at server."}])
    s.bash("sed -i 's/server_v2/server/' compose.yml", "")
    s.bash("docker compose up -d queue", "Container queue Started")
    s.bash(
        "sleep 5 && docker logs queue --tail=5",
        "INFO:     Started server process [1]\nINFO:     Application startup complete.\n"
        'INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 200 OK',
    )
    s.assistant(
        [
            {"type": "text", "text": "Service is up. Let me check the health endpoint:"},
            {
                "type": "tool_use",
                "id": "toolu_last",
                "name": "Bash",
                "input": {"command": "curl -s http://127.0.0.1:8080/health"},
            },
        ]
    )
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def test_the_earlier_summary_s_current_work_is_its_state_before_the_calls_after_it(
    tmp_path: Path,
) -> None:
    """forge-cc: with no user request after Claude Code's own compaction, section 8 quoted the
    earlier summary's "was investigating why the container continues to crash-loop … the next
    file to investigate" as the current work, and section 5 its "Container still not running",
    while the calls after the boundary had found and fixed the cause and the log said the
    service started: the old state is the state before those calls, and sections 8 and 9 come
    from the calls."""
    text = _after_boundary(tmp_path)
    current, step = section(text, 8), section(text, 9)
    assert "From the earlier summary: " not in current, current
    assert "The earlier summary's state (before the 6 tool calls after it" in current, current
    assert current.index("Application startup complete") < current.index("crash-looping"), current
    assert "From the earlier summary: " not in step, step
    assert "from where the calls after the earlier summary left it" in step, step
    solving = section(text, 5)
    assert "From the earlier summary (its state before the 6 tool calls after it): " in (solving), (
        solving
    )
    assert "still not running" in solving, solving  # kept, but labelled
    # with a user request after the boundary: the other path keeps its own caveat
    asked = _after_boundary(tmp_path, "the service still crashes, please fix it")
    current = section(asked, 8)
    assert "The earlier summary's state (before the 6 tool calls after it" in current, current
    assert "From the earlier summary: " not in current, current
    assert current.index("Application startup complete") < current.index("crash-looping"), current
    assert "From the earlier summary (its state before the 6 tool calls after it): " in (
        section(asked, 5)
    )
    # the agent's last message ended the turn: the session ended answered, and the old next
    # step is no next step (blind check 20, W6: the answered path wins)
    s = Session()
    s.user(_OWN_SUMMARY)
    s.records[-1]["isCompactSummary"] = True
    s.bash("cat handlers/extra.py", "routes.add('queue.v2.jobs')")
    s.bash("docker compose up -d queue", "Container queue Started")
    s.assistant([{"type": "text", "text": "The service is up and healthy now."}])
    path = tmp_path / "ended.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    ended = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    step = section(ended, 9)
    assert "From the earlier summary: " not in step, step
    assert "ended with an answer" in step and "wait for the user's next message" in step, step
    assert "Read handlers/extra.py" not in step, step


def _pasted_traceback(words: str) -> str:
    """The user's words, then a server's start-up log with a chained Python traceback: library
    frames (an installed package, the standard library) around two frames of the user's code."""
    lib = "/home/me/app/.venv/lib/python3.12/site-packages/enginex"
    std = "/usr/lib/python3.12"
    lines = [f"{words} (venv) $ uvicorn app.main:app --port 8080"]
    lines += [f"INFO:     Started server process [{4000 + i}]" for i in range(6)]
    lines.append("(Worker pid=77) INFO 03-02 22:40:35 [arg_utils.py:620] offline mode is on")
    lines.append("(Worker pid=77) Traceback (most recent call last):")
    for i in range(12):
        where = f"{lib}/core/stage_{i}.py" if i % 3 else f"{std}/asyncio/runners.py"
        lines.append(f'(Worker pid=77)   File "{where}", line {100 + i}, in run_stage_{i}')
        lines.append(f"(Worker pid=77)     return enginex.stage_{i}.launch_engine_now(args)")
    lines.append("(Worker pid=77) enginex.errors.ConfigError: 1 validation error for EngineConfig")
    lines.append("(Worker pid=77)   Value error, model directory has no config.json")
    lines.append("")
    lines.append("Do not change the model catalog, only the loader.")
    lines.append("Traceback (most recent call last):")
    lines.append('  File "/home/me/app/app/main.py", line 53, in lifespan')
    lines.append("    await manager.ensure_loaded(default_model)")
    lines.append(f'  File "{lib}/manager.py", line 12, in ensure_loaded')
    lines.append("    raise RuntimeError(detail)")
    lines.append('  File "/home/me/app/app/services/loader.py", line 303, in start')
    lines.append("    raise RuntimeError(f'engine exited: {detail}')")
    lines.append("RuntimeError: engine exited: model directory has no config.json")
    lines.append("ERROR:    Application startup failed. Exiting.")
    return "\n".join(lines)


def test_a_pasted_traceback_is_its_key_lines_even_in_the_newest_message() -> None:
    """tripolar-cc: the latest user message, 11,426 characters of tracebacks, was re-inserted
    whole (about 250 lines of library frames): it is its first line, its exception lines, the
    last frames in the user's own code and its last lines, with its size."""
    from compactor.facts.durable import bounded_user_message
    from compactor.pipeline.finalize import select_user_messages
    from compactor.schema import AgenticMessage, Block

    text = _pasted_traceback("still this error after your change:")
    shown = bounded_user_message(text, 7, 600)
    assert shown.startswith("still this error after your change: (venv) $ uvicorn"), shown
    assert f"(a pasted traceback or log of {len(text.splitlines()) - 1} lines, " in shown, shown
    assert f"{len(text):,} characters; the full text is user message 7" in shown, shown
    assert (
        "its exception lines: enginex.errors.ConfigError: 1 validation error for EngineConfig "
        "Value error, model directory has no config.json | RuntimeError: engine exited:"
    ) in shown, shown
    assert "/home/me/app/app/main.py:53 in lifespan: await manager.ensure_loaded" in shown
    assert "/home/me/app/app/services/loader.py:303 in start" in shown, shown
    assert "site-packages" not in shown and "runners.py" not in shown, shown  # library frames
    assert shown.endswith("ERROR:    Application startup failed. Exiting."), shown
    assert "; kept from it: Do not change the model catalog, only the loader.)" in shown, shown
    assert len(shown) < len(text) // 2, shown

    def user(said: str) -> AgenticMessage:
        return AgenticMessage("user", [Block("user_input_text", said)])

    prose = "Please rewrite the loader so that it retries. " * 60
    kept, _ = asyncio.run(select_user_messages([user(prose), user(text)], 50_000, None, 1_500))
    assert kept[-1].startswith("still this error after your change:"), kept[-1]
    assert "characters truncated (a pasted traceback or log of" in kept[-1], kept[-1]
    assert kept[0].startswith(prose[:600]) and "characters truncated" in kept[0], kept[0]
    kept, _ = asyncio.run(select_user_messages([user(text), user(prose)], 50_000, None, 1_500))
    assert kept[-1] == prose, kept[-1]  # a long newest message that is no paste stays whole


def test_traceback_frames_are_no_identifiers_and_library_paths_no_user_files() -> None:
    """tripolar-cc: §2 "Identifiers" listed traceback frames (``uvloop.run``, ``run_server``)
    and §3 "Named by the user, never by a call" listed ``…/site-packages/vllm/…/api_server.py``
    from the user's pasted traceback: a library's path is no file of the user's work."""
    s = SessionBuilder()
    s.user(_pasted_traceback("fix this please, see app/services/notes.md:"))
    s.call("Read", {"file_path": "/home/me/app/app/services/loader.py"}, "def start(): ...")
    s.say("The engine exits because the model directory has no config.json.")
    text = summarize_transcript(s.messages)
    concepts, files = section(text, 2), section(text, 3)
    assert "launch_engine_now" not in concepts and "run_stage_" not in concepts, concepts
    assert "site-packages" not in files and "runners.py" not in files, files
    assert "arg_utils.py" not in files, files  # a log line's source tag
    assert "app/services/notes.md" in files, files  # a file the user named is still listed


def test_identical_results_of_one_command_are_listed_once_with_their_count() -> None:
    """madinah-codex: five `pnpm test` results, the same but for their timings, were listed one
    after another in "What commands printed": the same command with the same result is one
    line with "×5", the last one's result; a run with another result keeps its own line."""
    s = SessionBuilder()
    s.user("Make the blog list responsive and keep the tests green.")
    for n in range(5):
        s.call(
            "Edit",
            {"file_path": f"app/blog/list_{n}.tsx", "old_string": "a", "new_string": "b"},
            f"The file app/blog/list_{n}.tsx has been updated.",
        )
        s.call(
            "Bash",
            {"command": "pnpm test"},
            f"✓ app/blog/list.test.tsx (3 tests) {40 + n}ms\n"
            f"Test Files 10 passed (10)\nTests 53 passed (53)\nDuration {1 + n}.2{n}s",
        )
    s.call("Bash", {"command": "pnpm test"}, "Test Files 10 passed (10)\nTests 54 passed (54)")
    s.say("54 tests pass now.")
    solving = section(summarize_transcript(s.messages), 5)
    printed = solving.split("What commands printed:", 1)[1].split("Tool calls", 1)[0]
    assert printed.count("Tests 53 passed") == 1, printed
    assert "`Bash: pnpm test` (×5 with this result; the last shown) → " in printed
    assert "Duration 5.24s" in printed and "Duration 1.20s" not in printed, printed  # the last
    assert printed.count("Tests 54 passed") == 1, printed  # another result: its own line


def _todo_session(latest: str) -> list[Message]:
    """A plan whose item is marked completed, then the user's messages about that work."""
    todos = [{"content": "Add the delete member button with a confirmation", "status": "completed"}]
    call = ToolCall("t1", "TodoWrite", json.dumps({"todos": todos}))
    return [
        Message(role="user", content="add a delete member button to the member page"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content="Todos have been modified successfully", tool_call_id="t1"),
        Message(role="assistant", content="Done: the delete member button is on the page."),
        Message(role="user", content="i cant find the delete button on the member page"),
        Message(role="assistant", content="It is in app/members/page.tsx; please reload."),
        Message(role="user", content=latest),
        Message(role="assistant", content="Let me check the layout of the page."),
    ]


def _finalized(msgs: list[Message]) -> str:
    finalize = new_finalizer().preserve_durable(PreserveSkillsConfig()).build()
    summary = Message(role="user", content=summarize_transcript(msgs))
    return user_text(asyncio.run(finalize(msgs, summary))[0])


def test_a_todo_list_the_user_reports_a_problem_with_does_not_lead_the_summary() -> None:
    """atlas-cc: the summary opened with "The agent's latest plan (TodoWrite): [completed] Add
    delete member functionality" while the user's latest messages said the button was not
    there: the list is shown after the current request, as the agent last wrote it."""
    text = _finalized(_todo_session("still not there, same as before"))
    heading = PLAN_HEADING.format(tool="TodoWrite")
    assert not text.startswith("<system-reminder>\n" + heading), text[:300]
    assert "(the list as the agent last wrote it; the user's messages since report a " in text
    summary = text[text.index("<summary>") :]
    plan = summary.index("- [completed] Add the delete member button")
    assert summary.index("1. ") < plan < summary.index("\n2. "), text  # after the request
    # no problem reported: the list still leads, as before
    fine = _finalized(_todo_session("great, that works now; thanks"))
    assert fine.startswith("<system-reminder>\n" + heading), fine[:300]


def test_a_dynamic_route_folder_is_no_glob() -> None:
    """atlas-cc: "files matching atlas-fitness-onboarding/app/members/[id]/page.tsx (edited
    …)": a bracketed whole path segment is a web framework's route folder, not a shell
    character class; `rm reports/kp-[0-9].txt` still names the files it matched."""
    s = SessionBuilder()
    s.user("add a delete button to the member page")
    s.call(
        "Edit",
        {"file_path": "app/members/[id]/page.tsx", "old_string": "a", "new_string": "b"},
        "The file app/members/[id]/page.tsx has been updated.",
    )
    s.call("Bash", {"command": "rm reports/kp-[0-9].txt"}, "")
    s.say("Added the button.")
    files = section(summarize_transcript(s.messages), 3)
    assert "- app/members/[id]/page.tsx (edited by Edit)" in files, files
    assert "files matching app/members" not in files, files
    assert "files matching reports/kp-[0-9].txt (deleted by Bash)" in files, files

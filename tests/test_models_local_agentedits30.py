"""Files background sub-agents report they edited are changed, not "Read, not changed" (blind
check 30, W1: cc-gemini).

The main agent read five pages, then started one background ``Task`` agent per page ("Update
practice page styling", …); each completion (``TaskOutput`` ``<status>completed</status>``, then
a ``<task-notification>``) reported the edit ("I've successfully updated all the CSS styling in
the file `…\\practice\\page.tsx`"). Section 3 listed the five pages "Read, not changed" and
section 8's files changed for the request left them out. A report that says it updated,
modified or edited a file, or lists "Files modified:", makes that file "edited by a sub-agent".
The session is built here."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

ROOT = "C:\\Users\\me\\Desktop\\Gemini 3 hack\\coach\\src\\app"
PRACTICE = f"{ROOT}\\practice\\page.tsx"
RACKET = f"{ROOT}\\racket\\page.tsx"
HISTORY = f"{ROOT}\\history\\page.tsx"
TIPS = "src/app/practice/tips.tsx"  # relative, named only in the TaskOutput poll's output
LAUNCHED = (
    "Async agent launched successfully.\nagentId: {} (internal ID - do not mention to user.)\n"
    "The agent is working in the background. You will be notified automatically when it completes."
)


def _notice(task: str, result: str) -> str:
    return (
        f"<task-notification>\n<task-id>{task}</task-id>\n<status>completed</status>\n"
        f'<summary>Agent "Update page styling" completed</summary>\n<result>{result}</result>\n'
        "</task-notification>\nFull transcript available at: C:\\tmp\\tasks\\x.output"
    )


def _session() -> str:
    s = SessionBuilder()
    s.user("Restyle every page with the new premium design tokens.")
    for path in (PRACTICE, RACKET, HISTORY):
        s.call("Read", {"file_path": path}, "     1→export default function Page() {}\n")
    for n, (what, path) in enumerate((("practice", PRACTICE), ("racket", RACKET))):
        prompt = f"Update the styling of {path} to the premium design."
        args = {"description": f"Update {what} page styling", "prompt": prompt,
                "subagent_type": "general-purpose", "run_in_background": True}  # fmt: skip
        s.call("Task", args, LAUNCHED.format(f"a{n}"))
    output = (
        "<retrieval_status>success</retrieval_status>\n<task_id>a0</task_id>\n"
        "<task_type>local_agent</task_type>\n<status>completed</status>\n<output>\n"
        f"Updated {TIPS} with the premium tip cards.\n</output>"
    )
    s.call("TaskOutput", {"task_id": "a0", "block": True, "timeout": 300000}, output)
    s.say("Both agents are done; here is the table.\n| Practice | Premium cards |")
    s.user(
        _notice(
            "a0",
            "I've successfully updated all the CSS styling in the file "
            f"`{PRACTICE}`. The cards now use the premium gradient.",
        )
    )
    s.user(
        _notice(
            "a1",
            f"The racket page now has a dark gradient header.\n\nFiles modified:\n- `{RACKET}`\n",
        )
    )
    s.say("All pages are restyled.")
    return summarize_transcript(s.messages)


def test_files_background_agents_report_they_edited_are_changed() -> None:
    text = _session()
    files = " ".join(section(text, 3).split())
    read = files.split("Read, not changed:", 1)[-1] if "Read, not changed:" in files else ""
    assert "practice\\page.tsx" not in read and "racket\\page.tsx" not in read, files
    assert f"{PRACTICE} (edited by a sub-agent" in files, files
    assert f"{RACKET} (edited by a sub-agent" in files, files
    assert f"{TIPS} (edited by a sub-agent" in files, files
    assert "history\\page.tsx" in read, files  # read only: no agent reported editing it


def test_a_blocked_or_reading_agent_edited_nothing() -> None:
    s = SessionBuilder()
    s.user("Restyle the practice page.")
    s.call("Read", {"file_path": PRACTICE}, "     1→export default function Page() {}\n")
    args = {"description": "Update practice page styling", "prompt": f"Restyle {PRACTICE}",
            "run_in_background": True}  # fmt: skip
    s.call("Task", args, LAUNCHED.format("a0"))
    s.user(_notice("a0", f"I could not edit `{PRACTICE}`: Edit permission was denied."))
    s.call("Task", {"description": "Check the racket page", "prompt": "Read it"},
           f"I read `{RACKET}`; it was last updated in 2023.")  # fmt: skip
    s.say("The agent was blocked.")
    files = " ".join(section(summarize_transcript(s.messages), 3).split())
    assert "edited by a sub-agent" not in files, files

"""Blind check 24's wrong statements in the local summary (issue 28), each on a session built
here by shape: a reply that answered the user's question and only ended by asking a follow-up
(W2), background-task failure notices that belong to an earlier request (W1)."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local import summarize_transcript
from compactor.schema import Message

from .cc_session import Session, cc_summary
from .planted_session import SessionBuilder
from .test_models_local_session import section

_INSTEAD = "asked the user for input instead"


def _chat(*turns: str) -> list[Message]:
    roles = ("user", "assistant")
    return [Message(roles[n % 2], t) for n, t in enumerate(turns)]


_ANSWER = (
    "Good question! Yes: both backends share the same PostgreSQL database, so a schema change "
    "must reach both of them.\n\n## How to keep them in step\n\n1. Prisma leads: edit "
    "packages/backend/prisma/schema.prisma and run the migration once.\n2. Sync "
    "packages/api/internal/db/schema.sql by hand so that it matches.\n3. Run make gen to "
    "regenerate the typed queries.\n\n"
)


def test_a_reply_that_answered_a_question_and_then_asked_to_confirm_is_an_answer() -> None:
    """cc-utage: the request was a yes/no question, the reply answered it in full and closed
    with "could you share how you run migrations today?": answered, waiting for the confirmation,
    never "asked for input instead" nor "do the request"."""
    text = summarize_transcript(
        _chat(
            "plan the tenant split",
            "The plan is ready.",
            "we use node and go side by side.\nthe schema is updated the same way in both, right?",
            _ANSWER + "Could you share how you run migrations today, so that I can confirm it?",
        )
    )
    assert _INSTEAD not in text and "Do the request" not in section(text, 9), text
    assert "Wait for the user's answer to" in section(text, 9), section(text, 9)
    assert "how you run migrations today" in section(text, 9), section(text, 9)
    assert "was not done" not in section(text, 8), section(text, 8)


def test_a_japanese_question_answered_then_a_closing_ask_is_an_answer() -> None:
    """The same shape in Japanese: "…更新しますよね？" answered with "はい、…", closing with
    "…教えてください！"."""
    text = summarize_transcript(
        _chat(
            "スキーマは/backendも/apiも同じように更新しますよね？",
            "はい、両方のバックエンドが同じデータベースを共有しているので、スキーマ変更は両方に"
            "反映させる必要があります。\n\n## 方針\n\n1. Prismaスキーマを更新してマイグレーションを"
            "一度だけ実行します。\n2. Go側のschema.sqlを手動で同期します。\n3. make genで型を"
            "再生成します。\n\nこの方針で進めて問題ないか確認させてください。もし異なる運用を"
            "されている場合は教えてください！",
        )
    )
    assert _INSTEAD not in text and "Do the request" not in section(text, 9), text
    assert "教えてください" in section(text, 9), section(text, 9)


def test_a_request_for_work_answered_with_an_ask_still_asked_for_input() -> None:
    """The shape the rule keeps: an order (or a polite "can you …?") whose reply only asks
    for what is missing did not do the request."""
    for request in ("Make the steps above a skill.", "Can you make the steps above a skill?"):
        text = summarize_transcript(
            _chat(request, "You have not provided any steps. Please provide them.")
        )
        assert _INSTEAD in text, text


# -- W1: a late failure notice belongs to the request that launched the task ---------------------


def _started(task: str) -> str:
    return (
        f"Command running in background with ID: {task}. Output is being written to: "
        f"/tmp/tasks/{task}.output"
    )


def _notice(task: str) -> str:
    return (
        f"<task-notification>\n<task-id>{task}</task-id>\n<output-file>/tmp/tasks/{task}.output"
        f'</output-file>\n<status>failed</status>\n<summary>Background command "Run the link '
        f'script" failed with exit code 58</summary>\n</task-notification>\nRead the output '
        f"file to retrieve the result: /tmp/tasks/{task}.output"
    )


def _links_session(*, late_launch: bool) -> Session:
    """A request ran a script in the background, gave up on it and did the work inline ("All
    green"); a later request was answered; the task's failure notice arrives after that answer.
    With ``late_launch`` the latest request itself launched the task."""
    s = Session()
    s.user("fix the link script paths and run it")
    if not late_launch:
        s.bash("pwsh -File setup-links.ps1", _started("bq7x2k9m"))
        s.assistant(
            [
                {
                    "type": "text",
                    "text": "The background run isn't flushing output. "
                    "Let me run the logic inline directly.",
                }
            ]
        )
    s.bash("pwsh -Command ./link-inline.ps1", "OK junction: commands -> docs\nOK junction: skills")
    s.assistant([{"type": "text", "text": "All green: every junction is in place."}])
    s.user("that is working! will this be available on the other computer?")
    if late_launch:
        s.bash("pwsh -File setup-links.ps1", _started("bq7x2k9m"))
    s.assistant(
        [
            {
                "type": "text",
                "text": "Yes: clone both repositories there and run the "
                "setup script once; it wires the same junctions. The links run in place.",
            }
        ]
    )
    s.user(_notice("bq7x2k9m"))
    return s


def test_a_late_failure_of_an_earlier_requests_task_is_no_open_point(tmp_path: Path) -> None:
    """cc-claudehome: three setup runs launched ~490 records before, for an earlier request
    whose work was then done inline, failed (exit 58) after the latest answer: the latest
    request stays answered and nothing says "start it again"."""
    text = cc_summary(_links_session(late_launch=False), tmp_path)
    pending, current, step = section(text, 7), section(text, 8), section(text, 9)
    assert "bq7x2k9m" in pending and "earlier request" in pending, pending
    assert "claim that it runs" not in pending, pending
    assert "failed after the answer" not in current, current
    assert "start it again" not in step and "bq7x2k9m" not in step, step


def test_a_late_failure_of_the_latest_requests_task_stays_its_open_point(
    tmp_path: Path,
) -> None:
    text = cc_summary(_links_session(late_launch=True), tmp_path)
    assert "failed after the answer" in section(text, 8), section(text, 8)
    assert "bq7x2k9m" in section(text, 9) and "start it again" in section(text, 9), text


# -- noise: a request to choose is no acceptance and no decision ---------------------------------


def test_a_request_to_pick_between_options_it_lists_is_no_acceptance() -> None:
    """cc-steam: "ok PICK ONE please be objective: A) Pick a better solution or B) if the
    current one is already the best then inspect the plot" after "I'd recommend the former."
    asks the assistant to choose: neither "Accepted by the user" nor "Decided by the user"."""
    s = SessionBuilder()
    s.user("make the chart readable")
    s.say(
        "Two ways:\n1. Bin the games by price.\n2. Keep the scatter with a log axis.\n"
        "I'd recommend the former."
    )
    s.user(
        "ok PICK ONE please be objective: A) Pick a better solution or B) if the current one "
        "is already the best then inspect what is going on with the plot"
    )
    s.say("A: the binned chart is better; switching to it now.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Accepted by the user" not in problem, problem
    assert "Decided by the user" not in problem, problem
    s = SessionBuilder()
    s.user("make the chart readable")
    s.say("Two ways:\n1. Bin the games by price.\n2. Keep the scatter with a log axis.")
    s.user("ok, go with 1")
    s.say("Binned by price now.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Decided by the user: ok, go with 1" in problem, problem


# -- noise: a line of several statistics is a result line ----------------------------------------


def test_a_line_of_several_statistics_is_kept_among_a_results_key_lines() -> None:
    """cc-steam N2: of one output, "Median price: 9.29" was kept and "Spearman r: -0.0085  p:
    0.6665" (the answer to the question) dropped: a line of several ``name: number`` pairs is a
    result line too."""
    s = SessionBuilder()
    s.user("is price correlated with the review ratio?")
    printed = (
        "exec_count: 1\nLoading...\nLoaded: (27075, 18)\nGames with >= 1000 ratings: 2578\n"
        "Median price: 9.29\nMedian positive review ratio: 0.8437\n\n"
        "Spearman r: -0.0085  p: 0.6665823689145232\n"
        "Pearson  r: -0.0565  p: 0.004125322243352175\n\nFIGURE PRESENT: True"
    )
    s.call("Bash", {"command": "python analyze.py"}, printed)
    s.say("No: the correlation is negligible.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Spearman r: -0.0085" in problem and "Pearson r: -0.0565" in problem, problem


# -- noise: a background start's result is no output worth a place -------------------------------


def test_background_start_results_rank_below_what_commands_printed() -> None:
    """cc-cmmc N1: five "Command running in background with ID: …" results filled §5's "What
    commands printed", and the migration, seed and verification outputs were among "6 more of
    lower weight omitted"."""
    s = SessionBuilder()
    s.user("deploy the tenant change")
    for n, table in enumerate(("tenants", "tenant_users", "tenant_roles", "audit", "plans")):
        s.call("Bash", {"command": f"php artisan migrate --step {n}"}, f"Migrated: {table}_table")
    for n in range(5):
        s.call(
            "Bash",
            {"command": f"php artisan cache:clear --n {n}", "run_in_background": True},
            f"Command running in background with ID: bq{n}x7k2m. Output is being written to: "
            f"/tmp/tasks/bq{n}x7k2m.output",
        )
    s.say("Deployed: both migrations ran and the caches are cleared.")
    printed = section(summarize_transcript(s.messages), 5).split("Tool calls")[0]
    assert "Migrated: plans_table" in printed and "Migrated: audit_table" in printed, printed
    assert "Command running in background" not in printed or "tenants_table" in printed, printed

"""Blind check 27 (fix27d): a bare number that answers a yes/no or "continue to step 3?" question
is no pick of item 3 (W3); a ``nohup … &`` job whose PID the call printed is running, and an
earlier summary's pending items the live history finished are not pending (N1); a path glued to
a CJK word (N3); two identical short replies hours apart are two replies (N4)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

PLAN = (
    "Plan de revue :\n1) validation AC\n2) audit tâches cochées\n3) audit qualité code/tests\n"
    "4) rapport final\n\nÉtape 2 terminée : 5 AC validés."
)


def test_a_number_answering_a_continue_to_step_question_picks_no_item() -> None:
    s = SessionBuilder()
    s.user("Fais la revue de la story 1.2")
    s.say(
        f"{PLAN}\nContinuer vers l'étape 3 (exécution adversarial + constats) ? "
        "(`y` / `n` / `edit`)"
    )
    s.user("3")
    s.say("Je lance l'étape 3.")
    s.user("continue vers l'étape 3")
    s.say("Étape 3 en cours : exécution adversarial.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user" not in text
    assert 'Current request: "continue vers l\'étape 3"' in text


def test_a_number_answering_a_yes_no_question_picks_no_item() -> None:
    s = SessionBuilder()
    s.user("Review the migration plan")
    s.say(
        "The plan:\n1. back up the database\n2. run the schema change\n3. backfill the column\n"
        "I'll start with the backup. Shall I go ahead? (y/n)"
    )
    s.user("3")
    s.say("Starting.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user" not in text


def test_a_number_answering_a_question_that_offers_choices_picks_that_item() -> None:
    s = SessionBuilder()
    s.user("How should we cache the results?")
    s.say(
        "I'd suggest one of these:\n1) an in-memory LRU cache\n2) Redis with a 10 minute TTL\n"
        "3) a SQLite table\nWhich option do you prefer?"
    )
    s.user("2")
    s.say("Going with Redis.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user: Redis with a 10 minute TTL" in text


# -- N1: a nohup job known by the pid it printed; an earlier summary's items done since ---------


def _earlier_summary() -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user runs quantisation runs."
        "\n\nSummary:\n## 1. Primary Request and Intent\nFix the mxw4a8 rounding code.\n\n"
        "## 2. Key Technical Concepts\n- round-to-nearest-even\n\n## 3. Files and Code Sections\n"
        "- quant/mx.py (edited)\n\n## 4. Errors and Fixes\nThe round code was wrong.\n\n"
        "## 5. Problem Solving\nFound the rounding bug.\n\n## 6. All User Messages\n\n"
        '1. "修一下 mxw4a8 的 round"\n\n## 7. Pending Tasks\n\n'
        "1. The 4 running mxw4a8 experiments (PID 2119063) are using the WRONG code and need "
        "to be killed\n2. Tests have NOT been re-run after the fix\n\n## 8. Current Work\n\n"
        "4 mxw4a8 experiments are currently running in background (nohup PID 2119063).\n\n"
        "## 9. Optional Next Step\n\nKill PID 2119063, re-run the tests, relaunch.\n"
    )


def _quant_session(*, killed: bool) -> list[object]:
    from compactor.formats.registry import read_transcript

    from .cc_session import Session

    s = Session()
    s.compacted(_earlier_summary())
    s.user("杀掉旧实验，重新跑测试，然后用正确的代码重新启动")
    if killed:
        s.bash(
            "# Step 1: kill the nohup root first\nkill -9 2119063 2>/dev/null; "
            'echo "Killed root process 2119063"',
            "Killed root process 2119063",
        )
    s.bash("cd /home/u/quant && python -m pytest tests/test_mx.py -q", "16 passed in 3.20s")
    s.bash(
        "cd /home/u/quant && nohup bash run_mxw4a8.sh > logs/mxw4a8.log 2>&1 &\n"
        'echo "Root PID: $!"',
        "Root PID: 2167150",
    )
    s.assistant([{"type": "text", "text": "新实验已启动（PID 2167150），测试 16 个全部通过。"}])
    raw = b"\n".join(s.lines()) + b"\n"
    return list(read_transcript("session.jsonl", raw).messages)


def test_a_nohup_job_whose_pid_the_call_printed_is_listed_as_running() -> None:
    text = summarize_transcript(_quant_session(killed=True))  # type: ignore[arg-type]
    pending = section(text, 7)
    assert "Background job still running" in pending, pending
    assert "2167150" in pending and "run_mxw4a8.sh" in pending


def test_a_nohup_job_a_later_call_killed_by_its_pid_is_not_running() -> None:
    s = SessionBuilder()
    s.user("Start the training and stop it when the loss is flat.")
    s.call(
        "Bash",
        {"command": "nohup python train.py > train.log 2>&1 &\necho $!"},
        "48213",
    )
    s.call("Bash", {"command": "tail -n 3 train.log"}, "step 900 loss 0.412\nstep 1000 loss 0.412")
    s.call("Bash", {"command": "kill 48213"}, "")
    s.say("Stopped the run at step 1000.")
    text = summarize_transcript(s.messages)
    assert "Background job still running" not in text
    s2 = SessionBuilder()
    s2.user("Start the training.")
    s2.call("Bash", {"command": "nohup python train.py > train.log 2>&1 &\necho $!"}, "48213")
    s2.say("Started.")
    assert "(id 48213)" in section(summarize_transcript(s2.messages), 7)


def test_an_earlier_summarys_pid_killed_and_tests_rerun_since_are_said_done() -> None:
    text = summarize_transcript(_quant_session(killed=True))  # type: ignore[arg-type]
    pending, current = section(text, 7), section(text, 8)
    for part in (pending, current):
        assert "pid 2119063 killed since: `# Step 1: kill the nohup root first" in part, part
    assert (
        "tests re-run since: `cd /home/u/quant && python -m pytest tests/test_mx.py -q` (ran)"
        in (pending)
    )
    # without the kill, the earlier summary's pid is not said to be done
    text = summarize_transcript(_quant_session(killed=False))  # type: ignore[arg-type]
    assert "2119063 killed since" not in text


# -- N3: a path glued to a CJK word ----------------------------------------------------------------


def test_a_path_glued_to_a_cjk_word_is_the_path_and_a_read_file_is_no_untouched_one() -> None:
    from compactor.facts.patterns import paths

    assert [p for _, p in paths("查看/home/u/x/summary.md 然后总结")] == ["/home/u/x/summary.md"]
    assert [p for _, p in paths("看/home/u/x/a.md然后总结")] == ["/home/u/x/a.md"]
    assert [p for _, p in paths("查看src/app.py")] == ["src/app.py"]
    assert [p for _, p in paths("在 /home/u/文档/报告.md 里")] == ["/home/u/文档/报告.md"]
    s = SessionBuilder()
    s.user("查看/home/u/llm/experiment_summary.md，然后告诉我实验配置")
    s.call(
        "Read", {"file_path": "/home/u/llm/experiment_summary.md"}, "1\t# Experiments\n2\tlr 3e-4"
    )
    s.say("实验配置：学习率 3e-4。")
    files = section(summarize_transcript(s.messages), 3)
    assert "never by a call" not in files, files
    assert "查看/home" not in files
    assert "/home/u/llm/experiment_summary.md" in files


# -- N4: two identical short replies apart are two replies -----------------------------------------


def test_two_identical_short_replies_apart_are_not_one_request_sent_twice() -> None:
    s = SessionBuilder()
    s.user("同步 leo 仓库到服务器")
    s.say("本地有 3 个未推送的提交。要我现在推送吗？")
    s.user("好的")
    s.call("Bash", {"command": "git push origin main"}, "To github.com:leo/sync.git\n  a1..b2")
    s.say("已推送。需要我再检查一次 CI 吗？")
    s.user("好的")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "sent 2 times" not in text, intent
    current = intent[intent.index("Current request") :]
    assert current.startswith('Current request: "好的" (a short reply'), current
    assert "需要我再检查一次 CI 吗" in current  # the question it answers: the latest one
    # a short command sent again is still one request sent again
    s.user("commit and push")
    s.call("Bash", {"command": "git commit -am wip && git push"}, "ok")
    s.user("commit and push")
    assert 'Current request: "commit and push" (sent 2 times' in summarize_transcript(s.messages)


def test_a_pid_job_ps_no_longer_lists_or_the_shell_reports_done_is_not_running() -> None:
    start: dict[str, object] = {"command": "nohup python train.py > train.log 2>&1 &\necho $!"}
    s = SessionBuilder()
    s.user("Run the training.")
    s.call("Bash", start, "48213")
    s.call("Bash", {"command": "ps -p 48213"}, "    PID TTY          TIME CMD")
    s.say("The run is over.")
    assert "Background job still running" not in summarize_transcript(s.messages)
    s = SessionBuilder()
    s.user("Run the training.")
    s.call("Bash", start, "48213")
    s.call(
        "Bash",
        {"command": "ps -p 48213"},
        "    PID TTY          TIME CMD\n  48213 ?   00:01:02 python",
    )
    s.say("Still training.")
    assert "(id 48213)" in section(summarize_transcript(s.messages), 7)
    s = SessionBuilder()
    s.user("Run the training.")
    s.call("Bash", start, "48213")
    s.call(
        "Bash",
        {"command": "tail -n 1 train.log"},
        "step 1000 loss 0.41\n[1]+  Done                    nohup python train.py > train.log 2>&1",
    )
    s.say("Finished.")
    assert "Background job still running" not in summarize_transcript(s.messages)

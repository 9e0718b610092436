"""Blind check 8's wrong statements in the local summary (issue 28, quality pass 7), each on a
session built here by shape: background jobs a ``pkill -f`` pattern ended or whose product a
later command used, a superseded "still running" line, an abridged chat without tool calls, a
proposal the assistant withdrew, a last reply that asked the user for input, shell fragments
taken for files."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_claims import input_items
from compactor.models.local_tail import modelled_with_tail
from compactor.schema import Message

from .planted_session import SessionBuilder
from .test_models_local_session import section

_RUNNING = "Background job still running"
_BG = (
    "Command running in background with ID: {}. Output is being written to: /tmp/tasks/{}.output."
    " You will be notified when it completes."
)


def _started(s: SessionBuilder, job: str, command: str) -> None:
    s.call("Bash", {"command": command, "run_in_background": True}, _BG.format(job, job))


def _ended(s: SessionBuilder, closing: str = "All done: the figures are written.") -> str:
    s.say(closing)
    return summarize_transcript(s.messages)


# -- 1. jobs ended by a pattern kill or by the later use of their product ----------------------


def test_a_job_a_pkill_pattern_matched_is_not_still_running() -> None:
    """biobabel: ``cat > work/_probe.py <<EOF … EOF`` then ``python -u work/_probe.py`` in the
    background (id 7kq2), later ``pkill -f "_probe.py"``: the pattern matches the command that
    started the job (no word of it without a ``/``), so the job ended."""
    s = SessionBuilder()
    s.user("fit the model and plot the smoothers")
    _started(
        s,
        "b7kq2xyz",
        "cd /srv/run\ncat > work/_probe.py <<'EOF'\nimport time\ntime.sleep(900)\nEOF\n"
        "env/bin/python -u work/_probe.py > logs/probe.log 2>&1",
    )
    s.call("Bash", {"command": "tail -3 logs/probe.log"}, "fitting…")
    s.call("Bash", {"command": 'pkill -f "_probe.py" 2>/dev/null; echo "killed probe"'}, "Exit 144")
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "b7kq2xyz" not in section(text, 9), text


def test_a_shell_job_killed_by_its_process_name_is_not_still_running() -> None:
    s = SessionBuilder()
    s.user("watch the build")
    s.call(
        "Bash",
        {
            "command": "cd /srv && ./tools/watchdogd --dir out > logs/w.log 2>&1 &\n"
            'echo "probe started pid $!"'
        },
        "probe started pid 246184",
    )
    s.call("Bash", {"command": "killall watchdogd"}, "")
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "246184" not in section(text, 9), text


def test_a_kill_pattern_that_matches_another_command_leaves_the_job_running() -> None:
    s = SessionBuilder()
    s.user("watch the build")
    s.call(
        "Bash",
        {
            "command": "env/bin/python -u work/_probe.py > logs/probe.log 2>&1 &\n"
            'echo "probe started pid $!"'
        },
        "probe started pid 246184",
    )
    s.call("Bash", {"command": 'pkill -f "other_script.py"'}, "")
    text = _ended(s)
    assert _RUNNING in section(text, 7) and "246184" in section(text, 9), text


def test_an_install_job_whose_packages_a_later_command_used_is_not_still_running() -> None:
    """biobabel: ``pip install nbformat nbconvert > logs/pip.log`` in the background, never
    notified; a later command that succeeded ran ``import nbformat``: the install finished."""
    s = SessionBuilder()
    s.user("build the notebook")
    _started(s, "bdc9q", "env/bin/python -m pip install nbformat nbconvert > logs/pip.log 2>&1")
    s.call(
        "Bash",
        {"command": 'env/bin/python -c "import nbformat; print(nbformat.__version__)"'},
        "5.10.4",
    )
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "bdc9q" not in section(text, 9), text


def test_an_install_job_whose_packages_only_failed_commands_used_may_still_run() -> None:
    s = SessionBuilder()
    s.user("build the notebook")
    _started(s, "bdc9q", "env/bin/python -m pip install nbformat > logs/pip.log 2>&1")
    s.call(
        "Bash",
        {"command": 'env/bin/python -c "import nbformat"'},
        "ModuleNotFoundError: No module named 'nbformat'",
        error=True,
    )
    text = _ended(s)
    assert _RUNNING in section(text, 7) and "bdc9q" in section(text, 7), text


# -- 6. shell fragments are not files ------------------------------------------------------------


def test_code_inside_a_quoted_one_liner_is_not_a_created_file() -> None:
    """toolerr: ``node -e "… filter(k => k.toLowerCase() …)"``: the ``>`` of the arrow is
    JavaScript inside the quotes, not a redirect to a file ``k.toLowerCase``."""
    s = SessionBuilder()
    s.user("which exports mention zod?")
    s.call(
        "Bash",
        {
            "command": "node -e \"const ai = require('./node_modules/ai'); "
            "console.log(Object.keys(ai).filter(k => k.toLowerCase().includes('zod')))\""
        },
        "[ 'zodSchema' ]",
    )
    s.call("Bash", {"command": "echo ok > notes/result.txt"}, "")
    text = _ended(s, "Only zodSchema is exported.")
    assert "toLowerCase" not in section(text, 3) and "toLowerCase" not in section(text, 8), text
    assert "notes/result.txt" in section(text, 3), text


def test_a_sed_script_with_semicolons_is_not_a_changed_file() -> None:
    """biobabel: ``sed -i 's/a(p, "\\(x[^"]*\\)"/a("\\1", p/; s/…/…/' work/diag.py``: the
    ``;`` inside the quoted script does not end the command, so the edited file is
    ``work/diag.py`` and no piece of the script is listed as a file."""
    s = SessionBuilder()
    s.user("save the figures under outputs/")
    script = 's/gg.ggsave(p, "\\(outputs[^"]*\\)"/gg.ggsave("\\1", p/; s/save(q, "x"/save("x", q/'
    s.call(
        "Bash",
        {"command": f"cd /srv\nsed -i '{script}' work/diag.py\ngrep -n ggsave work/diag.py"},
        "",
    )
    text = _ended(s, "The figures are saved under outputs/.")
    files = section(text, 3) + section(text, 8)
    assert "work/diag.py" in files and "gg.ggsave(" not in files and "outputs[^" not in files, text


def _chat(*turns: str) -> list[Message]:
    roles = ("user", "assistant")
    return [Message(roles[n % 2], t) for n, t in enumerate(turns)]


# -- 2. a superseded "still running" status is not a result -------------------------------------


def _watched_job(s: SessionBuilder, final: str) -> str:
    s.user("run the notebook on the cluster and report")
    s.call("Bash", {"command": "sbatch --parsable run.sbatch"}, "77001234")
    s.call("Bash", {"command": "sacct -j 77001234 --format=State"}, "77001234 RUNNING 0:0")
    s.say(
        "My watcher exited early — job 77001234 is actually still RUNNING (1:46 elapsed) with "
        "the fixed notebook (the fix is confirmed present)."
    )
    s.call("Bash", {"command": "sacct -j 77001234 -n --format=State"}, final)
    return _ended(s, "The notebook ran; the report is in report.md.")


def test_a_running_status_a_later_result_reports_done_is_not_listed() -> None:
    """biobabel: "job 34123412 is actually still RUNNING" listed among the results although the
    same job later reported ``final state: COMPLETED``."""
    text = _watched_job(s=SessionBuilder(), final="final state: COMPLETED\n77001234 done")
    assert "still RUNNING" not in section(text, 5), text


def test_a_running_status_nothing_later_ends_stays_listed() -> None:
    text = _watched_job(s=SessionBuilder(), final="77001234 RUNNING 0:0")
    assert "77001234 is actually still RUNNING" in section(text, 5), text


# -- 3. a log without tool calls ----------------------------------------------------------------


def test_a_chat_without_tool_calls_claims_no_file_work_and_lists_what_the_text_created() -> None:
    """cbm: an abridged chat (no tool calls) whose assistant says "Created Plan-Notes.md" got
    "No file was created, edited or deleted."."""
    text = summarize_transcript(
        _chat(
            "Plan the engine in a design doc.",
            "Created the design doc Engine-Plan.md: four layers and a host seam.",
            "Now the allocator.",
            "Created BandAllocator.cs — it packs the atlas per band (see Mos6569.cs:809).",
            "Thanks.",
            "You're welcome.",
        )
    )
    files = section(text, 3)
    assert "No file was created" not in text, text
    assert "per the assistant's text" in files, files
    assert "Engine-Plan.md" in files and "BandAllocator.cs" in files, files
    assert "Mos6569.cs" not in files, files
    assert "no tool result was flagged" not in section(text, 4), text


def test_a_chat_without_tool_calls_or_created_files_says_nothing_is_known_of_files() -> None:
    text = summarize_transcript(_chat("What is a raster IRQ?", "An interrupt at a scanline."))
    assert "No file was created" not in text and "no tool calls" in section(text, 3), text


def test_a_session_with_calls_and_no_changes_still_says_no_file_was_created() -> None:
    s = SessionBuilder()
    s.user("what is in the folder?")
    s.call("Bash", {"command": "ls"}, "a.txt")
    text = _ended(s, "One file: a.txt.")
    assert "No file was created, edited or deleted." in section(text, 3), text


# -- 4. a proposal the assistant withdrew ---------------------------------------------------------


def test_a_quoted_idea_the_assistant_later_called_over_built_is_not_a_decision() -> None:
    """cbm: "the answer that fits is cycle-tagged scheduled mutations" listed as a decision
    after the assistant wrote "my prior "scheduled mutations" idea was over-built"."""
    text = summarize_transcript(
        _chat(
            "How should mid-frame changes reach the chip?",
            "Then the open question becomes what to add, and the answer that fits is "
            "cycle-tagged scheduled mutations, not a reactive mid-frame callback.",
            "Look at the emulator's event system.",
            'The event hub is synchronous — my prior "scheduled mutations" idea was over-built. '
            "Decision: reuse the raster compare as the split mechanism.",
            "Good, write it up.",
            "Written up in the chat above; nothing else changes.",
        )
    )
    assert "scheduled mutations, not a reactive" not in section(text, 5), text
    assert "reuse the raster compare" in section(text, 5), text


def test_proposals_before_scratch_that_are_not_decisions() -> None:
    s = SessionBuilder()
    s.user("speed up the importer")
    s.call("Bash", {"command": "python bench.py"}, "12.0 s")
    s.say("Rather than parse twice, I'll cache the parsed rows in Redis.")
    s.call("Bash", {"command": "python bench.py --profile"}, "parse: 80 %")
    s.say("Scratch that — the parse is the cost, so I'll switch the parser to orjson.")
    s.call("Bash", {"command": "python bench.py"}, "4.1 s")
    text = _ended(s, "Done: 12.0 s → 4.1 s with orjson.")
    assert "Redis" not in section(text, 5), text


def test_a_plan_replaced_instead_after_its_call_failed_is_not_a_decision() -> None:
    """biobabel: "Rather than re-queue for every step, I'll hold one interactive allocation"
    then the holder job was rejected and the next message said "I'll run steps via srun …
    instead"."""
    s = SessionBuilder()
    s.user("run the pipeline on the cluster")
    s.say("Rather than re-queue for every step, I'll hold one interactive allocation.")
    s.call("Bash", {"command": "sbatch hold.sbatch"}, "sbatch: error: disabled", error=True)
    s.say("Sleep jobs are blocked, so I'll run steps via srun on idle cores instead.")
    s.call("Bash", {"command": "srun python step1.py"}, "step1 ok")
    text = _ended(s, "All steps ran with srun.")
    assert "hold one interactive allocation" not in section(text, 5), text


# -- 5. a last reply that asked the user for input ------------------------------------------------


def test_a_last_reply_asking_for_steps_the_user_gave_is_not_answered() -> None:
    """agentj: the user gave five steps, asked to make them a skill, and the agent answered
    "you have not provided any steps, please provide them" twice: the summary said "the last
    request was answered; nothing is pending"."""
    text = summarize_transcript(
        _chat(
            "Step one: collect the class, seat and name.",
            "Noted.",
            "Step two: collect three to five things done.",
            "Noted.",
            "Turn the steps above into a skill.",
            "You have not provided any steps yet. Please provide the steps and I'll start.",
            "Which steps did I give?",
            "According to the conversation you have not provided any specific steps. "
            "Please provide the steps.",
        )
    )
    pending, work, step = section(text, 7), section(text, 8), section(text, 9)
    assert "nothing is pending" not in text and "was completed" not in work, text
    assert "asked the user for input" in pending, pending
    assert "Turn the steps above into a skill." in pending, pending
    assert "Which steps did I give?" in pending, pending
    assert "user's messages" in step and "Turn the steps above" in step, step


def test_a_last_reply_that_only_offers_more_still_ends_answered() -> None:
    text = summarize_transcript(
        _chat("Summarise the README.", "It explains install and usage. Anything else?")
    )
    assert "asked the user for input" not in text, text


def _logged_job(poll: str) -> str:
    s = SessionBuilder()
    s.user("train the model")
    _started(s, "bt1x9", 'python train.py > logs/train.log 2>&1; echo "TRAIN EXIT=$?"')
    s.call("Bash", {"command": "tail -3 /srv/run/logs/train.log"}, poll)
    return _ended(s, "Training is under way; the log shows the epochs.")


def test_a_job_whose_output_a_later_read_showed_ended_is_not_still_running() -> None:
    """A later check of the job's own output (the file its command redirects to) printed its
    end (``TRAIN EXIT=0``): the job is over."""
    text = _logged_job("epoch 10 loss 0.12\nTRAIN EXIT=0")
    assert _RUNNING not in section(text, 7) and "bt1x9" not in section(text, 9), text


def test_a_job_whose_output_shows_progress_only_is_still_running() -> None:
    text = _logged_job("epoch 3 loss 0.40\nTraceback (most recent call last): retrying batch")
    assert _RUNNING in section(text, 7) and "bt1x9" in section(text, 7), text


def test_a_hybrid_tail_still_shows_a_last_reply_that_asked_for_input() -> None:
    """The kept tail's texts are unset in the state model (they are right below the summary):
    the ask is still read from the tail's last reply."""
    head = _chat("Step one: collect the names.", "Noted.")
    tail = _chat("Make the steps a skill.", "You have not provided any steps. Please provide them.")
    items = input_items(modelled_with_tail(head, tail), 200)
    assert items and "Make the steps a skill." in items[1], items


def _failed_then(final: str) -> str:
    s = SessionBuilder()
    s.user("run the notebook on the cluster and report")
    s.call("Bash", {"command": "sbatch --parsable run.sbatch"}, "77001234")
    s.call("Bash", {"command": "ls -la logs/nbexec_77001234.out"}, "364 logs/nbexec_77001234.out")
    s.say("Found that job 77001234 only ran ~2 min (364-byte log): it failed early, not late.")
    s.call("Bash", {"command": "sacct -j 77001234 -n --format=State,ExitCode"}, final)
    return _ended(s, "Checked the job state with sacct; what it printed is listed above.")


def test_a_failed_status_a_later_report_shows_completed_is_not_listed() -> None:
    """biobabel: "Job 34123412 … failed early" was listed although the same job later
    reported ``final state: COMPLETED`` (its watcher had read the old log)."""
    text = _failed_then("final state: COMPLETED exit code 0\n=== 77001234 done ===")
    assert "failed early" not in section(text, 5), text


def test_a_failed_status_a_later_report_confirms_stays_listed() -> None:
    text = _failed_then("77001234 FAILED exit code 1")
    assert "failed early" in section(text, 5), text


def test_a_conditional_ask_or_an_ask_after_work_keeps_the_answered_wording() -> None:
    chat = summarize_transcript(
        _chat(
            "Why does the import fail?", "A circular import. If it persists, please share the log."
        )
    )
    s = SessionBuilder()
    s.user("deploy the site")
    s.call("Bash", {"command": "npm run deploy"}, "deployed to https://example.test")
    worked = _ended(s, "Deployed. Please provide the DNS credentials to add the custom domain.")
    for text in (chat, worked):
        assert "asked the user for input" not in text, text


def test_scratch_that_inside_a_message_withdraws_its_own_proposal_only() -> None:
    s = SessionBuilder()
    s.user("speed up the importer")
    s.say("Rather than guess, I'll profile the importer with py-spy first.")
    s.call("Bash", {"command": "py-spy record -o p.svg -- python imp.py"}, "parse: 80 %")
    s.say(
        "The parse is the cost. Rather than tune it, I'll cache the parsed rows in Redis. "
        "Hmm, scratch that — I'll switch the parser to orjson, which removes the cost."
    )
    s.call("Bash", {"command": "python bench.py"}, "4.1 s")
    text = _ended(s, "Done: 12.0 s → 4.1 s with orjson; the importer now parses with orjson.")
    assert "Redis" not in section(text, 5) and "py-spy first" in section(text, 5), text


def test_a_reply_that_asked_for_input_is_not_quoted_as_the_answer() -> None:
    text = summarize_transcript(
        _chat("Make the steps above a skill.", "You have not provided any steps. Please provide.")
    )
    work = section(text, 8)
    assert "The answer to it" not in work and "NOT an answer" in work, work


def test_a_last_reply_ending_with_a_full_width_question_mark_awaits_an_answer() -> None:
    """agentj's replies are Chinese: a closing "是否開始執行第一階段開發？" is a question to the
    user, not an answer that leaves nothing pending."""
    text = summarize_transcript(
        _chat("將以上步驟製作成skill", "我已規劃好架構。\n是否開始執行第一階段開發？")
    )
    assert "nothing is pending" not in text, text
    assert "是否開始執行第一階段開發" in section(text, 9), section(text, 9)


def _watcher(correction: str) -> str:
    s = SessionBuilder()
    s.user("run the notebook and report")
    s.call("Bash", {"command": "sbatch --parsable run.sbatch"}, "77001234")
    s.call("Bash", {"command": "tail logs/nbexec_*.out"}, "KeyError: slice(None, 4, None)\nEXIT=1")
    s.say("Found that the same error persists (still EXIT=1): the fix didn't take effect.")
    s.call("Bash", {"command": "ls -la logs/"}, "nbexec_77001111.out 8006\nnbexec_77001234.out 364")
    s.say(correction)
    s.call("Bash", {"command": "sacct -j 77001234 -n --format=State"}, "COMPLETED")
    return _ended(s, "The notebook ran to the end; the report and figures are written.")


def test_a_failure_the_assistant_later_said_came_from_the_old_log_is_not_a_result() -> None:
    """biobabel: "Same error … --allow-errors didn't take effect (still EXIT=1)" was listed,
    but the assistant found next that "the watcher's traceback was from the *old* log"."""
    text = _watcher("The watcher's traceback was from the *old* log (the glob matched both).")
    assert "didn't take effect" not in section(text, 5), text


def test_a_failure_without_a_correction_stays_a_result() -> None:
    text = _watcher("Let me check the scheduler's accounting for the job.")
    assert "didn't take effect" in section(text, 5), text

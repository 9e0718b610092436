"""Blind check 54 (helper fix54a): a detaching launcher (``tmux new-session -d``, ``nohup … &``)
whose immediate exit is not the end of the job it started, ``pid=`` numbers printed inside a
polled session's output, an answer that says the work is not done, and a ``git clone`` into a
shell variable. Every session is built here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session as CcSession
from .cc_session import cc_summary
from .codex_rollout import Rollout, codex_say, codex_summary, codex_user, exec_head, sections

_CWD = "/home/ana/evalkit"
_PRE = 'cd /home/ana/evalkit && PREFIX="fewshot_r80_$(date +%Y%m%d_%H%M%S)" && '
_NOHUP = (
    _PRE + 'mkdir -p "save/$PREFIX" && nohup bash -lc "./run_all.sh 1000" > save/launch.log 2>&1 & '
    'echo "PREFIX=$PREFIX PID=$!"'
)
_TMUX = (
    _PRE + 'SESSION="evk_1000_121101" && tmux new-session -d -s "$SESSION" '
    "\"bash -lc './run_all_tmux.sh 1000 0 80'\" && echo PREFIX=$PREFIX && echo SESSION=$SESSION"
)
_ANSWER = (
    "The 1000-prompt run is now going in the background in tmux session `evk_1000_121101`. "
    "The plot is not done yet: the run will take hours; once it finishes I will draw the plot."
)


def _eval_run(
    tmp_path: Path, tmux_gone: bool = False, answer: str = _ANSWER, ps: bool = True
) -> dict[str, str]:
    r = Rollout(_CWD)
    r.records.append(codex_user("run the few-shot eval on one task first"))
    engine = "(EngineCore_DP0 pid=541270) INFO loading weights\n"
    r.exec("cd /home/ana/evalkit && python main.py --task dates", exec_head(None, engine, 94182))
    step = exec_head(None, "(EngineCore_DP0 pid=541270) INFO step 10/40\n", 94182)
    r.stdin(94182, "", step, yield_ms=30000)
    r.records.append(codex_user("ok, stop it and run all tasks with 20 prompts"))
    r.stdin(94182, "\u0003", exec_head(130, "^C\n"), yield_ms=30000)
    tasks = (
        "task finished successfully: task=shuffled_objects pid=545438 rc=0\n"
        "task finished with non-zero exit: task=object_counting pid=545442 rc=1\n"
    )
    r.exec("cd /home/ana/evalkit && ./run_all.sh 20", exec_head(None, "launching 4 tasks\n", 14956))
    r.stdin(14956, "", exec_head(0, tasks + "all tasks done\n"), yield_ms=30000)
    r.records.append(codex_user("good. now the 1000-prompt run and then the plot"))
    r.exec(_NOHUP, exec_head(0, "PREFIX= PID=597828\n"))
    if ps:
        r.exec("ps -p 597828 -o pid,cmd", exec_head(1, "    PID CMD\n"))
    r.exec(_TMUX, exec_head(0, "PREFIX=fewshot_r80_20260313_121101\nSESSION=evk_1000_121101\n"))
    r.exec(
        "tmux ls", exec_head(0, "evk_1000_121101: 1 windows (created Fri Mar 13 12:11:01 2026)\n")
    )
    if tmux_gone:
        r.exec("tmux ls", exec_head(1, "no server running on /tmp/tmux-1000/default\n"))
    r.records.append(codex_say(answer))
    text = codex_summary(r.records, tmp_path, "0c1d2e3f-0000-4000-8000-000000000054", _CWD)
    return sections(text)


# W1: a detaching launcher's exit is not the end of the job it started


def test_a_tmux_launcher_leaves_its_session_running(tmp_path: Path) -> None:
    parts = _eval_run(tmp_path)
    jobs = parts["7"]
    assert "still running" in jobs and "(id evk_1000_121101)" in jobs, jobs
    assert "evk_1000_121101" in parts["9"] and "still running" in parts["9"], parts["9"]
    assert "same command ran again" not in jobs, jobs


def test_a_tmux_session_a_later_listing_shows_gone_is_ended(tmp_path: Path) -> None:
    parts = _eval_run(tmp_path, tmux_gone=True)
    assert "(id evk_1000_121101)" not in parts["7"], parts["7"]
    assert "evk_1000_121101" not in parts["9"], parts["9"]


def test_a_nohup_pid_job_is_not_ended_by_a_relaunch_under_tmux(tmp_path: Path) -> None:
    """No ``ps`` of the nohup launch's pid: it is still running, not "ran again, which exited"
    because the tmux launch shares its ``cd … && PREFIX=… &&`` preamble."""
    jobs = _eval_run(tmp_path, ps=False)["7"]
    assert "(id 597828)" in jobs and "same command ran again" not in jobs, jobs
    assert "(id evk_1000_121101)" in jobs, jobs


def test_a_shared_preamble_before_another_launcher_is_not_the_same_command() -> None:
    from compactor.models.local_abandoned import same_command

    pre = "cd /srv/exp && mkdir -p logs/run.d && "
    nohup = pre + "nohup python train.py > logs/run.d/out.txt 2>&1 &"
    tmux = pre + 'tmux new -d -s T "python train.py > logs/run.d/out.txt"'
    assert not same_command(nohup, tmux)
    assert same_command(nohup, nohup.replace("/srv/exp", "/srv/exp/"))


def test_launchers_name_their_job_by_what_they_report() -> None:
    from compactor.facts.detached import check_end, launched

    assert launched('S=w1 && tmux new-session -d -s "$S" "python a.py"', "") == "w1"
    assert launched("tmux new -d -s $S 'python a.py'", "SESSION: x\n") == ""  # not a literal
    assert launched("screen -dmS train python t.py", "") == "train"
    assert launched("docker run -d --name web nginx", "3f2a9c1d0e4b5a6c\n") == "web"
    assert launched("docker run -d nginx", "3f2a9c1d0e4b5a6c7d8e\n") == "3f2a9c1d0e4b"
    assert launched("tmux new-session -s w1", "") == ""  # attached: no detach
    assert launched("tmux new -d -s w1 x", "duplicate session: w1") == ""
    label = "tmux new -d -s w1 x"
    assert check_end("tmux ls", "w2: 1 windows", "w1", label).startswith("gone")
    assert check_end("tmux ls", "w1: 1 windows", "w1", label) == ""
    assert check_end("tmux kill-session -t w1", "", "w1", label).startswith("stopped")
    assert check_end("docker ps", "", "w1", label) == ""  # another kind's listing
    assert check_end("ps -p 4242 -o pid", "  PID\n", "4242").startswith("gone")
    assert check_end("ps -p 4242 -o pid", "  PID\n 4242\n", "4242") == ""
    assert check_end("tmux ls", "no server running on /tmp/x", "4242") == ""
    assert check_end("kill -0 4242 && echo alive", "alive", "4242") == ""  # a check, no kill
    assert check_end("kill 4242", "", "4242").startswith("stopped")


# W2: pids printed inside a polled session's output are not jobs


def test_pids_printed_in_a_polled_session_are_not_jobs(tmp_path: Path) -> None:
    parts = _eval_run(tmp_path)
    text = parts["7"] + parts["9"]
    for pid in ("541270", "545438", "545442"):
        assert pid not in text, text


# W3: an answer that says the work is not done is no completion


def test_an_answer_that_says_the_work_is_not_done_is_not_completed(tmp_path: Path) -> None:
    parts = _eval_run(tmp_path)
    state = parts["8"]
    assert "was completed" not in state, state
    assert "answered: the work is still in progress (the answer says so)" in state, state
    assert "evk_1000_121101" in parts["7"], parts["7"]


def test_not_done_words_by_shape() -> None:
    from compactor.models.local_inprogress import says_not_done

    assert says_not_done("아직 plot은 완료되지 않았습니다. 수시간 단위 작업입니다.")
    assert says_not_done("学習はまだ終わっていません。")
    assert says_not_done("训练还没有完成。")
    assert says_not_done("Training is still running; once it finishes I will report the scores.")
    assert not says_not_done(
        "Done: the tests pass and the dev server is still running on port 3000."
    )
    assert not says_not_done("All three fixes are in and the suite passes.")


def test_a_completed_answer_stays_completed(tmp_path: Path) -> None:
    parts = _eval_run(tmp_path, tmux_gone=True, answer="The run finished and the plot is saved.")
    assert "The latest request was completed" in parts["8"], parts["8"]


# W4: a folder named by a shell variable of the same command


def test_a_clone_into_a_shell_variable_is_resolved_or_dropped(tmp_path: Path) -> None:
    r = Rollout(_CWD)
    r.records.append(codex_user("compare our copy with upstream"))
    clone = (
        "repo=/tmp/upstream_$(date +%s); git clone --depth 1 https://example.org/ana/upkit.git "
        '"$repo" && echo "$repo"'
    )
    r.exec(
        clone,
        exec_head(0, "Cloning into '/tmp/upstream_1773643477'...\n/tmp/upstream_1773643477\n"),
    )
    r.exec('out=build/cmp && mkdir -p "$out/diffs"', exec_head(0, ""))
    r.exec('d=/tmp/w_$(date +%s) && mkdir -p "$d"', exec_head(0, ""))
    r.records.append(codex_say("Cloned upstream and compared: two files differ."))
    text = codex_summary(r.records, tmp_path, "0c1d2e3f-0000-4000-8000-000000000154", _CWD)
    files = sections(text)["3"]
    assert "$repo" not in files and "$out" not in files and "$d" not in files, files
    assert "/tmp/upstream_1773643477/" in files, files
    assert "build/cmp/diffs" in files, files
    assert "$PREFIX" not in _eval_run(tmp_path)["3"]


def test_a_variable_printed_with_its_name_is_resolved() -> None:
    from compactor.facts.shellvars import resolve_path

    command = 'P="run_$(date +%s)" && mkdir -p "save/$P" && echo P=$P'
    assert resolve_path("save/$P", command, "P=run_1773643477\n") == "save/run_1773643477"
    assert resolve_path("save/$P", command, "P= PID=4242\n") == ""


# N7: every section 9 that waits says it wins over the closing "continue without asking"


def test_an_answered_session_says_its_wait_wins_over_the_closing_instruction(
    tmp_path: Path,
) -> None:
    s = CcSession()
    s.user("what does the retry flag do?")
    s.say("It retries a failed request up to three times with a growing delay.")
    step = sections(cc_summary(s, tmp_path))["9"]
    assert "wait for the user" in step.lower(), step
    assert "wins over the closing instruction to continue without asking" in step, step


def test_a_wait_with_a_job_running_is_left_as_it_is(tmp_path: Path) -> None:
    step = _eval_run(tmp_path)["9"]
    assert "wins over the closing instruction" not in step, step


def test_a_nohup_job_launched_again_under_tmux_is_replaced_not_running(tmp_path: Path) -> None:
    """The same script launched again by another detaching launcher (the agent found the nohup
    run gone and relaunched it under tmux): the earlier launch is no second job running (seen
    set 54, cx_gfn_bg, after row 2530)."""
    r = Rollout(_CWD)
    r.records.append(codex_user("now the 1000-prompt run and then the plot"))
    r.exec(_NOHUP, exec_head(0, "PREFIX= PID=597828\n"))
    again = _TMUX.replace("./run_all_tmux.sh 1000 0 80", "./run_all.sh 1000")
    r.exec(again, exec_head(0, "PREFIX=fewshot_r80_20260313_121101\nSESSION=evk_1000_121101\n"))
    r.records.append(codex_say(_ANSWER))
    parts = sections(
        codex_summary(r.records, tmp_path, "0c1d2e3f-0000-4000-8000-000000000055", _CWD)
    )
    jobs = parts["7"]
    assert "launched again later" in jobs and "(id 597828)" in jobs, jobs
    assert "still running" in jobs and "(id evk_1000_121101)" in jobs, jobs
    assert "597828" not in parts["9"] and "evk_1000_121101" in parts["9"], parts["9"]

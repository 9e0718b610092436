"""Jobs with a known end (issue 28, blind check 16): a Codex ``exec_command`` that returned a
session id after its short yield and was never polled again is no proof of a running process
when its command is bounded (wrapped in ``timeout 4s``, or a query such as ``rg``/``ls``/``X
list``): it has ended by the time the session resumes. A server never polled again stays
pending; a job that is the session's last record stays as it was."""

from __future__ import annotations

from compactor.facts.bounded import bounded_reason
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section


def _start(s: SessionBuilder, cmd: str, sid: int, out: str = "") -> None:
    s.call(
        "exec_command",
        {"cmd": cmd, "yield_time_ms": 1000},
        f"Chunk ID: c{sid}\nWall time: 1.0012 seconds\nProcess running with session ID {sid}\n"
        f"Output:\n{out}",
    )


def _session() -> SessionBuilder:
    s = SessionBuilder()
    s.user("Find why the robot does not move and make it walk.")
    _start(
        s, "rg -n 'planner|costmap' /srv/ws/src -S", 61001, "Total output lines: 590\nx.launch:1"
    )
    _start(s, "bash -lc 'source /opt/env.sh && nodectl list'", 61002, "/base\n/mover\n")
    _start(s, "bash -lc 'source /opt/env.sh && timeout 4s pubtool -r 10 /cmd \"{x: 1}\"'", 61003)
    _start(s, "cd /opt/sdk && timeout 8s bash -lc \"printf '\\n' | sudo -S ./walker\"", 61004)
    _start(s, "bash -lc 'source /opt/env.sh && devserver --port 8080'", 61005, "listening")
    s.call("exec_command", {"cmd": "ping -c 3 10.0.0.2"}, "Process exited with code 0\n3 received")
    s.say("The network path is fine; the remaining difference is the root privilege.")
    return s


def test_bounded_commands_never_polled_again_have_ended() -> None:
    pending = section(summarize_transcript(_session().messages), 7)
    for sid in ("61001", "61002", "61003", "61004"):
        assert sid not in pending, pending
    assert "61005" in pending, pending  # a server: no known end, still pending


def test_a_bounded_job_at_the_very_end_is_not_judged() -> None:
    s = SessionBuilder()
    s.user("Search the tree.")
    _start(s, "rg -n needle /srv/src", 7001, "a.py:1: needle")
    assert "7001" in section(summarize_transcript(s.messages), 7)


def test_bounded_reason_by_shape() -> None:
    assert bounded_reason("timeout 4s pubtool -r 10 /cmd") == "timeout 4s"
    assert bounded_reason("bash --noprofile --norc -lc 'source a && ls -la /x'").startswith("ls")
    assert bounded_reason("cd /x && git status").startswith("git status")
    for open_ended in (
        "npm run dev",
        "tail -f /var/log/x.log",
        "python train.py --epochs 90",
        "rg x . & sleep 1",
        "bash -lc 'source a && roslaunch pkg x.launch'",
        "sleep infinity",
        "ping 10.0.0.2",
        "timeout 4s x && npm run dev",
        "timeout 3h python train.py",
    ):
        assert bounded_reason(open_ended) == "", open_ended


PROFILE_NOISE = "/home/op/.bash_profile: line 1: souce: command not found\n"


def test_exit_124_of_the_agents_own_timeout_is_no_failure_and_startup_noise_no_error() -> None:
    """Blind check 16 wrong statement 9: a time-boxed run (``timeout 8s``) polled to its exit
    124 worked (the tick rose); the login shell's start-up error line is not its error."""
    s = SessionBuilder()
    s.user("Check the walker runs as root.")
    _start(
        s,
        "cd /opt/sdk/build && timeout 8s bash -lc \"printf 'pw\\n\\n' | sudo -S -p '' ./walker\"",
        77163,
        PROFILE_NOISE + "UDP Initialized.",
    )
    s.call(
        "write_stdin",
        {"session_id": 77163, "yield_time_ms": 4000},
        "Chunk ID: d1\nWall time: 3.9 seconds\nProcess exited with code 124\nOutput:\n"
        "t=1002ms send(mode=2) recv(mode=0, tick=6966803)\nt=2004ms recv(mode=0, tick=6972827)\n",
    )
    s.call("exec_command", {"cmd": "ls /opt/sdk/build"}, "Process exited with code 0\nwalker")
    s.say("Root walker works; the node runs without root.")
    summary = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(summary, 7), section(summary, 7)
    assert "souce" not in summary and "bash_profile" not in summary, summary
    assert "failed (exit code 124)" not in summary


def test_exit_124_without_an_own_timeout_or_with_an_error_line_stays_a_failure() -> None:
    s = SessionBuilder()
    s.user("Run the walker.")
    s.call("exec_command", {"cmd": "./walker --steps 3"}, "Process exited with code 124\nOutput:\n")
    s.call(
        "exec_command",
        {"cmd": "timeout 6s ./walker"},
        "Process exited with code 124\nOutput:\n" + PROFILE_NOISE + "Error: Pthread set sched "
        "policy failed.\n",
    )
    errors = section(summarize_transcript(s.messages), 4)
    assert "./walker --steps 3" in errors and "exit code 124" in errors, errors
    assert "Pthread set sched policy failed" in errors and "souce" not in errors, errors


def test_pgrep_and_pkill_exit_one_is_no_process_matched() -> None:
    s = SessionBuilder()
    s.user("Make sure no old walker runs.")
    s.call("exec_command", {"cmd": "pgrep -a -f 'walker|bridge'"}, "Process exited with code 1\n")
    s.call("exec_command", {"cmd": "pkill -f /opt/sdk/walker"}, "Process exited with code 1\n")
    s.say("No old walker is running.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "failed" not in errors.replace("No tool call failed", ""), errors


def test_a_find_that_printed_hits_beside_permission_denied_lines_found_them() -> None:
    """Blind check 16 wrong statement 1 (ua-walk): ``find`` exited 1 only for two unreadable
    folders and printed the binary the agent then used; polled through ``write_stdin``."""
    s = SessionBuilder()
    s.user("Find the walker binary.")
    _start(s, 'find /home/op -iname "walker" -o -iname "walker.*"', 84892)
    s.call(
        "write_stdin",
        {"session_id": 84892, "yield_time_ms": 1000},
        "Chunk ID: e1\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\n"
        "find: '/home/op/.cache/dconf': Permission denied\nfind: '/home/op/.dbus': Permission "
        "denied\n/home/op/sdk/build/walker\n/home/op/sdk/examples/walker.cpp\n",
    )
    s.call("exec_command", {"cmd": "sed -n 1,40p /home/op/sdk/examples/walker.cpp"}, "int main")
    summary = summarize_transcript(s.messages)
    assert "Unresolved failure" not in summary and "failed (exit code 1)" not in summary, summary

    # the same find with only denied lines and no hit: still a failure
    s2 = SessionBuilder()
    s2.user("Find the walker binary.")
    s2.call(
        "exec_command",
        {"cmd": 'find /root -iname "walker"'},
        "Process exited with code 1\nOutput:\nfind: '/root': Permission denied\n",
    )
    s2.call("exec_command", {"cmd": "sed -n 1,40p /home/op/notes.txt"}, "notes")
    assert "failed (exit code 1)" in section(summarize_transcript(s2.messages), 4)


def test_a_kill_of_the_same_pids_through_sudo_fixes_a_refused_kill() -> None:
    """ua-live (surfaced once the jobs left section 7): ``kill 12204`` refused ("Operation not
    permitted"), then ``printf pw | sudo -S kill 12198 12204`` succeeded: fixed, not unresolved.
    A kill of other pids is no retry."""
    s = SessionBuilder()
    s.user("Restart the controller.")
    s.call(
        "exec_command",
        {"cmd": "kill 12204 && sudo -S -p '' kill 12198"},
        "Process exited with code 1\nOutput:\n/bin/bash: line 0: kill: (12204) - Operation not "
        "permitted\n",
    )
    s.call(
        "exec_command",
        {"cmd": "printf '%s\\n' 'pw' | sudo -S -p '' kill 12198 12204"},
        "Process exited with code 0\nOutput:\n",
    )
    s.call("exec_command", {"cmd": "./start_controller.sh"}, "Process exited with code 0\nstarted")
    assert "Unresolved failure" not in section(summarize_transcript(s.messages), 7)
    assert "Fixed" in section(summarize_transcript(s.messages), 4)

    s2 = SessionBuilder()
    s2.user("Restart the controller.")
    s2.call(
        "exec_command",
        {"cmd": "kill 12204"},
        "Process exited with code 1\nOutput:\nkill: (12204) - Operation not permitted\n",
    )
    s2.call("exec_command", {"cmd": "kill 5512"}, "Process exited with code 0\nOutput:\n")
    s2.call("exec_command", {"cmd": "./start_controller.sh"}, "Process exited with code 0\nstarted")
    assert "Fixed" not in section(summarize_transcript(s2.messages), 4)

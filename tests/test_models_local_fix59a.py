"""Blind check 59 (fix59a): a job started with ``nohup … & echo $!`` that a later process
listing did not show is not running (W1)."""

from __future__ import annotations

from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .test_models_local_session import section

_LAUNCH = (
    "nohup /opt/venv/bin/python /srv/relay/relay_north.py > /tmp/north.log 2>&1 & "
    'echo "PID north: $!"'
    "\nnohup /opt/venv/bin/python /srv/relay/relay_south.py > /tmp/south.log 2>&1 & "
    'echo "PID south: $!"'
)


def _summary(s: CcSession, tmp_path: Any) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _relays(check: str, out: str, error: bool) -> CcSession:
    """Two bots started with ``nohup … & echo "PID: $!"``, a look at a log, then ``check``."""
    s = CcSession()
    s.user("Bring both relay bots up.")
    s.bash(_LAUNCH, "PID north: 4410021\nPID south: 4410022")
    s.bash("sleep 3; cat /tmp/north.log", "")
    s.call("Bash", {"command": check}, out, error=error)
    s.assistant([{"type": "text", "text": "Checking why they stop."}])
    return s


@pytest.mark.parametrize(
    ("check", "out", "error"),
    [
        ('pgrep -a -f "relay_north\\|relay_south" | grep -v bash', "Exit code 1", True),
        ("pgrep -af relay_north", "", False),
        ("ps aux | grep relay_north", "dev  4410099  0.0  0.0 grep relay_north", False),
        ("pidof relay_north", "Exit code 1", True),
        ("kill -0 4410021", "Exit code 1\nbash: kill: (4410021) - No such process", True),
    ],
)
def test_a_pid_job_a_later_listing_did_not_show_is_not_running(
    check: str, out: str, error: bool, tmp_path: Any
) -> None:
    text = _summary(_relays(check, out, error), tmp_path)
    pending, step = section(text, 7), section(text, 9)
    assert "still running" not in pending and "do not start it again" not in pending, pending
    assert "still running" not in step, step
    assert "Background job not running at `" in pending, pending
    assert check.split()[0] in pending, pending


@pytest.mark.parametrize(
    ("check", "out"),
    [
        (
            "ps aux | grep relay_north",
            "dev  4410021  0.3  1.1 /opt/venv/bin/python /srv/relay/relay_north.py\n"
            "dev  4410099  0.0  0.0 grep relay_north",
        ),
        ("pgrep -f relay_north", "4410021"),
        ("pgrep -f relay_north", "pgrep: command not found"),
    ],
)
def test_a_pid_job_a_later_listing_showed_stays_running(
    check: str, out: str, tmp_path: Any
) -> None:
    pending = section(_summary(_relays(check, out, False), tmp_path), 7)
    assert "Background job still running" in pending, pending


_BUILT = (
    "/opt/venv/bin/python -c \"\nfor name in ['North', 'South']:\n    text = make(name)\n"
    "    with open(f'/srv/relay/brief_{name.lower()}.txt', 'w') as f:\n        f.write(text)\n"
    "    print(f'Salvo em brief_{name.lower()}.txt')\n\""
)
_JOINED = (
    "python3 - <<'EOF'\nimport os\nbase = '/srv/relay'\nfor n in ['a', 'b']:\n"
    "    with open(os.path.join(base, f'out_{n}.json'), 'w') as f:\n        f.write('{}')\n"
    "    print('wrote', f'out_{n}.json')\nEOF"
)


@pytest.mark.parametrize(
    ("command", "out", "paths"),
    [
        (
            _BUILT,
            "Salvo em brief_north.txt\nSalvo em brief_south.txt",
            ["/srv/relay/brief_north.txt", "/srv/relay/brief_south.txt"],
        ),
        (_JOINED, "wrote out_a.json\nwrote out_b.json", ["/srv/relay/out_a.json"]),
        (
            "python3 - <<'EOF'\nwith open('/srv/relay/notes.txt', 'w') as f:\n"
            "    f.write('hi')\nEOF",
            "",
            ["/srv/relay/notes.txt"],
        ),
        ("cat > /srv/relay/conf.ini <<EOF\n[a]\nb=1\nEOF", "", ["/srv/relay/conf.ini"]),
        ("echo 'x=1' | tee /srv/relay/env.txt", "x=1", ["/srv/relay/env.txt"]),
    ],
)
def test_a_file_a_shell_script_wrote_then_read_back_is_changed(
    command: str, out: str, paths: list[str], tmp_path: Any
) -> None:
    """cc_jake_compact's shape: an inline script writes files whose names it builds from a
    literal folder (its output names them, relative, in another language); a later ``cat`` and
    Read of them were listed as "Read, not changed"."""
    s = CcSession()
    s.user("Make the relay files.")
    s.bash(command, out)
    for path in paths:
        s.call("Read", {"file_path": path}, "     1\tcontent")
        s.bash(f"cat {path}", "content")
    s.assistant([{"type": "text", "text": "Done."}])
    files = section(_summary(s, tmp_path), 3)
    assert "Read, not changed" not in files, files
    for path in paths:
        assert f"- {path} (" in files, files
    assert "/home/dev/board/" not in files, files


def _usage(uses: int) -> dict[str, str]:
    return {
        "type": "text",
        "text": f"agentId: a1\n<usage>total_tokens: 9\ntool_uses: {uses}</usage>",
    }


def _delegated(second: str, uses: int) -> CcSession:
    """cc_jake_limit's shape: the parent read two files, a sub-agent's numbered report says it
    created a test file and changed one of them, a second sub-agent told to modify the other
    returned ``second`` after ``uses`` tool uses."""
    s = CcSession()
    s.user("Implement the plan with subagents.")
    s.call("Read", {"file_path": "/srv/shop/server.py"}, "     1\timport flask")
    s.call("Read", {"file_path": "/srv/shop/templates/home.html"}, "     1\t<html>")
    report = (
        "DONE.\n\n**Summary:**\n\n1. Created `/srv/shop/tests/test_orders.py` with 4 tests.\n"
        "2. Inserted the new route into `/srv/shop/server.py` after the health route.\n"
        "3. 4/4 tests pass. Committed."
    )
    prompt = "Implement Task 1: add the route to `/srv/shop/server.py`. Write tests first."
    s.call(
        "Agent",
        {"description": "Task 1", "prompt": prompt},
        [{"type": "text", "text": report}, _usage(9)],  # type: ignore[arg-type]
    )
    told = "Implement Task 2.\n\nFile to modify: `/srv/shop/templates/home.html`\nRead little."
    s.call(
        "Agent",
        {"description": "Task 2", "prompt": told},
        [{"type": "text", "text": second}, _usage(uses)],  # type: ignore[arg-type]
    )
    s.assistant([{"type": "text", "text": "Task 2 stopped."}])
    return s


def test_files_a_subagent_report_lists_are_changed_and_a_cut_off_one_half_edited(
    tmp_path: Any,
) -> None:
    files = section(_summary(_delegated("You've hit your limit · resets 5pm", 4), tmp_path), 3)
    assert "- /srv/shop/tests/test_orders.py (created by a sub-agent" in files, files
    assert "- /srv/shop/server.py (edited by a sub-agent" in files, files
    assert "- /srv/shop/templates/home.html (possibly half-edited by a sub-agent cut off" in files
    assert "Read, not changed" not in files, files


def test_a_subagent_cut_off_before_any_tool_use_changed_nothing(tmp_path: Any) -> None:
    files = section(_summary(_delegated("You've hit your limit · resets 5pm", 0), tmp_path), 3)
    assert "half-edited" not in files, files
    read = next(line for line in files.splitlines() if "Read, not changed" in line)
    assert "/srv/shop/templates/home.html" in read, files


def _memory(answer: str) -> CcSession:
    """cc_paige's shape: a Read of a missing index file fails, a listing of its folder prints
    nothing, Write creates another note and then the index itself, and the final answer's bullet
    uses a skip word about something else."""
    s = CcSession()
    s.user("Remember that voice commands are not wanted inside tmux.")
    index = "/home/dev/.notes/memory/INDEX.md"
    s.call("Read", {"file_path": index}, "File does not exist.", error=True)
    s.bash("ls /home/dev/.notes/memory/", "")
    s.call(
        "Write",
        {"file_path": "/home/dev/.notes/memory/no_voice.md", "content": "No voice in tmux.\n"},
        "File created successfully at: /home/dev/.notes/memory/no_voice.md",
    )
    s.call(
        "Write",
        {"file_path": index, "content": "- [no voice](no_voice.md)\n"},
        f"File created successfully at: {index}",
    )
    s.assistant([{"type": "text", "text": answer}])
    return s


def test_a_missing_file_created_later_is_not_set_aside_by_an_unrelated_line(
    tmp_path: Any,
) -> None:
    answer = "Done.\n\n- Saved a memory note so I also skip voice commands in tmux sessions."
    errors = section(_summary(_memory(answer), tmp_path), 4)
    assert "Set aside on purpose" not in errors, errors
    assert "Not there at the time" in errors and "INDEX.md" in errors, errors


def test_a_missing_file_the_answer_names_as_skipped_stays_set_aside(tmp_path: Any) -> None:
    answer = "Done. I skip INDEX.md from now on: the memory folder needs no index."
    errors = section(_summary(_memory(answer), tmp_path), 4)
    assert "Set aside on purpose" in errors, errors


def test_a_kill_of_what_pgrep_finds_is_no_listing(tmp_path: Any) -> None:
    """``kill $(pgrep -f relay_north)`` prints nothing: no listing that shows the job gone."""
    s = _relays("kill $(pgrep -f relay_north | grep -v bash) 2>/dev/null; sleep 1", "", False)
    assert "not running at" not in section(_summary(s, tmp_path), 7)

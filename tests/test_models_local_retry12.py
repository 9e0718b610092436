"""Blind check 12 (issue 28, rows 540-545): "Not retried afterwards" only when nothing later
addressed a failure; the failures the next calls repaired another way say so, and how."""

from __future__ import annotations

from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_rules import is_constraint

from .cc_session import Session
from .planted_session import SessionBuilder
from .test_models_local_session import section

_TASKS = "/tmp/claude/-Users-me-ynab/tasks"


def _job_session() -> SessionBuilder:
    """bh-oauth: the dev server's ``cd`` failed inside its background job; the agent read the
    job's output, listed the folder and started ``npm run dev`` without the ``cd``."""
    s = SessionBuilder()
    s.user("build a web app that finds recurring charges with the YNAB API")
    s.call(
        "Bash",
        {"command": "cd ynab-recurring-app && npm run dev", "run_in_background": True},
        f"Command running in background with ID: bf0c8ad. Output is being written to: "
        f"{_TASKS}/bf0c8ad.output",
    )
    s.call(
        "Bash",
        {"command": f"sleep 3 && cat {_TASKS}/bf0c8ad.output"},
        "[stderr] (eval):cd:1: no such file or directory: ynab-recurring-app",
    )
    s.call("Bash", {"command": "ls -la"}, "total 256\n-rw-r--r-- 1 me staff 253 package.json\n")
    return s


def test_a_failed_job_restarted_another_way_is_worked_around_not_unretried() -> None:
    s = _job_session()
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        f"Command running in background with ID: b9884c4. Output is being written to: "
        f"{_TASKS}/b9884c4.output",
    )
    s.call("Bash", {"command": f"sleep 3 && cat {_TASKS}/b9884c4.output"}, "VITE ready\n")
    s.say("The app is running at http://localhost:5174/.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "no such file or directory: ynab-recurring-app" in errors, errors
    assert "Not retried" not in errors, errors
    assert "Worked around by `Bash: npm run dev` (started background job b9884c4)." in errors


def test_another_program_with_the_same_description_is_a_workaround() -> None:
    """om-winvm: ``arp`` was not installed; the next call, ``ip neigh``, did what Claude Code's
    own descriptions of both calls say (check the ARP table, ping the container)."""
    s = SessionBuilder()
    s.user("find the windows vm's ip address")
    s.call(
        "Bash",
        {
            "command": "sleep 20 && arp -n | grep -v 192.168.4.1 && ping -c 1 192.168.6.200",
            "description": "Check ARP table for new devices and ping container IP",
        },
        "Exit code 1\n/usr/bin/bash: line 1: arp: command not found",
        error=True,
    )
    s.call(
        "Bash",
        {
            "command": "ip neigh show dev macvlan-host && ping -c 2 -W 2 192.168.6.200",
            "description": "Check ARP neighbors and ping container IP",
        },
        "192.168.4.240 lladdr 84:70:d7:87:0b:92 STALE\n2 packets transmitted, 2 received",
    )
    s.say("The container answers at 192.168.6.200.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "arp: command not found" in errors, errors
    assert "Not retried" not in errors, errors
    assert "Worked around by `Bash: ip neigh show dev macvlan-host" in errors, errors
    assert "(succeeded)." in errors, errors


def test_commands_the_user_ran_themselves_are_said_so() -> None:
    """om-winvm: ``sudo`` needed a terminal; the user ran the commands with ``!``."""
    s = SessionBuilder()
    s.user("give the host an interface on the vm's network")
    s.call(
        "Bash",
        {"command": "sudo ip link add mvh link enp1 type macvlan && sudo ip link set mvh up"},
        "Exit code 1\nsudo: a terminal is required to read the password",
        error=True,
    )
    s.say("The sudo commands need your fingerprint. Please run them yourself with ! .")
    s.user("<bash-input>sudo ip link add mvh link enp1 type macvlan</bash-input>")
    s.user("<bash-stdout>Place your right index finger on the reader</bash-stdout>")
    s.user("<bash-input>sudo ip link set mvh up</bash-input>")
    s.user("<bash-stdout></bash-stdout><bash-stderr></bash-stderr>")
    s.user("okay done")
    s.call("Bash", {"command": "ip addr show mvh"}, "19: mvh@enp1: <UP> mtu 1500")
    s.say("The interface is up.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not retried" not in errors, errors
    ran = "The user ran `sudo ip link add mvh link enp1 type macvlan` themselves with `!`"
    assert f"{ran} (and 1 more of its commands)." in errors, errors


def test_an_alternative_that_failed_too_is_no_workaround() -> None:
    """No new wrong statement: a later call that also failed never "worked around" it, nor
    did the assistant's "let me try uv instead" make it "done without it"."""
    s = SessionBuilder()
    s.user("install the font")
    s.call("Bash", {"command": "pip install fonttools"}, "error: externally-managed", error=True)
    s.say("Let me try uv instead:")
    s.call("Bash", {"command": "uv pip install fonttools"}, "error: No virtual env", error=True)
    s.say("Both installers refused.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Worked around" not in errors and "Fixed" not in errors, errors
    assert "Done without it" not in errors, errors
    assert "Next call after it: `Bash: uv pip install fonttools` (failed)." in errors, errors


def test_the_alternative_the_assistant_announces_is_the_workaround() -> None:
    s = SessionBuilder()
    s.user("install the font tools")
    s.call("Bash", {"command": "pip install fonttools"}, "error: externally-managed", error=True)
    s.say("Let me use the system package instead:")
    s.call("Bash", {"command": "brew install fonttools"}, "fonttools 4.53 is installed")
    s.say("Installed.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not retried" not in errors, errors
    assert "Worked around by `Bash: brew install fonttools` (succeeded)." in errors, errors


def test_an_unrelated_next_call_is_only_said_neutrally() -> None:
    """om-winvm: ``docker inspect`` found no container; the next call started it. Nothing says
    it was the same goal: the summary says what came next, not "not retried"."""
    s = SessionBuilder()
    s.user("is the windows container up?")
    s.call(
        "Bash",
        {"command": "docker inspect --format='{{.State.Status}}' win && nc -zv 10.0.0.2 8006"},
        "Exit code 1\nerror: no such object: win",
        error=True,
    )
    s.say("Container isn't running. Let me start it:")
    s.call(
        "Bash", {"command": "docker-compose -f ~/win/compose.yml up -d"}, "Container win Started"
    )
    s.say("Started; give it 30 seconds.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not retried" not in errors and "Worked around" not in errors, errors
    assert "Next call after it: `Bash: docker-compose -f ~/win/compose.yml up -d` (succeeded)."
    assert "(succeeded)." in errors and "docker-compose -f ~/win/compose.yml" in errors, errors


def test_not_retried_is_said_only_when_nothing_followed() -> None:
    s = SessionBuilder()
    s.user("run the linter")
    s.call("Bash", {"command": "make lint"}, "make: *** No rule to make target 'lint'", error=True)
    s.say("There is no lint target in this Makefile.")
    s.user("ok, leave it and explain the build instead")
    s.call("Read", {"file_path": "Makefile"}, "all:\n\tcc main.c\n")
    s.say("The build compiles main.c.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not retried afterwards." in errors, errors
    assert "Read(Makefile)" not in errors, errors  # a call for the next request is not "next"


# -- noise of blind check 12 (rows 546-549) --------------------------------------------------------

_FREERDP_LOG = "\n".join(
    f"[11:12:12:{700 + n}] [597759:00091f01] [{level}][com.freerdp.{logger}] - [{fn}]: {said}"
    for n, (level, logger, fn, said) in enumerate(
        [
            ("INFO", "client.x11", "xf_pre_connect", "No user name set."),
            ("WARN", "client.x11", "load_map_from_xkbfile", "keycode: 0x08 -> no RDP scancode"),
            ("INFO", "codec", "libavcodec_init", "Using VAAPI for accelerated H264 decoding"),
            ("INFO", "core.rdp", "rdp_recv_callback", "state CONNECTION_STATE_NEGO"),
            ("INFO", "codec", "libavcodec_init", "Using VAAPI for accelerated H264 decoding"),
            ("ERROR", "core.transport", "transport_read_layer", "BIO_read returned error 104"),
            ("ERROR", "core", "freerdp_connect", "freerdp_post_connect failed"),
        ]
        * 3
    )
)


def test_identifiers_are_not_logger_names_or_listed_file_names() -> None:
    """om-winvm: "Identifiers" were freerdp logger names from a pasted log; fs-pm2: the
    component names of a file listing (``src/components/TaskList.jsx``)."""
    s = SessionBuilder()
    s.user(f"the vm does not start any more:\n{_FREERDP_LOG}\nRDP session closed.")
    s.call("Bash", {"command": "ls -R src"}, "src/contexts/AuthContext.jsx\nsrc/App.jsx")
    s.say(
        "The main files: `src/contexts/AuthContext.jsx`, components (`src/components/"
        "TaskList.jsx`, `ChatInterface.jsx`). The fix is in `start_vm()`: `VM_NET_DEV` must "
        "name the macvlan interface; `keepAliveTimer` stops too early."
    )
    concepts = section(summarize_transcript(s.messages), 2)
    assert "Identifiers:" in concepts and "VM_NET_DEV" in concepts, concepts
    assert "keepAliveTimer" in concepts, concepts
    for noise in ("com.freerdp", "AuthContext", "TaskList", "ChatInterface"):
        assert noise not in concepts, concepts


_OWN_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user wants a fast sync.\n\n"
    "Summary:\n## 1. Primary Request and Intent\nSplit the budget sync into bootstrap and "
    "backfill, and show a spinner while the backfill runs.\n\n## 7. Pending Tasks\n"
    "- Add the inline loading indicator to the transactions list.\n"
)


def _continued(tmp_path: Path, *requests: str) -> str:
    s = Session()
    s.user(_OWN_SUMMARY)
    s.records[-1]["isCompactSummary"] = True
    for n, request in enumerate(requests):
        s.user(request)
        s.assistant([{"type": "text", "text": f"Looked into it ({n}); the getter is tracked now."}])
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return section(summarize_transcript(read_transcript(str(path), path.read_bytes()).messages), 1)


def test_the_first_request_after_claude_code_s_compaction_is_no_initial_request(
    tmp_path: Path,
) -> None:
    """bh-compact: "Initial request: 'Keep going'" (the first user text after Claude Code's own
    compaction boundary); the initial request is the one the earlier summary states."""
    intent = _continued(tmp_path, "Keep going", "the spinner keeps showing after the backfill")
    assert "Initial request" not in intent, intent
    assert (
        "First request since the earlier summary (the initial request is the one the earlier "
        'summary states): "Keep' in intent
    ), intent
    assert 'Current request: "the spinner keeps showing after the backfill"' in intent, intent
    assert "Split the budget sync" in intent, intent  # the initial request, from the summary
    only = _continued(tmp_path, "Keep going")
    assert "Initial request" not in only, only
    assert "(the only one since the earlier summary, which states the initial request)" in only


def test_a_problem_the_current_request_describes_is_no_constraint(tmp_path: Path) -> None:
    """bh-compact: "Constraints and preferences" repeated the current request ("But conditional
    in budget-table.hbs never updates and loading spinner keeps showing."): a "never" that says
    what happens is no rule of the user's."""
    request = (
        "onInitialLoadStateChanged is firing as expected. But conditional in budget-table.hbs "
        "never updates and loading spinner keeps showing."
    )
    intent = _continued(tmp_path, "Keep going", request)
    assert "Constraints and preferences" not in intent, intent
    for described in (
        "But conditional in budget-table.hbs never updates and loading spinner keeps showing.",
        "The build always fails on the second run.",
        "It has never worked with the proxy on.",
    ):
        assert not is_constraint(described), described
    for rule in ("Never push to main.", "You must never touch the migrations.", "Always run lint."):
        assert is_constraint(rule), rule


def test_a_pasted_log_is_its_key_lines_not_a_cut_paste() -> None:
    """om-winvm: a long freerdp log the user pasted was re-inserted as its first and last 600
    characters (cut by 1,284 characters): a log is its error and warning lines (each distinct
    line once, timestamps aside) and its last lines."""
    from compactor.facts.durable import bounded_user_message

    text = _FREERDP_LOG + "\n\nRDP session closed. Windows VM is still running.\nTo stop: vm stop"
    shown = bounded_user_message(text, 26, 600)
    assert len(shown) < len(text) // 2, shown
    assert shown.startswith("[11:12:12:700] [597759:00091f01] [INFO][com.freerdp.client.x11]")
    assert "(a pasted log of 23 lines; the full text is user message 26" in shown, shown
    assert shown.count("BIO_read returned error 104") == 1, shown  # once, not 3 times
    assert "freerdp_post_connect failed" in shown and "no RDP scancode" in shown, shown
    assert "Using VAAPI" not in shown, shown  # INFO lines are not key lines
    assert shown.endswith("RDP session closed. Windows VM is still running.\nTo stop: vm stop")
    prose = "Please fix the build. " * 200  # not a log: its head and tail, as before
    assert bounded_user_message(prose, 3, 600).startswith(prose[:600] + "…")

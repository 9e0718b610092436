"""Fix63a (blind checks 61 and 62): a failed HTTP probe is fixed when the same resource later
answers 2xx/3xx through another command (62 W3)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .codex_rollout import codex_say, codex_summary, codex_user, exec_head, rec, sections
from .planted_session import SessionBuilder
from .test_models_local_session import section


def _gateway_session(
    later_url: str, later_output: str, *, flags: str = "-sI", failed: str = "localhost:7420/ledger/"
) -> str:
    s = SessionBuilder()
    s.user("Bring the ledger service back up behind the proxy.")
    s.call(
        "Bash",
        {"command": f"curl -sI http://{failed} 2>&1 | head -n 2"},
        "HTTP/1.1 502 Bad Gateway\nServer: nginx/1.27.0",
    )
    s.say("The proxy gets no answer from the ledger service. Let me look at its logs.")
    s.call(
        "Bash",
        {"command": "docker compose logs --tail=20 ledger 2>&1 | tail -n 5"},
        'ledger  | FATAL: database "ledger" does not exist\nledger  | exiting',
    )
    s.call(
        "Bash",
        {"command": 'docker compose exec db psql -U admin -c "CREATE DATABASE ledger;"'},
        "CREATE DATABASE",
    )
    s.call("Bash", {"command": "docker compose restart ledger"}, " Container ledger  Started")
    s.call(
        "Bash", {"command": f"sleep 5 && curl {flags} {later_url} 2>&1 | head -n 3"}, later_output
    )
    s.say("Checking the remaining services next.")
    s.call("Bash", {"command": "docker compose ps --format json"}, '{"Service": "ledger"}')
    return summarize_transcript(s.messages)  # (mid-turn: section 7 lists what is open)


def test_a_failed_probe_is_fixed_when_the_same_path_answers_200_through_another_host() -> None:
    text = _gateway_session(
        "https://ledger-tunnel.example.net/ledger/", "HTTP/1.1 200 OK\nCache-Control: no-cache"
    )
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert "the same path /ledger/ answered HTTP/1.1 200 OK" in section(text, 4), section(text, 4)


def test_the_same_host_and_path_with_other_curl_flags_fixes_it_too() -> None:
    text = _gateway_session(
        "http://localhost:7420", "200", flags="-s -o /dev/null -w '%{http_code}'", failed=
        "localhost:7420/"
    )  # fmt: skip
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert "the same address localhost:7420/ answered HTTP status 200" in section(text, 4)


def test_a_later_200_of_another_path_or_a_later_error_fixes_nothing() -> None:
    other = _gateway_session("https://ledger-tunnel.example.net/health", "HTTP/1.1 200 OK")
    assert "Unresolved failure: `Bash: curl -sI http://localhost:7420" in section(other, 7)
    broken = _gateway_session("https://ledger-tunnel.example.net/ledger/", "HTTP/1.1 503 Down")
    assert "Unresolved failure: `Bash: curl -sI http://localhost:7420" in section(broken, 7)
    root = _gateway_session("https://ledger-tunnel.example.net/", "HTTP/1.1 200 OK")
    assert "Unresolved failure: `Bash: curl -sI http://localhost:7420" in section(root, 7)


_BANNER = "[Plugin Shim] Extension index not found: /opt/vaultctl/ext/index.js"


def _banner_session(failure: str) -> str:
    s = SessionBuilder()
    s.user("Export the vault entries to a backup file.")
    s.call("Bash", {"command": "vaultctl status"}, f"{_BANNER}\nVault: 42 entries, unlocked")
    s.call("Bash", {"command": "vaultctl list --limit 3"}, f"{_BANNER}\nalpha\nbeta\ngamma")
    s.call(
        "Bash",
        {"command": 'echo "== export ==" && vaultctl export --format text > backup.txt'},
        f"Exit code 1\n== export ==\n{_BANNER}\n{failure}",
        error=True,
    )
    s.say("The export needs other options. Let me look at its help.")
    s.call("Bash", {"command": "vaultctl export --help"}, f"{_BANNER}\nUsage: vaultctl export")
    return summarize_transcript(s.messages)


def test_a_failures_excerpt_is_not_a_banner_every_call_of_the_program_prints() -> None:
    text = _banner_session("Required option missing: --output")
    assert "failed (exit code 1): Required option missing: --output" in section(text, 4), section(
        text, 4
    )
    assert "failed (exit code 1): [Plugin Shim]" not in text
    assert "→ failed: Required option missing: --output" in section(text, 8), section(text, 8)


def test_a_line_no_successful_call_of_the_program_printed_stays_the_excerpt() -> None:
    s = SessionBuilder()
    s.user("Export the vault entries to a backup file.")
    s.call("Bash", {"command": "ls backups"}, f"{_BANNER}\nold.txt")  # another program
    s.call(
        "Bash",
        {"command": "vaultctl export --format text > backup.txt"},
        f"Exit code 1\n{_BANNER}\nRequired option missing: --output",
        error=True,
    )
    s.say("Let me look at the options.")
    s.call("Bash", {"command": "vaultctl export --help"}, "Usage: vaultctl export")
    text = summarize_transcript(s.messages)
    assert f"failed (exit code 1): {_BANNER}" in section(text, 4), section(text, 4)


# 3: a job the session stopped is not pending; §7 and §9 agree on it


def _codex_job_session(tmp_path: Path, *, stop: bool) -> dict[str, str]:
    records: list[dict[str, Any]] = [rec("turn_context", {"cwd": "/work/orchard"})]
    n = 0

    def call(name: str, args: dict[str, Any], output: str) -> None:
        nonlocal n
        n += 1
        head = {"type": "function_call", "name": name, "call_id": f"call_{n}"}
        out = {"type": "function_call_output", "call_id": f"call_{n}", "output": output}
        records.extend([rec("response_item", {**head, "arguments": json.dumps(args)}),
                        rec("response_item", out)])  # fmt: skip

    records.append(codex_user("seed the orchard database and check the importer"))
    call(
        "exec_command",
        {"cmd": "while true; do python tools/import_feed.py --once; sleep 30; done"},
        exec_head(None, "imported 14 rows\n", 61523),
    )
    if stop:
        records.append(codex_say("One pass is enough; I'm stopping the import loop."))
        call(
            "write_stdin",
            {"session_id": 61523, "chars": "\u0003"},
            "write_stdin failed: stdin is closed for this session; rerun exec_command",
        )
    call("exec_command", {"cmd": "sqlite3 orchard.db 'select count(*) from trees'"},
         exec_head(0, "14\n"))  # fmt: skip
    records.append(codex_say("The importer works: one pass imported 14 rows into trees."))
    text = codex_summary(records, tmp_path, "0c1d2e3f-0000-4000-8000-000000000063", "/w")
    return sections(text)


def test_a_job_the_agent_stopped_is_not_pending_in_section_7_when_9_says_nothing_is() -> None:
    import tempfile

    parts = _codex_job_session(Path(tempfile.mkdtemp()), stop=True)
    seven, nine = parts["7"], parts["9"]
    assert "61523" in seven, seven  # (still named: what became of it)
    listed_as_pending = "- Background job" in seven
    assert not (listed_as_pending and "nothing is pending" in nine), (seven, nine)
    assert "Not pending: background job stopped" in seven, seven


def test_a_job_still_running_is_pending_and_section_9_says_so(tmp_path: Path) -> None:
    parts = _codex_job_session(tmp_path, stop=False)
    assert "Background job still running" in parts["7"], parts["7"]
    assert "nothing is pending" not in parts["9"], parts["9"]
    assert "61523" in parts["9"], parts["9"]


def test_a_job_that_exited_listed_in_section_7_is_named_by_9_not_nothing_is_pending(
    tmp_path: Path,
) -> None:
    s = CcSession()
    s.user("Start the feed watcher in the background.")
    s.bash(
        'nohup /opt/venv/bin/python /srv/feeds/watch_feed.py > /tmp/feed.log 2>&1 & echo "PID: $!"',
        "PID: 7730412",
    )
    s.call("Bash", {"command": "kill -0 7730412"}, "Exit code 1\nkill: (7730412) - No such process",
           error=True)  # fmt: skip
    s.assistant([{"type": "text", "text": "The watcher started and exited; its log is empty."}])
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    text = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    assert "Background job not running at" in section(text, 7), section(text, 7)
    assert "nothing is pending" not in section(text, 9), section(text, 9)
    assert "have ended (" in section(text, 9), section(text, 9)


# 4: a permission the final answer tells the user to grant is the user's open step


def _permission_session(reply: str) -> str:
    s = SessionBuilder()
    s.user("Post the weekly roster to the #crew channel with the bot.")
    s.call(
        "Bash",
        {"command": "python tools/post_roster.py --channel crew"},
        'Traceback (most recent call last):\n  File "tools/post_roster.py", line 52, in <module>\n'
        "chatlib.errors.Forbidden: 403 Forbidden (error code: 50001): Missing Access",
        error=True,
    )
    s.call(
        "Bash",
        {"command": "python tools/post_roster.py --channel crew --dry-run"},
        "Roster: 9 shifts (dry run, nothing posted)",
    )
    s.say(reply)
    return summarize_transcript(s.messages)


def test_a_permission_the_answer_tells_the_user_to_grant_is_carried_to_section_7() -> None:
    text = _permission_session(
        "The roster builds (9 shifts), but the bot cannot post: the server answered 403 Missing "
        "Access for #crew. The bot is missing the Send Messages permission in that channel; add "
        "it in the server settings (Roles → RosterBot), then run the script again."
    )
    seven, nine = section(text, 7), section(text, 9)
    assert "add it in the server settings (Roles → RosterBot)" in seven, seven
    assert "nothing is pending" not in seven + nine, (seven, nine)
    assert "was completed" not in section(text, 8), section(text, 8)


def test_an_own_report_or_a_conditional_hint_about_a_permission_is_no_open_step() -> None:
    done = _permission_session(
        "The bot was missing the Send Messages permission; I granted it through the admin API "
        "and the roster posted."
    )
    assert "steps left to the user" not in done, section(done, 7)
    hint = _permission_session(
        "The roster posted to #crew. If the bot ever lacks access to a new channel, add it to "
        "the RosterBot role."
    )
    assert "steps left to the user" not in hint, section(hint, 7)

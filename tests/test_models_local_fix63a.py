"""Fix63a (blind checks 61 and 62): a failed HTTP probe is fixed when the same resource later
answers 2xx/3xx through another command (62 W3)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

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

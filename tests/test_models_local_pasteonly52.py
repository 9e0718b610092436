"""A last message of pasted command output names the request it goes with (blind check 52, N2:
cx_gokao's "Current request" was the tail of a pasted ``curl`` response, "Date: … 404 page not
found", while the question it answered stood among the later requests)."""

from __future__ import annotations

from pathlib import Path

from .codex_rollout import codex_say, codex_summary, codex_user

QUESTION = "前端与后端根本连接不上，帮我看看为什么"
PASTE = (
    "$ curl -i http://10.0.0.5:8080/api/health\nHTTP/1.1 404 Not Found\n"
    "Content-Type: text/plain; charset=utf-8\nDate: Tue, 20 Jan 2026 08:00:00 GMT\n"
    "Content-Length: 18\n\n404 page not found"
)


def _first(tmp_path: Path, last: str) -> str:
    records = [
        codex_user("Deploy the app to the test server."),
        codex_say("Deployed."),
        codex_user(QUESTION),
        codex_say("Please run curl -i http://10.0.0.5:8080/api/health on the server and paste it."),
        codex_user(last),
        codex_say("The API answers 404 on /api/health: the proxy strips the /api prefix."),
    ]
    summary = codex_summary(records, tmp_path, "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001", "/w")
    summary = summary[summary.index("<summary>") :]
    return summary[summary.index("\n1.") : summary.index("\n2.")]


def test_pasted_output_names_the_request_it_goes_with(tmp_path: Path) -> None:
    first = _first(tmp_path, PASTE)
    assert "Current request:" in first and "404 page not found" in first, first
    assert "(pasted command output, no words of the user's own: it goes with the request " in first
    assert f'before it, "{QUESTION}")' in first, first


def test_a_paste_with_the_users_own_question_is_its_own_request(tmp_path: Path) -> None:
    first = _first(tmp_path, PASTE + "\n\nwhy is it 404?")
    assert "pasted command output" not in first, first

"""Blind check 37 S1: the embedded summary masks its own text, yet the user messages finalize
re-inserts (SPEC §5.2) came from the unmasked input, so a Firebase ``apiKey`` the summary
masked in §1 was printed whole in the re-inserted user messages. The summary message as
finalized is masked once more; a remote run (masked input) and the kept tail are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from .test_cli_run import compact, run_args

KEY = "AIzaSyD" + "x9Qk2LmN4pR7sT1vW3yZ5aB8cE0fG6hJ"
PASSWORD = "Zq7!mKp2vRw"
CONFIG = (
    "const firebaseConfig = {\n"
    f'  apiKey: "{KEY}",\n'
    '  authDomain: "jenga-demo.firebaseapp.com",\n'
    '  projectId: "jenga-demo",\n'
    "};"
)


def _session(tmp_path: Path) -> Path:
    pad = "Working through the build step, lorem ipsum dolor sit amet. " * 30
    messages: list[dict[str, str]] = [
        {"role": "user", "content": "Build a jenga game with firebase."},
        {"role": "assistant", "content": "Which Firebase config should I use?"},
        *({"role": "assistant", "content": f"Step {i}. {pad}"} for i in range(12)),
        {"role": "user", "content": f"here is my config\n{CONFIG}\nuse it please"},
        {"role": "assistant", "content": "Done, wired it in web/index.html."},
        {"role": "user", "content": f"deploy it with admin_password: {PASSWORD}"},
        {"role": "assistant", "content": "Deployed."},
    ]
    src = tmp_path / "chat.jsonl"
    src.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return src


def _summary(out: Path) -> str:
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    return str(first["content"])


def test_the_reinserted_user_messages_are_masked_as_the_summary_is(tmp_path: Path) -> None:
    src = _session(tmp_path)
    res = compact(tmp_path, *run_args(src, "--model", "local", "--force", "--no-cache"))
    assert res.proc.returncode == 0, res.proc.stderr
    summary = _summary(tmp_path / "out.jsonl")
    assert "here is my config" in summary  # the user's message is re-inserted
    assert 'authDomain: "jenga-demo.firebaseapp.com"' in summary  # and only the key masked
    assert KEY not in summary and KEY[:12] not in summary
    assert PASSWORD not in summary
    assert src.read_text(encoding="utf-8").count(KEY) == 1  # the input is untouched


def test_a_kept_tail_keeps_the_users_words_verbatim(tmp_path: Path) -> None:
    src = _session(tmp_path)
    keep = {"keep": {"messages": 3}}
    res = compact(
        tmp_path, *run_args(src, "--model", "local", "--force", "--no-cache"), config=keep
    )
    assert res.proc.returncode == 0, res.proc.stderr
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert KEY not in _summary(tmp_path / "out.jsonl")
    tail = [json.loads(line) for line in lines[1:]]
    assert any(PASSWORD in str(m["content"]) for m in tail)  # verbatim tail: not changed

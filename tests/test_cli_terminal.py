"""What a newcomer sees on a terminal (issue 32, points 10-12): names shown as typed (no rich
emoji codes), shell completion for the shell asked for, and habits of well-kept tools. Terminal
behaviour is tested on a real pty."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import time
from pathlib import Path

import pytest

from .fake_server_cli import compact_exe

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"


def on_pty(
    args: list[str],
    *,
    env: dict[str, str] | None = None,
    stdin_pty: bool = False,
    stdout_pty: bool = True,
    send: bytes | None = None,
    timeout: float = 30,
) -> tuple[int, str, bytes]:
    """Run ``compact ARGS`` with stderr (and stdout, stdin when asked) on a pty; the screen,
    and stdout when it is a pipe."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [compact_exe(), *args],
        stdin=slave if stdin_pty else subprocess.DEVNULL,
        stdout=slave if stdout_pty else subprocess.PIPE,
        stderr=slave,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "200", **(env or {})},
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    sent = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
            if send is not None and not sent and b"waiting" in b"".join(chunks):
                os.write(master, send)
                sent = True
            if proc.poll() is not None and not ready:
                break
        code = proc.wait(timeout=10)
        out = b"" if proc.stdout is None else proc.stdout.read()
    finally:
        os.close(master)
        if proc.stdout is not None:
            proc.stdout.close()
    return code, b"".join(chunks).decode("utf-8", "replace"), out


# -- point 10: names shown as typed ----------------------------------------------------------------


@pytest.mark.parametrize(("name", "emoji"), [("smile", "😄"), ("ok", "🆗")])
def test_model_names_are_never_emoji(tmp_path: Path, name: str, emoji: str) -> None:
    # a loopback port nobody listens on: the breaker opens, and its line names the model too
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    args = ["run", str(CODING), "--force", "--model", f"openai:{name}"]
    code, screen, _ = on_pty([*args, "-o", str(tmp_path / "o.jsonl")], env=env)
    piped = subprocess.run(
        [compact_exe(), *args, "-o", str(tmp_path / "p.jsonl")],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert code == 3, screen
    assert piped.returncode == 3
    for text in (screen, piped.stderr):
        assert f"openai:{name}" in text
        assert emoji not in text
    assert f"circuit breaker open for openai:{name}" in " ".join(piped.stderr.split())

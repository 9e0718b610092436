"""What a newcomer sees on a terminal (issue 32, points 10-12): names shown as typed (no rich
emoji codes), shell completion for the shell asked for, and habits of well-kept tools. Terminal
behaviour is tested on a real pty."""

from __future__ import annotations

import os
import pty
import re
import select
import socket
import subprocess
import time
from pathlib import Path

import pytest

from .fake_server_cli import compact_exe, invoke

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
    # not a terminal: in this process (the pty above is the console script's run)
    piped = invoke([*args, "-o", str(tmp_path / "p.jsonl")], env=env)
    stderr = piped.stderr.decode()
    assert code == 3, screen
    assert piped.returncode == 3
    for text in (screen, stderr):
        assert f"openai:{name}" in text
        assert emoji not in text
    assert f"circuit breaker open for openai:{name}" in " ".join(stderr.split())


# -- point 11: shell completion --------------------------------------------------------------------

SCRIPT_MARKS = {
    "bash": ("complete -o default -F _compact_completion compact", "complete_bash"),
    "zsh": ("compdef _compact_completion compact", "complete_zsh"),
    "fish": ("complete --command compact", "complete_fish"),
    "powershell": ("Register-ArgumentCompleter", "complete_powershell"),
}


def _env_without_completion() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("_COMPACT") and k != "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"
    }


@pytest.mark.parametrize("shell", list(SCRIPT_MARKS))
@pytest.mark.parametrize("spelling", ["separate", "equals"])
def test_show_completion_prints_the_script_of_the_shell_named(shell: str, spelling: str) -> None:
    args = (
        ["--show-completion", shell] if spelling == "separate" else [f"--show-completion={shell}"]
    )
    proc = subprocess.run(
        [compact_exe(), *args],
        capture_output=True,
        text=True,
        env={**_env_without_completion(), "SHELL": "/bin/bash"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    for mark in SCRIPT_MARKS[shell]:
        assert mark in proc.stdout
    for other, marks in SCRIPT_MARKS.items():
        if other != shell:
            assert marks[1] not in proc.stdout


def test_an_unknown_shell_is_one_line() -> None:
    proc = subprocess.run(
        [compact_exe(), "--show-completion=tcsh"],
        capture_output=True,
        text=True,
        env=_env_without_completion(),
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "compact: --show-completion: 'tcsh' is not a shell compact completes; name one: "
        "--show-completion bash|zsh|fish|powershell\n"
    )


def _complete(shell: str, words: str) -> str:
    env = {**_env_without_completion(), "_COMPACT_COMPLETE": f"complete_{shell}"}
    if shell == "bash":
        env |= {"COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
    else:
        env |= {"_TYPER_COMPLETE_ARGS": words, "_TYPER_COMPLETE_FISH_ACTION": "get-args"}
    proc = subprocess.run([compact_exe()], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_model_and_format_complete_their_values() -> None:
    assert _complete("bash", "compact run --format cl").split() == ["claude-code"]
    assert _complete("bash", "compact check --format op").split() == ["openai", "opencode-hooks"]
    models = _complete("bash", "compact run --model openai:gpt-4o").split()
    assert models == ["openai:gpt-4o", "openai:gpt-4o-mini"]
    # every provider of the table completes its well-known models
    claude = _complete("bash", "compact run --model anthropic:claude-3-5").split()
    assert claude == ["anthropic:claude-3-5-sonnet", "anthropic:claude-3-5-haiku"]
    assert "anthropic:gpt-4o" not in _complete("bash", "compact run --model anthropic:").split()
    assert _complete("bash", "compact config show --model lo").split() == ["local"]
    assert '"local"' in _complete("zsh", "compact check --model lo")
    assert "claude-code" in _complete("fish", "compact run --format cla")


# -- point 12: habits of well-kept tools ----------------------------------------------------------


def test_check_quiet_says_it_with_the_exit_code_only() -> None:
    long = REPO / "sample_transcripts" / "coding-session-long.jsonl"
    for paths, code in (([SMALL], 0), ([SMALL, long], 1)):
        proc = subprocess.run(
            [compact_exe(), "check", "-q", *map(str, paths)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == code
        assert proc.stdout == "" and proc.stderr == ""
    proc = subprocess.run(
        [compact_exe(), "check", "--quiet", str(SMALL), "/nonexistent.jsonl"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "compact: /nonexistent.jsonl: file not found\n"


def test_an_empty_stdin_passes_through(tmp_path: Path) -> None:
    for data in (b"", b"\n \n"):
        proc = subprocess.run(
            [compact_exe(), "run", "-", "--model", "local"],
            input=data,
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == b""
        assert proc.stderr == b"not compacted (stdin was empty); nothing written\n"
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [compact_exe(), "run", "-", "-o", str(out)], input=b"", capture_output=True, timeout=60
    )
    assert proc.returncode == 0
    assert not out.exists()


def test_run_dash_on_a_terminal_says_it_waits_for_stdin(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, screen, _ = on_pty(
        ["run", "-", "-o", str(out)], stdin_pty=True, send=SMALL.read_bytes() + b"\x04"
    )
    assert "compact: waiting for a transcript on stdin (paste it, then Ctrl-D" in screen
    assert code == 0, screen
    assert out.read_bytes() == SMALL.read_bytes()
    # piped: no such line
    proc = subprocess.run(
        [compact_exe(), "run", "-"], input=SMALL.read_bytes(), capture_output=True, timeout=60
    )
    assert proc.returncode == 0
    assert b"waiting" not in proc.stderr


def test_batch_lines_are_listed_in_natural_order(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for n in (10, 2, 1, 33, 3):
        (folder / f"s{n}.jsonl").write_bytes(SMALL.read_bytes())
    proc = subprocess.run(
        [compact_exe(), "run", str(folder), "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    *lines, summary = proc.stderr.splitlines()
    assert [Path(line.split(":")[0]).name for line in lines] == [
        "s1.jsonl",
        "s2.jsonl",
        "s3.jsonl",
        "s10.jsonl",
        "s33.jsonl",
    ]
    assert summary.startswith("5 files: 0 compacted, 5 unchanged")


def test_batch_on_a_terminal_counts_files_as_they_finish(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for n in (10, 2, 1):
        (folder / f"s{n}.jsonl").write_bytes(CODING.read_bytes())
    code, screen, _ = on_pty(
        ["run", str(folder), "--output-dir", str(tmp_path), "--force", "--model", "local"]
    )
    assert code == 0, screen
    for k in (1, 2, 3):
        assert f"{k}/3 " in screen
    final = screen.rsplit("\x1b[2K", 1)[1]
    names = [Path(x.split(":")[0]).name for x in final.splitlines() if x.startswith(str(folder))]
    assert names == ["s1.jsonl", "s2.jsonl", "s10.jsonl"]


def test_the_spinner_shows_how_long_a_model_call_takes(tmp_path: Path) -> None:
    from compactor.testing.fake_openai import FakeOpenAI
    from compactor.testing.fake_steps import delay, reply

    with FakeOpenAI() as fake:
        fake.enqueue(delay(2.6, reply("<summary>done</summary>")))
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": fake.base_url}
        code, screen, _ = on_pty(
            [
                "run",
                str(CODING),
                "--force",
                "--model",
                "openai:slow",
                "--no-cache",
                "-o",
                str(tmp_path / "o.jsonl"),
            ],
            env=env,
        )
    assert code == 0, screen
    assert "primary attempt 1/" in screen
    assert re.search(r"openai:slow … 1s", screen), screen
    assert re.search(r"openai:slow … 2s", screen), screen


def _compacted(tmp_path: Path) -> Path:
    out = tmp_path / "c.jsonl"
    proc = subprocess.run(
        [compact_exe(), "run", str(CODING), "--force", "--model", "local", "-o", str(out), "-q"],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_show_json_gives_the_summary_and_where_it_is(tmp_path: Path) -> None:
    import json

    out = _compacted(tmp_path)
    proc = subprocess.run(
        [compact_exe(), "show", "--json", str(out)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    raw = subprocess.run(
        [compact_exe(), "show", "--raw", str(out)], capture_output=True, text=True, timeout=60
    ).stdout
    assert record["summary"] + "\n" == raw
    assert (record["path"], record["format"]) == (str(out), "openai")
    assert 1 <= record["position"] <= record["messages"]


def test_show_pages_on_a_terminal_only(tmp_path: Path) -> None:
    out = _compacted(tmp_path)
    env = {"PAGER": "sed 's/^/PAGED: /'"}
    code, screen, _ = on_pty(["show", str(out)], env=env)
    assert code == 0, screen
    assert "PAGED: " in screen and "summary in message" in screen
    code, screen, _ = on_pty(["show", "--no-pager", str(out)], env=env)
    assert code == 0 and "PAGED" not in screen and "summary in message" in screen
    piped = subprocess.run(
        [compact_exe(), "show", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert piped.returncode == 0
    assert "PAGED" not in piped.stdout and "summary in message" in piped.stdout


def test_verbose_says_what_was_read_decided_and_sent(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    args = ["run", str(CODING), "--force", "--model", "local", "-o", str(out)]
    plain = subprocess.run([compact_exe(), *args], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0
    assert len(plain.stderr.splitlines()) == 1  # only the final line when not on a terminal
    verbose = subprocess.run(
        [compact_exe(), *args, "-v"], capture_output=True, text=True, timeout=60
    )
    assert verbose.returncode == 0, verbose.stderr
    lines = verbose.stderr.splitlines()
    assert lines[0] == f"config: none (defaults) · model local · output {out}"
    assert lines[1] == f"read {CODING} · openai · 23 messages"
    assert lines[2].startswith("forced (trigger did not fire: 998 tokens <= ")
    assert "summarizing 23 messages" in lines
    assert "sending to local: primary attempt 1/3" in lines
    assert lines[-1].startswith("compacted 23 → 2 messages")
    # a failure: still one error line and no traceback
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "wizard", "content": "x"}\n')
    failed = subprocess.run(
        [compact_exe(), "run", str(bad), "-v"], capture_output=True, text=True, timeout=60
    )
    assert failed.returncode == 2
    assert "Traceback" not in failed.stderr
    assert failed.stderr.splitlines()[-1].startswith(f"compact: {bad}:1: field 'role'")


def test_a_verbose_batch_names_each_files_steps(tmp_path: Path) -> None:
    """``-v`` on a batch: each file's steps (read, decision, requests, replies) as they happen,
    one line each, starting with the file's name; then the usual lines. ``-q`` wins."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (logs / name).write_bytes(CODING.read_bytes())
    args = [str(logs), "--force", "--model", "local", "--output-dir", str(tmp_path / "out")]
    verbose = subprocess.run(
        [compact_exe(), "run", *args, "-v"], capture_output=True, text=True, timeout=60
    )
    assert verbose.returncode == 0, verbose.stderr
    lines = verbose.stderr.splitlines()
    for name in ("a.jsonl", "b.jsonl"):
        path = logs / name
        mine = [line.removeprefix(f"{path}: ") for line in lines if line.startswith(f"{path}: ")]
        assert mine[:4] == [
            "read openai · 23 messages",
            "trigger forced: 998 tokens <= 160,000 token threshold",
            "sending to local: primary attempt 1",
            "local: summary received",
        ], lines
        assert mine[4].startswith("compacted, 998 → ")  # the file's usual line
    assert lines[-1].startswith("2 files: 2 compacted, 0 unchanged, 0 failed")
    plain = subprocess.run([compact_exe(), "run", *args], capture_output=True, text=True)
    assert len(plain.stderr.splitlines()) == 3  # two file lines and the summary
    quiet = subprocess.run([compact_exe(), "run", *args, "-v", "-q"], capture_output=True)
    assert quiet.returncode == 0 and quiet.stderr == b""


@pytest.mark.parametrize(
    ("shell", "path", "mark"),
    [
        ("fish", ".config/fish/completions/compact.fish", "complete_fish"),
        ("zsh", ".zfunc/_compact", "complete_zsh"),
    ],
)
def test_install_completion_installs_for_the_shell_named(
    tmp_path: Path, shell: str, path: str, mark: str
) -> None:
    proc = subprocess.run(
        [compact_exe(), "--install-completion", shell],
        capture_output=True,
        text=True,
        env={**_env_without_completion(), "HOME": str(tmp_path), "SHELL": "/bin/bash"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{shell} completion installed in {tmp_path / path}\n")
    assert mark in (tmp_path / path).read_text()
    assert not (tmp_path / ".bashrc").exists()

"""Secrets never leave the process: a planted API key is absent from stdout, stderr, events,
reports and outputs, whatever the command, outcome or --debug.

Commands run in-process (typer's CliRunner); the installed console script runs the worst run
case (the server echoes the key, --debug) and the config and check commands once each.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from compactor.testing.fake_openai import FakeOpenAI, status

from .fake_server_cli import invoke

COMPACT = str(Path(sys.executable).parent / "compact")
ENV_KEY = "sk-PLANTED-abcdef1234567890"
FILE_KEY = "sk-PLANTED-filekey0987654321"
DEAD = "http://127.0.0.1:9/v1"
TRANSCRIPT = (
    b'{"role": "system", "content": "You are a helpful assistant."}\n'
    b'{"role": "user", "content": "Please list the files."}\n'
    b'{"role": "assistant", "content": "Sure."}\n'
    # long enough that a forced compaction does not double it (loop_guard.max_growth)
    b'{"role": "assistant", "content": "' + b"a.py b.py c.py d.py e.py " * 50 + b'"}\n'
)


def _fragments(key: str) -> list[str]:
    # the whole key, and its distinctive tail (catches partial masking like "sk-PL***7890"
    # only when the secret part itself leaks)
    return [key, key[-12:]]


def _run(
    args: list[str], env_extra: dict[str, str], *, console_script: bool = False
) -> subprocess.CompletedProcess[str]:
    """``compact ARGS`` in-process, or with the installed console script."""
    if not console_script:
        proc = invoke(args, env=env_extra)
        out, err = (b.decode("utf-8", "replace") for b in (proc.stdout, proc.stderr))
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    env = dict(os.environ)
    env.update(env_extra)
    return subprocess.run(
        [COMPACT, *args],
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=60,
        check=False,
    )


def _assert_no_secret(proc: subprocess.CompletedProcess[str], files: list[Path]) -> None:
    blobs = {"stdout": proc.stdout, "stderr": proc.stderr}
    for f in files:
        if f.is_file():
            blobs[f.name] = f.read_text(encoding="utf-8", errors="replace")
    for where, text in blobs.items():
        for key in (ENV_KEY, FILE_KEY):
            for frag in _fragments(key):
                assert frag not in text, f"secret fragment {frag!r} leaked in {where}"


@pytest.fixture
def setup(tmp_path):
    src = tmp_path / "t.jsonl"
    src.write_bytes(TRANSCRIPT)
    return tmp_path, src


def _config(tmp_path: Path, base_url: str, key_in_file: bool) -> Path:
    cfg = tmp_path / "c.yaml"
    key = FILE_KEY if key_in_file else "${OPENAI_API_KEY}"
    cfg.write_text(
        "model:\n"
        "  provider: openai\n"
        "  name: gpt-4o-mini\n"
        f"  base_url: {base_url}\n"
        f"  api_key: {key}\n"
        "  timeout: 5\n"
        "retry: {max_retries: 1, initial_delay: 0.01, max_delay: 0.02}\n",
        encoding="utf-8",
    )
    return cfg


OUTCOMES: dict[str, tuple[Any, int]] = {
    "success": (None, 0),
    "http_500": (status(500), 3),
    "http_401": ("401", 3),
    "dead_port": ("dead", 3),
}


RUN_MATRIX = [  # (outcome, key in the config file rather than env, --debug, console script)
    ("success", False, False, False),
    ("success", True, True, False),
    ("http_500", False, True, False),
    ("http_401", False, False, False),
    ("http_401", True, False, False),
    ("http_401", False, True, False),
    ("http_401", True, True, False),
    ("http_401", True, True, True),
    ("dead_port", False, True, False),
    ("dead_port", True, False, False),
]


def _run_params() -> list[Any]:
    out: list[Any] = []
    for outcome, key_in_file, debug, console_script in RUN_MATRIX:
        ident = "-".join(
            [
                outcome,
                "file_key" if key_in_file else "env_key",
                "debug" if debug else "plain",
                *(["console_script"] if console_script else []),
            ]
        )
        out.append(pytest.param(outcome, key_in_file, debug, console_script, id=ident))
    return out


@pytest.mark.parametrize(("outcome", "key_in_file", "debug", "console_script"), _run_params())
def test_run_never_prints_the_key(setup, outcome, key_in_file, debug, console_script):
    tmp_path, src = setup
    step, code = OUTCOMES[outcome]
    out = tmp_path / "out.jsonl"
    events = tmp_path / "events.jsonl"
    report = tmp_path / "report.json"
    if step == "401":  # like the real API, the error body echoes the key that was sent
        sent = FILE_KEY if key_in_file else ENV_KEY
        step = status(401, body={"error": {"message": f"Incorrect API key provided: {sent}"}})
    fake = FakeOpenAI(default=step) if step not in (None, "dead") else FakeOpenAI()
    with fake:
        base = DEAD if step == "dead" else fake.base_url
        cfg = _config(tmp_path, base, key_in_file)
        args = ["run", str(src), "-o", str(out), "--force", "-c", str(cfg)]
        args += ["--events", str(events), "--report", str(report)]
        proc = _run(
            args + (["--debug"] if debug else []),
            {"OPENAI_API_KEY": ENV_KEY},
            console_script=console_script,
        )
        if step not in (None, "dead"):
            # the key really was sent (so a leak would have had something to leak)
            assert fake.requests
    assert proc.returncode == code, proc.stderr[-2000:]
    assert (out.exists()) == (code == 0)
    assert src.read_bytes() == TRANSCRIPT
    if debug and code == 3:
        assert "Traceback" in proc.stderr
    _assert_no_secret(proc, [out, events, report])


@pytest.mark.parametrize("key_in_file", [False, True], ids=["env_key", "file_key"])
def test_config_and_check_never_print_the_key(setup, key_in_file):
    tmp_path, src = setup
    cfg = _config(tmp_path, DEAD, key_in_file)
    extra = ["--debug"]
    env = {"OPENAI_API_KEY": ENV_KEY}
    commands = [
        ["config", "show", "-c", str(cfg), *extra],
        ["config", "show", "-c", str(cfg), "--json", *extra],
        ["config", "show", *extra],  # no file: the env key picks the openai default
        ["config", "validate", str(cfg), *extra],
        ["check", str(src), "-c", str(cfg), "--json", *extra],
    ]
    for args in commands:
        proc = _run(args, env)
        assert proc.returncode == 0, (args, proc.stderr)
        _assert_no_secret(proc, [])


def test_config_and_check_through_the_console_script_never_print_the_key(setup):
    tmp_path, src = setup
    cfg = _config(tmp_path, DEAD, key_in_file=True)
    commands = [
        ["config", "show", "-c", str(cfg), "--debug"],
        ["check", str(src), "-c", str(cfg), "--json", "--debug"],
    ]
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        procs = list(
            pool.map(lambda a: _run(a, {"OPENAI_API_KEY": ENV_KEY}, console_script=True), commands)
        )
    for args, proc in zip(commands, procs, strict=True):
        assert proc.returncode == 0, (args, proc.stderr)
        _assert_no_secret(proc, [])


def test_bad_config_error_does_not_echo_the_key(setup):
    tmp_path, src = setup
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(f"model:\n  provider: openai\n  api_key: {FILE_KEY}\n  api_kye: {FILE_KEY}\n")
    for args in (["config", "validate", str(cfg)], ["run", str(src), "-c", str(cfg), "--debug"]):
        proc = _run(args, {"OPENAI_API_KEY": ENV_KEY})
        assert proc.returncode == 2, proc.stderr
        assert "api_kye" in proc.stderr
        _assert_no_secret(proc, [])


# -- issue 27 point 4: the env's base URL, query-string credentials, extra_query / extra_body -----

ENV_URL_PASSWORD = "envUrlPassword-7d1c"
QUERY_SECRETS = {
    "env_api_key": "envQueryKey-55aa01",
    "file_key": "fileQueryKey-66bb02",
    "file_sig": "fileSasSig-77cc03",
    "extra_query": "extraQueryToken-88dd04",
    "extra_body": "extraBodyToken-99ee05",
}


def test_config_show_masks_the_env_url_query_credentials_and_extra_values(tmp_path):
    """``$OPENAI_BASE_URL``'s password and ``?api-key=``, a failover URL's ``?key=&sig=`` and
    every ``extra_query`` / ``extra_body`` value are ``***`` in ``config show`` (YAML and
    JSON), as a config file's URL credentials and header values already were; the parameter
    names and the rest of each URL stay readable."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model:\n  provider: openai\n  name: m\n  options:\n"
        f"    extra_query: {{api-key: {QUERY_SECRETS['extra_query']}, api-version: 2024-06-01}}\n"
        f"    extra_body: {{access_token: {QUERY_SECRETS['extra_body']}}}\n"
        "failover:\n  models:\n    - {provider: openai, name: b, base_url: "
        f"'https://h.example/v1?key={QUERY_SECRETS['file_key']}&sig={QUERY_SECRETS['file_sig']}'}}\n",
        encoding="utf-8",
    )
    env_url = (
        f"http://user:{ENV_URL_PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_SECRETS['env_api_key']}"
    )
    env = {"OPENAI_API_KEY": ENV_KEY, "OPENAI_BASE_URL": env_url}
    shown = []
    for extra in ([], ["--json"]):
        proc = _run(["config", "show", "-c", str(cfg), *extra], env)
        assert proc.returncode == 0, proc.stderr
        shown.append(proc.stdout)
        for secret in (ENV_URL_PASSWORD, *QUERY_SECRETS.values()):
            assert secret not in proc.stdout + proc.stderr, (secret, extra)
        _assert_no_secret(proc, [])
    import json

    data = json.loads(shown[1])
    assert data["model"]["base_url"] == "http://***@127.0.0.1:9/v1?api-key=***"
    assert data["model"]["options"]["extra_query"] == {"api-key": "***", "api-version": "***"}
    assert data["model"]["options"]["extra_body"] == {"access_token": "***"}
    assert data["failover"]["models"][0]["base_url"] == "https://h.example/v1?key=***&sig=***"
    assert "http://***@127.0.0.1:9/v1?api-key=***" in shown[0]  # the YAML form too


def test_query_and_body_credentials_a_server_echoes_reach_no_error_event_or_report(setup):
    """A server whose 401 echoes ``?api-key=…&sig=…`` and the ``extra_body`` token it was sent:
    the error line, the ``--debug`` traceback, the events and the report show ``***``."""
    tmp_path, src = setup
    body_token = "echoedBodyToken-a1b2c3d4"
    query_key, sig = "echoedQueryKey-e5f6a7b8", "echoedSig-c9d0e1f2"
    said = f"denied https://h/v1/chat/completions?api-key={query_key}&sig={sig} body {body_token}"
    with FakeOpenAI(default=status(401, body={"error": {"message": said}})) as fake:
        cfg = tmp_path / "c.yaml"
        cfg.write_text(
            f"model:\n  provider: openai\n  name: m\n  base_url: {fake.base_url}\n"
            f"  options:\n    extra_body: {{access_token: {body_token}}}\n",
            encoding="utf-8",
        )
        out, events, report = tmp_path / "o.jsonl", tmp_path / "ev.jsonl", tmp_path / "r.json"
        args = ["run", str(src), "-o", str(out), "--force", "-c", str(cfg), "--debug"]
        proc = _run([*args, "--events", str(events), "--report", str(report)], {})
        assert fake.requests and fake.requests[0].json["access_token"] == body_token  # sent
    assert proc.returncode == 3, proc.stderr
    assert "denied https://h/v1/chat/completions?api-key=***&sig=*** body ***" in proc.stderr
    for path in (events, report):
        assert path.is_file()
    text = proc.stdout + proc.stderr + events.read_text() + report.read_text()
    for secret in (body_token, query_key, sig):
        assert secret not in text, secret

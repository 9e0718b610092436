"""``compact run`` against a REAL OpenAI-compatible server (opt-in: ``make test-real-llm``).

``scripts/real_llm.sh`` builds llama-cpp-python, serves SmolLM2-135M-Instruct with ``--n_ctx 2048``
and runs this file with ``REAL_LLM_BASE_URL`` set; without it every test here is skipped. The model
is tiny, so only the structure of the result is checked, never its wording.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compactor.prompts import PREAMBLE

from .fake_server_cli import compact_exe

pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.skipif(
        not os.environ.get("REAL_LLM_BASE_URL"),
        reason="REAL_LLM_BASE_URL is not set (run: bash scripts/real_llm.sh)",
    ),
]

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
KEY = "sk-real-llm-local"


@pytest.fixture
def base_url() -> str:
    return os.environ["REAL_LLM_BASE_URL"].rstrip("/")


def _config(tmp_path: Path, base_url: str) -> Path:
    cfg = tmp_path / "real.yaml"
    cfg.write_text(
        "model:\n"
        "  provider: openai\n"
        "  name: smollm2-135m-instruct\n"
        f"  base_url: {base_url}\n"
        "  timeout: 120\n"
        # a 135M model rambles: stop at the closing tag, damp repetition, leave room to finish
        "  options:\n"
        "    temperature: 0\n"
        "    max_tokens: 1024\n"
        '    stop: ["</summary>"]\n'
        "    extra_body: {repeat_penalty: 1.3}\n",
        encoding="utf-8",
    )
    return cfg


def _run(tmp_path: Path, base_url: str, src: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "out.jsonl"
    env = dict(os.environ)
    env["OPENAI_API_KEY"] = KEY
    env.pop("OPENAI_BASE_URL", None)
    proc = subprocess.run(
        [
            compact_exe(),
            "run",
            "-c",
            str(_config(tmp_path, base_url)),
            str(src),
            "-o",
            str(out),
            "--report",
            str(tmp_path / "rep.json"),
            "--force",
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=600,
        check=False,
    )
    return proc, out


def test_real_server_summarizes_a_small_transcript(tmp_path, base_url):
    src = tmp_path / "chat.jsonl"
    shutil.copy(SMALL, src)
    before = src.read_bytes()
    proc, out = _run(tmp_path, base_url, src)
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == before
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines
    last = lines[-1]
    assert last["role"] == "user"
    assert PREAMBLE in json.dumps(last, ensure_ascii=False)
    assert KEY not in proc.stdout + proc.stderr
    rep = json.loads((tmp_path / "rep.json").read_text(encoding="utf-8"))
    assert [a["ok"] for a in rep["attempts"]] == [True]
    # the same file re-reads as a transcript
    check = subprocess.run(
        [compact_exe(), "check", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["messages"] == len(lines)


def test_real_server_context_overflow_is_exit_3(tmp_path, base_url):
    # ~20k tokens against n_ctx 2048: the server answers HTTP 400 (context length exceeded)
    src = tmp_path / "huge.jsonl"
    rows = [{"role": "system", "content": "You are a helpful assistant."}]
    for i in range(40):
        body = " ".join(f"word{i}-{j}" for j in range(250))
        rows.append({"role": "user", "content": f"Question {i}: please read {body}"})
        rows.append({"role": "assistant", "content": f"Answer {i}: noted {body}"})
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    before = src.read_bytes()
    proc, out = _run(tmp_path, base_url, src)
    assert proc.returncode == 3, proc.stderr
    assert not out.exists()
    assert not (tmp_path / "rep.json").exists()
    assert src.read_bytes() == before
    last = proc.stderr.strip().splitlines()[-1].lower()
    assert "400" in last
    assert any(word in last for word in ("context", "bad request", "exceed", "token"))
    assert "traceback" not in proc.stderr.lower()

"""Focus instructions (issue 28 point 5): ``compact run --instructions TEXT`` /
``--instructions-file FILE`` / the ``instructions:`` key, as Claude Code's ``/compact TEXT``.

Through the real command line (typer's CliRunner): the request the loopback fake server
receives ends with the built-in instruction followed by the focus text; the embedded
summarizer keeps a fact naming the focus terms that its budget otherwise cuts; ``config show``
and the report show the text; bad flags are one-line errors, exit 2, nothing written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compactor.models.local_focus import focus_terms
from compactor.prompts import FOCUS_HEADER, USER_INSTRUCTION
from compactor.testing.fake_openai import FakeOpenAI, reply

from .fake_server_cli import CODING, PLANTED_KEY, SUMMARY, invoke, write_config

FOCUS = "the kestrel gateway and its quarantine port"
FACT = "The quarantine port for the kestrel gateway is 48213."


def _env(folder: Path) -> dict[str, str | None]:
    return {
        "OPENAI_API_KEY": PLANTED_KEY,
        "OPENAI_BASE_URL": None,
        "COLUMNS": None,
        "COMPACT_CONFIG": None,
        "XDG_CACHE_HOME": str(folder / "xdg-cache"),
    }


def _last_user_text(request_json: dict[str, object]) -> str:
    messages = request_json["messages"]
    assert isinstance(messages, list)
    last = messages[-1]
    assert last["role"] == "user"
    content = last["content"]
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content)
    assert isinstance(content, str)
    return content


def _long_session(path: Path) -> None:
    """300 similar turns; turn 40 alone states the fact, which a 6,000-token summary cuts."""
    lines = []
    for i in range(300):
        lines.append(
            {
                "role": "user",
                "content": f"Step {i}: please refactor module_{i}.py so that handler_{i} "
                f"validates its input and logs failures to audit_{i}.log; keep the tests green.",
            }
        )
        extra = f" {FACT}" if i == 40 else ""
        lines.append(
            {
                "role": "assistant",
                "content": f"I refactored module_{i}.py: handler_{i} now validates input, "
                f"writes failures to audit_{i}.log, and the 14 tests in test_module_{i}.py "
                f"pass.{extra} Next I will look at module_{i + 1}.py.",
            }
        )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def _summary_of(out: Path) -> str:
    last = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])
    return json.dumps(last)


def test_remote_model_receives_default_instruction_then_focus(
    tmp_path: Path, fake: FakeOpenAI
) -> None:
    cfg = write_config(tmp_path, fake.base_url, max_retries=None)
    src, out, rep = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "rep.json"
    shutil.copy(CODING, src)
    fake.enqueue(reply(SUMMARY))
    args = ["run", "-c", str(cfg), str(src), "-o", str(out), "--force", "--report", str(rep)]
    proc = invoke([*args, "--instructions", FOCUS], env=_env(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert len(fake.requests) == 1
    text = _last_user_text(fake.requests[0].json)
    # appended, never replacing: the whole built-in instruction, then the header and the text
    assert text == f"{USER_INSTRUCTION}\n\n{FOCUS_HEADER}\n{FOCUS}"
    assert json.loads(rep.read_text(encoding="utf-8"))["instructions"] == FOCUS


def test_instructions_file_and_config_key_reach_the_model(tmp_path: Path, fake: FakeOpenAI) -> None:
    cfg = write_config(tmp_path, fake.base_url, max_retries=None)
    src, out = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    shutil.copy(CODING, src)
    focus_file = tmp_path / "focus.txt"
    focus_file.write_text("the failing login test\n", encoding="utf-8")
    fake.enqueue(reply(SUMMARY))
    args = ["run", "-c", str(cfg), str(src), "-o", str(out), "--force"]
    proc = invoke([*args, "--instructions-file", str(focus_file)], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert _last_user_text(fake.requests[-1].json).endswith(
        f"\n\n{FOCUS_HEADER}\nthe failing login test"
    )
    # the config key, when no flag is given; the flag replaces it
    with cfg.open("a", encoding="utf-8") as f:
        f.write("instructions: the database migration\n")
    fake.enqueue(reply(SUMMARY))
    proc = invoke([*args, "--no-cache"], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert _last_user_text(fake.requests[-1].json).endswith(
        f"{USER_INSTRUCTION}\n\n{FOCUS_HEADER}\nthe database migration"
    )
    fake.enqueue(reply(SUMMARY))
    proc = invoke([*args, "--no-cache", "--instructions", "only this"], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert _last_user_text(fake.requests[-1].json).endswith(f"{FOCUS_HEADER}\nonly this")


def test_no_focus_leaves_the_instruction_as_it_was(tmp_path: Path, fake: FakeOpenAI) -> None:
    cfg = write_config(tmp_path, fake.base_url, max_retries=None)
    src, out, rep = tmp_path / "s.jsonl", tmp_path / "out.jsonl", tmp_path / "rep.json"
    shutil.copy(CODING, src)
    fake.enqueue(reply(SUMMARY))
    args = ["run", "-c", str(cfg), str(src), "-o", str(out), "--force", "--report", str(rep)]
    proc = invoke(args, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert _last_user_text(fake.requests[0].json) == USER_INSTRUCTION
    assert "instructions" not in json.loads(rep.read_text(encoding="utf-8"))


def test_local_summarizer_keeps_the_focus_fact_a_budget_cut_drops(tmp_path: Path) -> None:
    src = tmp_path / "big.jsonl"
    _long_session(src)
    plain, focused = tmp_path / "plain.jsonl", tmp_path / "focused.jsonl"
    base = ["run", str(src), "--force", "--model", "local", "-q"]
    proc = invoke([*base, "-o", str(plain)], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "48213" not in _summary_of(plain)  # the budget cuts it without a focus
    proc = invoke([*base, "-o", str(focused), "--instructions", FOCUS], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(_summary_of(focused))["content"]
    assert FACT in summary
    # first, under the first section, and the summary is no larger than the budget allows
    section = summary.index("1. Primary Request and Intent:")
    assert summary.index(FACT) < summary.index("2. ", section)
    assert len(summary) < len(src.read_text(encoding="utf-8")) // 2


def test_focus_terms_drop_stop_words() -> None:
    assert focus_terms("Focus on the Kestrel gateway and on its port, please") == [
        "kestrel",
        "gateway",
        "port",
    ]


def test_config_show_prints_the_instructions(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("instructions: the kestrel gateway\n", encoding="utf-8")
    proc = invoke(["config", "show", "-c", str(cfg), "--json"], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["instructions"] == "the kestrel gateway"
    plain = tmp_path / "plain.yaml"
    plain.write_text("token_counter: estimate\n", encoding="utf-8")
    proc = invoke(["config", "show", "-c", str(plain)], env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "instructions: none" in proc.stdout.decode()


def test_both_flags_or_an_unreadable_file_is_a_one_line_error(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    before = src.read_bytes()
    out = tmp_path / "out.jsonl"
    base = ["run", str(src), "-o", str(out), "--force", "--model", "local"]
    cases = [
        (
            ["--instructions", "x", "--instructions-file", str(src)],
            "compact: use either --instructions or --instructions-file\n",
        ),
        (
            ["--instructions-file", str(tmp_path / "missing.txt")],
            f"compact: --instructions-file: cannot read {str(tmp_path / 'missing.txt')!r}: "
            "No such file or directory\n",
        ),
    ]
    for extra, message in cases:
        proc = invoke([*base, *extra], env=_env(tmp_path))
        assert proc.returncode == 2
        assert proc.stderr.decode() == message
        assert not out.exists()
        assert src.read_bytes() == before


def test_bad_config_value_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("instructions: [a, b]\n", encoding="utf-8")
    proc = invoke(["config", "show", "-c", str(cfg)], env=_env(tmp_path))
    assert proc.returncode == 2
    assert "instructions" in proc.stderr.decode()

"""``check --explain`` predicts the tokens ``run --strategy reduce --force`` leaves (issue 30
point 2; blind check 11: 25,565 predicted, 25,691 written on a legacy Codex rollout). The
placeholders name their offload files by absolute path, so the prediction must name the same
folder the run would (``NAME.compact.offload/`` beside the default output) and the same file
names, not a stand-in ``NAME.offload/``: the deeper the folder, the larger the gap was. Checked
on synthetic legacy and modern Codex rollouts, a Claude Code session and an OpenAI chat."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from .test_codex_legacy import legacy_rollout
from .test_reduction_cli import SAMPLES, _codex_session, compact, write_session

DEEP = "a-folder-whose-name-is-long-enough-to-change-the-placeholder-tokens"


def _legacy(path: Path) -> None:
    path.write_bytes(legacy_rollout(rounds=6))


def _claude_code(path: Path) -> None:
    shutil.copy(SAMPLES / "claude-code-session.jsonl", path)


MAKERS: dict[str, Callable[[Path], None]] = {
    "codex-legacy": _legacy,
    "codex": _codex_session,
    "claude-code": _claude_code,
    "openai": write_session,
}


@pytest.mark.parametrize("shape", sorted(MAKERS))
def test_check_explain_predicts_what_a_forced_reduce_writes(tmp_path: Path, shape: str) -> None:
    folder = tmp_path / DEEP / DEEP
    folder.mkdir(parents=True)
    src = folder / "session.jsonl"
    MAKERS[shape](src)
    before = src.read_bytes()
    proc = compact(tmp_path, "check", "--explain", "--json", str(src))
    assert proc.returncode == 0, proc.stderr
    strategies = json.loads(proc.stdout.decode().splitlines()[0])["explain"]["strategies"]
    predicted = strategies["hybrid"]["forced_tokens_after_reduce"]
    assert not strategies["hybrid"]["forced_summarizes"], strategies
    proc = compact(
        tmp_path, "run", str(src), "--strategy", "reduce", "--force", "--report", "report.json"
    )
    assert proc.returncode == 0, proc.stderr
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["reduction"]["cleared"] >= 1, rep["reduction"]
    written = (folder / "session.compact.jsonl").read_text()
    assert str(folder / "session.compact.offload") in written
    assert rep["tokens_after"] == predicted, (shape, rep["tokens_after"], predicted)
    assert src.read_bytes() == before

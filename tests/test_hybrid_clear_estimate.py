"""Issue 30 after blind check 21 (N6): hybrid decides whether clearing is worth it
(``clear_at_least_tokens``) on an estimate of what clearing would free, and ``check --explain``
says that estimate. It must be what the clearing then really frees under the same settings:
the estimate of each replaced message before and after, with the placeholder naming the file
the run would write. It was the result's text joined with newlines, one image per result
whatever their number, and a stand-in 81-character path instead of the real offload path (a
deep folder: several tokens per result). Checked through the real command line on results
that are text, lists of text parts and images, in every format that has them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from .test_reduction_cli import compact, write_session
from .test_reduction_offload_original import CASES, PNG, Content

DEEP = "a-folder-whose-name-is-long-enough-to-change-the-placeholder-tokens"
_ESTIMATE = re.compile(r"clearing would free about ([\d,]+) tokens")


def _two_images(fmt: str) -> list[dict[str, Any]]:
    """A result with two images and two texts, in ``fmt``'s own part types."""
    if fmt in ("anthropic", "claude-code"):
        image: dict[str, Any] = {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
        }
        text = "text"
    elif fmt == "codex":
        image = {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"}
        text = "input_text"
    elif fmt == "eino":
        image = {"type": "image_url", "image": {"url": f"data:image/png;base64,{PNG}"}}
        text = "text"
    else:
        image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
        text = "text"
    return [
        image,
        {"type": text, "text": "before " + "b" * 701},
        image,
        {"type": text, "text": "after é " + "a" * 999},
    ]


def _session(folder: Path, fmt: str) -> Path:
    make, results = CASES[fmt]
    cases: list[tuple[str, Content]] = list(results())
    three_texts = [
        {"type": "input_text" if fmt == "codex" else "text", "text": f"part {n} " + "q" * (397 + n)}
        for n in range(3)
    ]
    cases[-1:-1] = [("call_two_images", _two_images(fmt)), ("call_three_texts", three_texts)]
    src = folder / "session.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in make(cases)), encoding="utf-8")
    return src


def _config(least: int, counter: str) -> dict[str, Any]:
    return {
        "strategy": "hybrid",
        "token_counter": counter,
        "reduction": {"clear_at_least_tokens": least},
    }


def _run(
    tmp: Path, src: Path, how: tuple[str, str, str], strategy: str, least: int
) -> tuple[int, Any, str]:
    """One forced run (the default output beside the input, its offload folder too): its exit
    code, report and stderr; the output and offload folder removed after. ``how``: (format,
    token counter, ``COMPACT_OFFLOAD_INLINE``: 0 a writer process, 1 none)."""
    fmt, counter, inline = how
    rep = tmp / "report.json"
    rep.unlink(missing_ok=True)
    proc = compact(
        tmp, "run", str(src), "--format", fmt, "--strategy", strategy, "--force", "--model",
        "local", "--no-cache", "--report", str(rep), config=_config(least, counter),
        COMPACT_OFFLOAD_INLINE=inline,
    )  # fmt: skip
    report = json.loads(rep.read_text()) if rep.exists() else None
    src.with_name("session.compact.jsonl").unlink(missing_ok=True)
    shutil.rmtree(src.with_name("session.compact.offload"), ignore_errors=True)
    return proc.returncode, report, proc.stderr.decode()


def _explain(tmp: Path, src: Path, how: tuple[str, str, str], least: int) -> Any:
    fmt, counter, _ = how
    proc = compact(
        tmp,
        "check",
        "--explain",
        "--json",
        "--format",
        fmt,
        str(src),
        config=_config(least, counter),
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.decode().splitlines()[0])["explain"]["strategies"]["hybrid"]


def _estimate(skipped: str | None) -> int:
    found = _ESTIMATE.search(skipped or "")
    assert found is not None, skipped
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize(
    ("fmt", "counter", "inline"),
    [(fmt, "estimate", "1") for fmt in sorted(CASES)]
    + [("openai", "estimate", "0")]  # the streaming pass with its writer process
    + [(fmt, "tiktoken:cl100k_base", "1") for fmt in ("claude-code", "codex", "openai")],
)
def test_clearing_estimate_is_what_clearing_frees(
    tmp_path: Path, fmt: str, counter: str, inline: str
) -> None:
    """By the estimate, and by tiktoken (the run counts the history with it: so must the
    estimate, else a floor in tiktoken's tokens is set against bytes / 4)."""
    how = (fmt, counter, inline)
    folder = tmp_path / DEEP / DEEP
    folder.mkdir(parents=True)
    src = _session(folder, fmt)
    before = src.read_bytes()
    # what clearing really frees, under the same settings (nothing truncated: all short)
    freed: dict[str, int] = {}
    for strategy in ("reduce", "hybrid"):
        rc, rep, err = _run(tmp_path, src, how, strategy, 0)
        assert rc == 0, err
        red = rep["reduction"]
        assert red["truncated"] == 0 and red["cleared"] == 5, (strategy, red)
        assert red["summarized"] is False if strategy == "hybrid" else True
        freed[strategy] = red["tokens_freed"]
    assert freed["reduce"] == freed["hybrid"] > 0, freed
    really = freed["reduce"]
    hyb = _explain(tmp_path, src, how, 0)
    assert hyb["forced_tokens_before_reduce"] - hyb["forced_tokens_after_reduce"] == really
    # the estimate when it is too little: the run's and check --explain's, the same number
    rc, rep, err = _run(tmp_path, src, how, "hybrid", 10**9)
    assert rc == 0, err
    assert rep["reduction"]["cleared"] == 0 and rep["reduction"]["summarized"] is False
    run_estimate = _estimate(rep["reduction"]["clear_skipped"])
    explain_estimate = _estimate(_explain(tmp_path, src, how, 10**9)["forced_clear_skipped"])
    assert run_estimate == explain_estimate == really, (how, run_estimate, explain_estimate, really)
    # so the decision is the real one: a floor of exactly what it frees clears, one more does not
    rc, rep, err = _run(tmp_path, src, how, "hybrid", really)
    assert rc == 0, err
    assert rep["reduction"]["cleared"] == 5 and rep["reduction"]["tokens_freed"] == really
    rc, rep, err = _run(tmp_path, src, how, "reduce", really + 1)
    assert rc == 4, err
    # with what it would clear: another config's retained rounds clear more (cc-aikit: 1 result
    # outside hybrid's 2 rounds, 3 outside the default's 1)
    assert (
        f"clearing would free about {really:,} tokens (5 results outside the newest 1 tool round)"
        in err
    )
    assert src.read_bytes() == before


def test_streaming_estimate_with_files_named_during_the_scan(tmp_path: Path) -> None:
    """The streaming pass's writer process names the files of results certain to be cleared
    while the scan goes on (here every result: plain texts, ``--force``, a floor its own
    rougher count passes); the estimate then prices the placeholders naming those files."""
    folder = tmp_path / DEEP / DEEP
    folder.mkdir(parents=True)
    src = folder / "session.jsonl"
    write_session(src, rounds=12, size=600)
    how = ("openai", "estimate", "0")
    rc, rep, err = _run(tmp_path, src, how, "reduce", 0)
    assert rc == 0, err
    assert rep["reduction"]["streamed"] is True and rep["reduction"]["cleared"] == 11
    really = rep["reduction"]["tokens_freed"]
    rc, rep, err = _run(tmp_path, src, how, "reduce", really + 1)
    assert rc == 4, err
    assert f"clearing would free about {really:,} tokens (11 results outside" in err
    rc, rep, err = _run(tmp_path, src, how, "reduce", really)
    assert rc == 0, err
    assert rep["reduction"]["cleared"] == 11 and rep["reduction"]["tokens_freed"] == really

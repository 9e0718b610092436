"""``--strategy hybrid`` after blind check 3 (issue 30), through the real command line:

* a clearing that frees less than ``clear_at_least_tokens`` is not applied, and ``--force``
  then keeps a history under its trigger as it is, saying why (no exit 4, no summary of the
  whole session: blind check 24; ``reduce`` alone still refuses); with nothing to clear at all
  ``--force`` summarizes;
* a summary is kept only when it is smaller than the reduced history and under the trigger,
  with one retained round fewer at a time; when none gets there, exit 4, nothing written;
* with a kept tail (hybrid's retained rounds, summarize's ``keep``), the summary says where work
  stands from the whole session: never "nothing is pending" above a kept call that never
  returned, never "unresolved" for a failure fixed in the kept part.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.models.local_state import ANSWERED

from .test_reduction_cli import chat, compact, report

NOT_ENOUGH = {"reduction": {"clear_at_least_tokens": 1_000_000}}
"""Clearing would always free too little."""


def _call(i: int, command: str) -> dict[str, Any]:
    args = json.dumps({"command": command})
    return {"id": f"call_{i}", "type": "function", "function": {"name": "bash", "arguments": args}}


def _write(path: Path, recs: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _mid_work(path: Path, lines: int = 600) -> None:
    """An openai session: a first request answered after five rounds, then a second request
    whose one call never returned (the session was saved with it in flight)."""
    recs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "fix the failing test in parser.py"},
    ]
    for i in range(5):
        recs.append(
            {"role": "assistant", "content": f"Reading part {i}.", "tool_calls": [
                _call(i, f"cat src/part{i}.py")]}
        )  # fmt: skip
        body = f"def part{i}():\n" + "    x = 1\n" * lines
        recs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": body})
    recs.append({"role": "assistant", "content": "The test passes now; parser.py is fixed."})
    recs.append({"role": "user", "content": "now export the session with export-session.sh"})
    recs.append(
        {"role": "assistant", "content": "Running the export.", "tool_calls": [
            _call(9, "bash scripts/export-session.sh --all")]}
    )  # fmt: skip
    _write(path, recs)


def _fixed_later(path: Path) -> None:
    """A count script fails with a TypeError, is edited, and the re-run (the last round)
    succeeds; the assistant reports the count."""
    error = "file:///tmp/count_demo.mjs:12\nTypeError: r is not iterable\n    at main\nexit code 1"
    recs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "count the deposit transactions of the live demo"},
        {"role": "assistant", "content": "Running the count.", "tool_calls": [
            _call(0, "node /tmp/count_demo.mjs")]},
        {"role": "tool", "tool_call_id": "call_0", "content": error},
    ]  # fmt: skip
    for i in range(1, 5):
        recs.append(
            {"role": "assistant", "content": f"Looking at the RPC reply, step {i}.",
             "tool_calls": [_call(i, f"cat /tmp/rpc_{i}.json")]}
        )  # fmt: skip
        body = json.dumps({"result": [{"slot": n, "sig": "x" * 40} for n in range(60)]})
        recs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": body})
    recs.append(
        {"role": "assistant", "content": "Fixed the iteration; running it again.",
         "tool_calls": [_call(5, "node /tmp/count_demo.mjs")]}
    )  # fmt: skip
    recs.append({"role": "tool", "tool_call_id": "call_5", "content": "deposits: 7\nok"})
    recs.append({"role": "assistant", "content": "The live demo made 7 deposit transactions."})
    _write(path, recs)


def _summary_text(out: Path) -> str:
    messages = chat(out.read_bytes())
    return next(m.content or "" for m in messages if "<summary>" in (m.content or "")
                or "Pending Tasks" in (m.content or ""))  # fmt: skip


# -- point 1: a clearing that frees too little -----------------------------------------------------
def test_hybrid_force_keeps_a_history_under_its_trigger_when_clearing_would_free_too_little(
    tmp_path: Path,
) -> None:
    """Blind check 24 H1: a forced hybrid whose clearing was skipped as not worth it summarized
    the whole 20k-token session (trigger 160k); the floor says clearing so little is not worth
    a cache miss, so a summary of everything is not either: the history stays, the report says
    why."""
    _mid_work(tmp_path / "s.jsonl")
    before = (tmp_path / "s.jsonl").read_bytes()
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--force", "--model", "local",
        "-o", "out.jsonl", "--report", "report.json", "--events", "ev.jsonl", config=NOT_ENOUGH,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "reduction refused" not in proc.stderr.decode()
    assert (tmp_path / "s.jsonl").read_bytes() == before
    assert (tmp_path / "out.jsonl").read_bytes() == before  # kept as it is
    rep = report(tmp_path)
    assert rep["reduction"]["cleared"] == 0
    assert "clear_at_least_tokens" in rep["reduction"]["clear_skipped"]
    assert rep["reduction"]["summarized"] is False
    why = rep["reduction"]["hybrid_why"]
    assert why.startswith("--force, but clearing would free about ") and why.endswith(
        "fewer than clear_at_least_tokens (1,000,000); under the trigger: the history stays "
        "as it is"
    ), why
    assert rep["tokens_after"] == rep["tokens_before"]
    events = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    assert not [e for e in events if e["type"] == "hybrid_outcome"]  # no summary was tried
    # over the trigger (it fires) the same floor does not stop the summary
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "1000", "--model",
        "local", "-o", "over.jsonl", "--report", "report.json", config=NOT_ENOUGH,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    assert rep["reduction"]["summarized"] is True
    assert rep["reduction"]["hybrid_why"].startswith("the reduced history still fires the trigger")
    # reduce alone still refuses it: clearing was its whole point
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "r.jsonl",
        config=NOT_ENOUGH,
    )  # fmt: skip
    assert proc.returncode == 4
    assert "reduction refused: clearing would free about" in proc.stderr.decode()
    assert not (tmp_path / "r.jsonl").exists()


def test_check_explain_says_what_hybrid_force_does(tmp_path: Path) -> None:
    _mid_work(tmp_path / "s.jsonl")
    cfg = {**NOT_ENOUGH, "strategy": "hybrid"}
    proc = compact(tmp_path, "check", "--explain", "s.jsonl", config=cfg)
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())
    assert "with --force: clears nothing (clearing would free about" in text
    assert "under the trigger the history stays as it is" in text
    proc = compact(tmp_path, "check", "--explain", "s.jsonl", config={"strategy": "hybrid"})
    text = " ".join(proc.stdout.decode().split())
    assert "with --force: clears every round outside the retained ones, to" in text


# -- point 2: never larger than reduce alone; fewer rounds; exit 4 when it cannot ------------------
def test_hybrid_keeps_fewer_rounds_until_under_the_trigger(tmp_path: Path) -> None:
    """The retained round (kept verbatim) is large: summary + it is over the trigger, so the
    summary is made again with one round fewer (the call in flight), and that one is written."""
    _mid_work(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "1500", "--model",
        "local", "-o", "out.jsonl", "--report", "report.json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    tries = rep["reduction"]["hybrid_tries"]
    reduced = rep["reduction"]["tokens_after"]
    # then the round of the call in flight alone (blind check 4: it is a round too)
    assert len(tries) == 2 and tries[0]["kept_messages"] > 0 and tries[1]["kept_messages"] == 1
    assert tries[0]["tokens_after"] > 1500  # summary + the retained round: over
    assert rep["tokens_after"] == tries[1]["tokens_after"] <= 1500 < reduced
    assert "under the trigger" in proc.stderr.decode()
    proc = compact(tmp_path, "check", "--threshold", "1500", "out.jsonl")
    assert proc.returncode == 0, proc.stdout


def test_hybrid_that_cannot_get_under_the_trigger_writes_nothing_exit_4(tmp_path: Path) -> None:
    _mid_work(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "100", "--model",
        "local", "-o", "out.jsonl", "--report", "report.json", "--events", "ev.jsonl",
    )  # fmt: skip
    assert proc.returncode == 4, proc.stderr
    err = proc.stderr.decode()
    assert "hybrid: no result gets under the trigger: reduced to" in err
    assert "> 100 token threshold" in err and "nothing was written" in err
    assert not (tmp_path / "out.jsonl").exists()
    assert (
        not any((tmp_path / "out.offload").rglob("*.*"))
        if (tmp_path / "out.offload").exists()
        else True
    )
    rep = report(tmp_path)
    assert rep["exit_code"] == 4 and len(rep["reduction"]["hybrid_tries"]) == 3
    events = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    assert [e["reached"] for e in events if e["type"] == "hybrid_outcome"] == [False]


def test_hybrid_force_never_writes_a_summary_larger_than_the_reduced_history(
    tmp_path: Path,
) -> None:
    """A short session under its trigger, forced, clearing refused: every summary is larger
    than the history itself, so the history is written as it is (exit 0), never grown."""
    recs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok", "tool_calls": [_call(0, "ls")]},
        {"role": "tool", "tool_call_id": "call_0", "content": "a.py"},
        {"role": "assistant", "content": "one file: a.py"},
    ]
    _write(tmp_path / "s.jsonl", recs)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--force", "--model", "local",
        "-o", "out.jsonl", "--report", "report.json", config=NOT_ENOUGH,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "s.jsonl").read_bytes()
    rep = report(tmp_path)
    assert rep["reduction"]["summarized"] is False
    assert all(t["tokens_after"] >= rep["tokens_before"] for t in rep["reduction"]["hybrid_tries"])
    assert rep["tokens_after"] == rep["tokens_before"]


# -- points 3 and 4: where work stands, read from the whole session -------------------------------
def test_summary_above_a_kept_open_call_never_says_nothing_is_pending(tmp_path: Path) -> None:
    """The summarized part ends answered; the kept tail holds a new request and a call that
    never returned. Hybrid (over its trigger) and summarize with a kept tail both say so."""
    _mid_work(tmp_path / "s.jsonl")
    runs = {
        "sum.jsonl": (("--force",), {"keep": {"messages": 3}}),
        "hyb.jsonl": (("--strategy", "hybrid", "--threshold", "1000"), NOT_ENOUGH),
    }
    for out, (flags, cfg) in runs.items():
        proc = compact(
            tmp_path, "run", "s.jsonl", *flags, "--model", "local", "-o", out, config=cfg
        )
        assert proc.returncode == 0, proc.stderr
        messages = chat((tmp_path / out).read_bytes())
        assert messages[-1].tool_calls and messages[-1].tool_calls[0].id == "call_9"  # kept
        summary = _summary_text(tmp_path / out)
        assert ANSWERED not in summary
        assert "no task, background job or tool call is open" not in summary
        pending = summary.split("7. Pending Tasks")[1].split("8. ")[0]
        assert "export-session.sh" in pending and "in flight" in pending


def test_failure_fixed_in_the_kept_tail_is_not_unresolved(tmp_path: Path) -> None:
    """The summarized part ends on a failed run; the kept round re-runs it successfully. The
    summary quotes the original error (not a placeholder) and does not call it unresolved."""
    _fixed_later(tmp_path / "s.jsonl")
    runs = {
        "sum.jsonl": (("--force",), {"keep": {"messages": 3}}),
        "hyb.jsonl": (("--strategy", "hybrid", "--threshold", "1000"), NOT_ENOUGH),
    }
    for out, (flags, cfg) in runs.items():
        proc = compact(
            tmp_path, "run", "s.jsonl", *flags, "--model", "local", "-o", out, config=cfg
        )
        assert proc.returncode == 0, proc.stderr
        summary = _summary_text(tmp_path / out)
        assert "TypeError: r is not iterable" in summary  # the original result was read
        assert "Unresolved failure" not in summary
        assert "still in progress" not in summary.split("7. Pending Tasks")[1].split("8. ")[0]


def test_a_cached_summary_is_reused_for_the_same_kept_tail_only(tmp_path: Path) -> None:
    """The summary cache (on for the embedded summarizer when configured) keys a summary
    written with the kept tail in view by that tail too: the same head with a different tail
    (the call returned and was answered) is summarized again, not answered from the cache."""
    _mid_work(tmp_path / "a.jsonl")
    recs = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()]
    recs.append({"role": "tool", "tool_call_id": "call_9", "content": "exported 3 sessions"})
    recs.append({"role": "assistant", "content": "Exported the sessions to out/."})
    _write(tmp_path / "b.jsonl", recs)
    cache = {"enabled": True, "dir": str(tmp_path / "cache")}
    pendings = []
    for name, keep in (("a", 3), ("b", 5), ("a", 3)):  # the same head: all but the tail
        proc = compact(
            tmp_path, "run", f"{name}.jsonl", "--force", "--model", "local", "-o",
            f"{name}.out.jsonl", config={"keep": {"messages": keep}, "cache": cache},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        summary = _summary_text(tmp_path / f"{name}.out.jsonl")
        pendings.append(summary.split("7. Pending Tasks")[1].split("8. ")[0])
    assert "in flight" in pendings[0] and "in flight" in pendings[2]
    assert "in flight" not in pendings[1]
    assert any((tmp_path / "cache").rglob("*"))


# -- blind check 4, x402: keep.messages is at most; fallback tries keep fewer for real ------------
def test_hybrid_fallback_keeps_fewer_messages_than_keep_messages(tmp_path: Path) -> None:
    """``keep: {messages: 6}`` and a large retained round: summary + that round is over the
    trigger. The next try must keep fewer messages for real (before: every try kept the same
    tail, as many as keep.messages allowed, so "keeping 0" wrote the same size and the run
    exited 4); the round of the call still in flight is a try of its own, so it stays below."""
    _mid_work(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "1500", "--model",
        "local", "-o", "out.jsonl", "--report", "report.json", config={"keep": {"messages": 6}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    tries = rep["reduction"]["hybrid_tries"]
    kept = [t["kept_messages"] for t in tries]
    assert kept == sorted(kept, reverse=True) and len(set(kept)) == len(kept), tries
    assert tries[0]["tokens_after"] > 1500 >= tries[-1]["tokens_after"] == rep["tokens_after"]
    assert tries[-1]["kept_messages"] == 1  # the call in flight, kept verbatim below the summary
    messages = chat((tmp_path / "out.jsonl").read_bytes())
    assert messages[-1].tool_calls and messages[-1].tool_calls[0].id == "call_9"
    assert "<summary>" in (messages[-2].content or "")  # nothing else kept
    proc = compact(tmp_path, "check", "--threshold", "1500", "out.jsonl")
    assert proc.returncode == 0, proc.stdout


def test_summary_does_not_repeat_the_kept_tails_final_answer(tmp_path: Path) -> None:
    """The final answer is in the kept tail, right below the summary: the summary says where
    work stands without quoting it again (blind check 4: quoting the kept tail's answer and
    results made the summary larger than the part it replaced). The output holds it once."""
    answer = "Audit report. " + " ".join(f"finding{i} in module{i}.py is fixed" for i in range(150))
    recs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "audit the repository and report every finding"},
    ]
    for i in range(4):
        recs.append(
            {"role": "assistant", "content": f"Reading part {i}.", "tool_calls": [
                _call(i, f"cat src/part{i}.py")]}
        )  # fmt: skip
        body = f"def part{i}():\n" + "    x = 1\n" * 200
        recs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": body})
    recs.append({"role": "assistant", "content": answer})
    _write(tmp_path / "s.jsonl", recs)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--force", "--model", "local", "-o", "out.jsonl",
        config={"keep": {"messages": 3}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = _summary_text(tmp_path / "out.jsonl")
    assert "finding3 in module3.py" not in summary
    assert "was completed" in summary  # where work stands is still said
    whole = (tmp_path / "out.jsonl").read_text("utf-8")
    assert whole.count("finding3 in module3.py") == 1

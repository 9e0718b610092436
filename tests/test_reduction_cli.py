"""``compact run --strategy reduce|hybrid`` through the real command line (SPEC §10): the
offload folder, placeholders an agent can read back, the config keys, the report and events,
``check --explain``, and bad input (orphans, reused ids, unwritable folders, a full disk)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from compactor.formats.registry import read_transcript
from compactor.schema import Message

from .fake_server_cli import invoke

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_transcripts"


PAD = " " + "p" * 400
"""Makes a result longer than its placeholder: a shorter one is kept as it is."""


def write_session(
    path: Path, rounds: int = 5, size: int = 8_000, big: int | None = None, talk: int = 0
) -> None:
    """An openai-format session: ``rounds`` tool rounds; round 2 is ``big`` characters; each
    assistant message says ``talk`` words more (texts reduction never clears)."""
    recs: list[dict[str, Any]] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "fix the failing test"},
    ]
    for i in range(rounds):
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "sh", "arguments": "{}"},
        }
        text = f"step {i}" + f" word{i}" * talk
        recs.append({"role": "assistant", "content": text, "tool_calls": [call]})
        body = f"out {i} " + "z" * (big if big is not None and i == 2 else size)
        recs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": body})
    recs.append({"role": "assistant", "content": "done"})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def compact(tmp: Path, *args: str, config: dict[str, Any] | None = None, **env: str) -> Any:
    argv = list(args)
    if config is not None:
        (tmp / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        argv[1:1] = ["-c", str(tmp / "c.yaml")]
    full_env = {"COLUMNS": "100", "NO_COLOR": "1", "XDG_DATA_HOME": str(tmp / "data"), **env}
    return invoke(argv, env=full_env, cwd=tmp)


def chat(raw: bytes) -> list[Message]:
    messages = read_transcript("t", raw).messages
    assert all(isinstance(m, Message) for m in messages)
    return cast(list[Message], messages)


def report(tmp: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp / "report.json").read_text())
    return data


def test_reduce_offloads_beside_the_output_and_names_absolute_files(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    write_session(src, big=60_000)
    before = src.read_bytes()
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000",
        "--report", "report.json", "--events", "events.jsonl",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == before
    folder = tmp_path / "s.compact.offload"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    out = chat((tmp_path / "s.compact.jsonl").read_bytes())
    orig = chat(before)
    tools = [(o, n) for o, n in zip(orig, out, strict=True) if o.role == "tool"]
    for i, (old, new) in enumerate(tools[:-1]):
        kind = "trunc" if i == 2 else "clear"
        path = folder / kind / f"call_{i}"
        assert new.content == (
            f"<persisted-output>Tool result saved to: {path}\nUse read_file to view"
            "</persisted-output>"
        )
        assert path.read_text() == old.content  # exactly the original result
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert tools[-1][1].content == tools[-1][0].content  # the retained round
    for old, new in zip(orig, out, strict=True):
        if old.role != "tool":
            assert (old.content, old.tool_calls) == (new.content, new.tool_calls)
    rep = report(tmp_path)["reduction"]
    assert rep["strategy"] == "reduce" and rep["cleared"] == 4 and rep["truncated"] == 1
    assert rep["offload_dir"] == str(folder) and rep["tokens_freed"] > 0
    types = [json.loads(x)["type"] for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert types == [
        "transcript_read",
        "trigger_checked",
        "before_reduce",
        "after_reduce",
        "run_finished",
    ]
    assert "reduced: 1 result truncated, 4 results cleared" in proc.stderr.decode()


def test_in_place_archives_only_what_it_changes(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    write_session(src)
    before = src.read_bytes()
    args = ("run", "s.jsonl", "--in-place", "--strategy", "reduce", "--report", "report.json")
    proc = compact(tmp_path, *args)  # under the trigger: nothing to do, nothing archived
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == before and report(tmp_path)["archive"] is None
    proc = compact(tmp_path, *args, "--threshold", "5000")
    assert proc.returncode == 0, proc.stderr
    archived = report(tmp_path)["archive"]
    assert archived and Path(archived).read_bytes() == before
    assert (tmp_path / "s.offload" / "clear" / "call_0").is_file()
    assert src.read_bytes() != before


def test_under_the_trigger_reduce_copies_the_input(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--report", "report.json")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "s.compact.jsonl").read_bytes() == (tmp_path / "s.jsonl").read_bytes()
    assert (
        "not over max_tokens_for_clear (160,000)" in report(tmp_path)["reduction"]["clear_skipped"]
    )
    assert not (tmp_path / "s.compact.offload").exists()


def test_force_clears_every_round_outside_the_retained_suffix(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl", size=500)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "--report", "report.json",
        config={"reduction": {"clear_retention_suffix_limit": 2}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert report(tmp_path)["reduction"]["cleared"] == 3


def test_clear_at_least_tokens_refuses_a_forced_run(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl", size=500)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force",
        config={"reduction": {"clear_at_least_tokens": 100_000}},
    )  # fmt: skip
    assert proc.returncode == 4
    assert "reduction refused: clearing would free about" in proc.stderr.decode()
    assert not (tmp_path / "s.compact.jsonl").exists()
    assert not (tmp_path / "s.compact.offload").exists()


def test_without_offload_the_placeholder_names_the_transcript_line(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    write_session(src)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000",
        config={"strategy": "reduce", "reduction": {"offload": False}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = chat((tmp_path / "s.compact.jsonl").read_bytes())
    lines = src.read_text().splitlines()
    cleared = out[3].content
    assert cleared == (
        f"[Old tool result content cleared] (the full result is in the transcript {src}, line 4)"
    )
    assert json.loads(lines[3])["content"].startswith("out 0 zzz")
    assert not (tmp_path / "s.compact.offload").exists()


def test_strategy_from_the_config_and_a_bad_one(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    (tmp_path / "h.yaml").write_text("strategy: hybrid\n")
    proc = compact(tmp_path, "config", "show", "-c", "h.yaml")
    shown = yaml.safe_load(proc.stdout)
    assert shown["strategy"] == "hybrid" and shown["reduction"]["max_tokens_for_clear"] == 160_000
    proc = compact(tmp_path, "run", "s.jsonl", config={"strategy": "shrink"})
    assert proc.returncode == 2
    assert "strategy must be one of summarize, reduce, hybrid, got 'shrink'" in proc.stderr.decode()
    proc = compact(tmp_path, "run", "s.jsonl", "--strategy", "nope")
    assert proc.returncode == 2 and "--strategy: strategy must be one of" in proc.stderr.decode()
    proc = compact(tmp_path, "run", "s.jsonl", config={"reduction": {"clear_exclude_tools": "sh"}})
    assert proc.returncode == 2 and "expected a list of names" in proc.stderr.decode()
    bad = {"strategy": "reduce", "reduction": {"clear_retention_suffix_limit": -1}}
    proc = compact(tmp_path, "run", "s.jsonl", "-o", "o.jsonl", config=bad)
    assert proc.returncode == 2
    assert "c.yaml" in proc.stderr.decode()
    assert "reduction.clear_retention_suffix_limit must be an integer >= 0" in proc.stderr.decode()
    assert not (tmp_path / "o.jsonl").exists()


def test_hybrid_reduces_then_summarizes_and_keeps_the_retained_round(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl", rounds=6, size=8_000, talk=600)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "5000", "--model",
        "local", "-o", "out.jsonl", "--report", "report.json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    assert rep["reduction"]["summarized"] is True and rep["reduction"]["cleared"] == 5
    out = chat((tmp_path / "out.jsonl").read_bytes())
    assert out[-3].tool_calls[0].id == "call_5"
    assert out[-2].content.startswith("out 5 zzz")  # the retained round, verbatim
    assert rep["tokens_after"] <= 5000 < rep["reduction"]["tokens_after"]
    # hybrid, reduction enough: no summary
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "8000", "--model",
        "local", "-o", "out2.jsonl", "--report", "report.json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert report(tmp_path)["reduction"]["summarized"] is False
    assert report(tmp_path)["tokens_after"] < 8000


def test_agent_resume_config_ships_hybrid(tmp_path: Path) -> None:
    cfg = yaml.safe_load((REPO / "configs" / "agent-resume.yaml").read_text())
    assert cfg["strategy"] == "hybrid"
    proc = invoke(["config", "show", "-c", str(REPO / "configs" / "agent-resume.yaml")])
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(proc.stdout)["strategy"] == "hybrid"


def test_check_explain_says_what_each_strategy_frees(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    proc = compact(tmp_path, "check", "--explain", "--threshold", "5000", "s.jsonl")
    text = proc.stdout.decode()
    assert "strategies (this config: summarize):" in text
    assert "reduce:            0 truncated, 4 cleared:" in text
    proc = compact(tmp_path, "check", "--explain", "--json", "--threshold", "5000", "s.jsonl")
    data = json.loads(proc.stdout.decode().splitlines()[0])
    assert data["explain"]["strategies"]["reduce"]["cleared"] == 4


def test_stdout_output_offloads_under_xdg_data_home(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "-o", "-", "--strategy", "reduce", "--threshold", "5000"
    )
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "data" / "compact" / "offload"
    assert (folder / "clear" / "call_0").is_file()
    assert str(folder / "clear" / "call_0") in proc.stdout.decode()


def test_offload_dir_flag_and_an_unusable_folder_is_exit_2_at_plan_time(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    (tmp_path / "afile").write_text("x")
    args = ("run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000")
    proc = compact(tmp_path, *args, "--offload-dir", "afile/sub")
    assert proc.returncode == 2
    assert "offload folder" in proc.stderr.decode() and "is not a folder" in proc.stderr.decode()
    assert not (tmp_path / "s.compact.jsonl").exists()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    proc = compact(tmp_path, *args, "--offload-dir", str(shared))
    assert proc.returncode == 2 and "can be written by other users" in proc.stderr.decode()
    proc = compact(tmp_path, *args, "--offload-dir", "mine")
    assert proc.returncode == 0 and (tmp_path / "mine" / "clear" / "call_0").is_file()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a read-only folder anyway")
def test_read_only_offload_folder_is_exit_2(tmp_path: Path) -> None:
    write_session(tmp_path / "s.jsonl")
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000",
        "--offload-dir", str(ro / "x"),
    )  # fmt: skip
    assert proc.returncode == 2 and "permission denied" in proc.stderr.decode()


def _tmpfs(mnt: Path, options: str) -> Any:
    mnt.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"mount not allowed: {done.stderr.decode().strip()}")
    yield mnt
    subprocess.run(["umount", str(mnt)], check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Any:
    yield from _tmpfs(tmp_path / "mnt", "size=64k")


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Any:
    yield from _tmpfs(tmp_path / "ro-mnt", "ro,size=64k")


def test_an_offload_folder_on_a_read_only_disk_is_exit_2_at_plan_time(
    tmp_path: Path, read_only_disk: Path
) -> None:
    """Root too: a read-only file system refuses every user, so the plan refuses it (exit 2)
    before the transcript is read; nothing is written, the input is untouched."""
    src = tmp_path / "s.jsonl"
    write_session(src)
    before = src.read_bytes()
    for folder in (read_only_disk, read_only_disk / "off"):
        proc = compact(
            tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000",
            "--offload-dir", str(folder), "-o", "out.jsonl", "--events", "ev.jsonl",
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        err = proc.stderr.decode()
        assert f"cannot write the offload folder {str(read_only_disk)!r}" in err or (
            f"cannot write the folder {str(read_only_disk)!r}" in err
        )
        assert "read-only file system" in err
        assert not (tmp_path / "out.jsonl").exists()
        assert (
            not (tmp_path / "ev.jsonl").exists()
            or "transcript_read" not in (tmp_path / "ev.jsonl").read_text()
        )
    assert src.read_bytes() == before
    assert list(read_only_disk.iterdir()) == []


@pytest.mark.parametrize("streaming", [True, False], ids=["streaming", "general"])
def test_a_disk_that_fills_while_offloading_is_exit_6_nothing_half_written(
    tmp_path: Path, small_disk: Path, streaming: bool
) -> None:
    src = tmp_path / "s.jsonl"
    write_session(src, rounds=8, size=20_000)
    before = src.read_bytes()
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--threshold", "5000",
        "--offload-dir", str(small_disk / "off"), "-o", "out.jsonl",
        COMPACT_TEST_NO_STREAMING="0" if streaming else "1",
    )  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    assert "completely: No space left on device; nothing was written" in proc.stderr.decode()
    assert src.read_bytes() == before
    assert not (tmp_path / "out.jsonl").exists()
    assert [p for p in small_disk.rglob("*") if p.is_file()] == []  # no file, no temp file


def test_claude_code_placeholder_names_read_and_codex_a_shell_cat(tmp_path: Path) -> None:
    src = SAMPLES / "claude-code-session.jsonl"
    shutil.copy(src, tmp_path / "cc.jsonl")
    proc = compact(tmp_path, "run", "cc.jsonl", "--strategy", "reduce", "--force", "-o", "o.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert "Use Read to view" in (tmp_path / "o.jsonl").read_text()
    codex = REPO / "tests" / "fixtures" / "formats" / "codex.jsonl"
    shutil.copy(codex, tmp_path / "cx.jsonl")
    proc = compact(tmp_path, "run", "cx.jsonl", "--strategy", "reduce", "--force", "-o", "x.jsonl")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "x.jsonl").read_text()
    assert "Use shell (`cat " in text and str(tmp_path / "x.offload" / "clear") in text


FORMAT_FILES = {
    "openai": SAMPLES / "coding-session.jsonl",
    "eino": REPO / "tests" / "fixtures" / "formats" / "eino.jsonl",
    "anthropic": REPO / "tests" / "fixtures" / "formats" / "anthropic.jsonl",
    "claude-code": SAMPLES / "claude-code-session.jsonl",
    "codex": REPO / "tests" / "fixtures" / "formats" / "codex.jsonl",
}


def _results(messages: list[Any]) -> list[tuple[str, str]]:
    """(call id, text) of every tool result, either message shape."""
    found: list[tuple[str, str]] = []
    for msg in messages:
        if isinstance(msg, Message):
            if msg.role == "tool":
                found.append((msg.tool_call_id or "", msg.content))
            continue
        for block in msg.blocks:
            if block.type == "function_tool_result":
                text = "\n".join(b.text or "" for b in block.content)
                found.append((block.call_id or "", text))
    return found


def _texts(messages: list[Any]) -> list[tuple[str, str]]:
    from compactor.formats._jsonl import message_text

    return [(m.role, message_text(m)) for m in messages if m.role in ("user", "assistant")]


@pytest.mark.parametrize("mode", ["shrink", "append"])
@pytest.mark.parametrize("fmt", sorted(FORMAT_FILES))
def test_every_format_is_written_back_in_its_own_format(
    tmp_path: Path, fmt: str, mode: str
) -> None:
    """Each placeholder names a file holding exactly the original result; texts and calls
    untouched; the output reads back in the same format (``--append`` too where it exists)."""
    if mode == "append" and fmt not in ("claude-code", "codex"):
        pytest.skip("--append is for claude-code and codex")
    src = tmp_path / f"in-{fmt}.jsonl"
    shutil.copy(FORMAT_FILES[fmt], src)
    before = src.read_bytes()
    extra = ["--append"] if mode == "append" else []
    proc = compact(
        tmp_path, "run", src.name, "--strategy", "reduce", "--force", "-o", "out.jsonl", *extra,
        config={"reduction": {"clear_retention_suffix_limit": 0}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == before
    raw = (tmp_path / "out.jsonl").read_bytes()
    if mode == "append":
        assert raw.startswith(before)
    orig = read_transcript("in", before)
    out = read_transcript("out", raw)
    assert out.format == orig.format == fmt
    old_results, new_results = _results(orig.messages), _results(out.messages)
    assert old_results and [c for c, _ in old_results] == [c for c, _ in new_results]
    replaced = 0
    for (call, old), (_, new) in zip(old_results, new_results, strict=True):
        # a placeholder names the file twice at most (Codex: `cat PATH`), plus its words
        longest = 2 * len(f"{tmp_path}/out.offload/clear/{call}-123456789012") + 150
        if new == old and len(old) <= longest:
            continue  # kept: its placeholder would be longer than it
        assert new.startswith("<persisted-output>Tool result saved to: "), (call, new)
        assert len(new) < len(old)
        replaced += 1
        path = Path(new.split("saved to: ", 1)[1].split("\n", 1)[0])
        assert path.is_absolute() and path.parent == tmp_path / "out.offload" / "clear"
        assert path.read_text() == old
    # user and assistant texts as they were (Codex's re-injected context aside, which the
    # client writes anew after a compaction)
    assert set(_texts(out.messages)) <= set(_texts(orig.messages))
    assert len(out.messages) >= len(orig.messages) - 2


def test_claude_code_records_are_patched_in_place_with_usage_zeroed(tmp_path: Path) -> None:
    shutil.copy(SAMPLES / "claude-code-session.jsonl", tmp_path / "cc.jsonl")
    proc = compact(tmp_path, "run", "cc.jsonl", "--strategy", "reduce", "--force", "-o", "o.jsonl")
    assert proc.returncode == 0, proc.stderr
    old = [json.loads(x) for x in (tmp_path / "cc.jsonl").read_text().splitlines()]
    new = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [r.get("uuid") for r in old] == [r.get("uuid") for r in new]  # same session
    assert not any(r.get("subtype") == "compact_boundary" for r in new)
    for rec in new:
        usage = (rec.get("message") or {}).get("usage")
        if rec.get("type") == "assistant" and isinstance(usage, dict):
            assert usage.get("input_tokens", 0) == 0 and usage.get("output_tokens", 0) == 0
    assert sum("toolUseResult" in r for r in new) < sum("toolUseResult" in r for r in old) or (
        not any("toolUseResult" in r for r in old)
    )


def test_bad_input_orphans_parallel_calls_parts_and_reused_ids(tmp_path: Path) -> None:
    """An orphan result, two parallel calls, a result made of parts (text + image) and a call
    id used twice: every result outside the last round is cleared to its own file."""

    def call(cid: str) -> dict[str, Any]:
        return {"id": cid, "type": "function", "function": {"name": "sh", "arguments": "{}"}}

    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    recs: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "ghost", "content": "orphan output" + PAD},
        {"role": "assistant", "content": "", "tool_calls": [call("p1"), call("p2")]},
        {"role": "tool", "tool_call_id": "p1", "content": "parallel one" + PAD},
        {
            "role": "tool",
            "tool_call_id": "p2",
            "content": [{"type": "text", "text": "look" + PAD}, image],
        },
        {"role": "assistant", "content": "", "tool_calls": [call("dup")]},
        {"role": "tool", "tool_call_id": "dup", "content": "first dup" + PAD},
        {"role": "assistant", "content": "", "tool_calls": [call("dup")]},
        {"role": "tool", "tool_call_id": "dup", "content": "second dup" + PAD},
        {"role": "assistant", "content": "", "tool_calls": [call("last")]},
        {"role": "tool", "tool_call_id": "last", "content": "kept"},
    ]
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    proc = compact(
        tmp_path, "run", "b.jsonl", "--strategy", "reduce", "--force", "-o", "o.jsonl",
        "--report", "report.json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [r.get("tool_call_id") for r in out] == [r.get("tool_call_id") for r in recs]
    assert [r.get("tool_calls") for r in out] == [r.get("tool_calls") for r in recs]
    files = []
    for rec in out[:-1]:
        if rec["role"] == "tool":
            text = rec["content"]
            assert text.startswith("<persisted-output>Tool result saved to: ")
            files.append(Path(text.split("saved to: ", 1)[1].split("\n", 1)[0]))
    assert len(set(files)) == 5  # the reused id did not collide
    assert [f.read_text() for f in files[:2]] == ["orphan output" + PAD, "parallel one" + PAD]
    assert json.loads(files[2].read_text())[1]["type"] == "image_url"
    assert [f.read_text() for f in files[3:]] == ["first dup" + PAD, "second dup" + PAD]
    assert out[-1]["content"] == "kept"


def _placeholder_files(raw: bytes) -> list[tuple[str, Path]]:
    """(call id, file) of every offload placeholder in an openai-format output."""
    found = []
    for msg in chat(raw):
        if msg.role == "tool" and msg.content.startswith("<persisted-output>"):
            path = msg.content.split("saved to: ", 1)[1].split("\n", 1)[0]
            found.append((msg.tool_call_id or "", Path(path)))
    return found


def _check_offload_named(tmp: Path, originals: dict[str | None, str]) -> list[Path]:
    """Every placeholder of ``tmp/out.jsonl`` names an existing file holding exactly the
    original result, and every file in ``tmp/out.offload`` is named by the output; the files
    the tool results name."""
    raw = (tmp / "out.jsonl").read_bytes()
    named = _placeholder_files(raw)
    for call_id, path in named:
        assert path.read_text() == originals[call_id]
    on_disk = {p for p in (tmp / "out.offload").rglob("*") if p.is_file()}
    assert on_disk >= {path for _, path in named}
    for path in on_disk:
        assert str(path).encode() in raw, f"{path} is named by nothing"
    return [path for _, path in named]


def test_hybrid_removes_the_offload_files_of_the_summarized_rounds(
    tmp_path: Path, fake: Any
) -> None:
    """The rounds a hybrid run summarizes away were offloaded first: a summary that does not
    name their files (the fake model's) leaves them orphaned, so they are removed; the kept
    rounds' placeholders still name their files."""
    src = tmp_path / "s.jsonl"
    write_session(src, rounds=8, size=8_000, talk=600)
    originals = {m.tool_call_id: m.content for m in chat(src.read_bytes()) if m.role == "tool"}
    model = {"provider": "openai", "name": "m", "base_url": fake.base_url, "timeout": 5}
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "6000",
        "-o", "out.jsonl", "--report", "report.json",
        config={"model": model, "keep": {"messages": 6}}, OPENAI_API_KEY="sk-test",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)["reduction"]
    assert rep["summarized"] is True and rep["cleared"] == 7
    named = _check_offload_named(tmp_path, originals)
    assert 0 < len(named) < rep["cleared"]  # some rounds went into the summary
    assert rep["offload_removed"] == rep["cleared"] - len(named) > 0
    on_disk = {p for p in (tmp_path / "out.offload").rglob("*") if p.is_file()}
    assert on_disk == set(named)


def test_hybrid_summarizes_the_original_results_and_keeps_the_reduced_tail(
    tmp_path: Path,
) -> None:
    """The summarizer reads the summarized rounds as they were (an old round's error text, not
    "Tool result saved to: …"); the kept rounds stay as reduction left them; the summarized
    rounds' files are named by nothing, so they are removed, and nothing unnamed is left."""
    src = tmp_path / "s.jsonl"
    write_session(src, rounds=8, size=8_000, talk=600)
    recs = [json.loads(x) for x in src.read_text().splitlines()]
    error = "error: rustup: command not found (toolchain is not installed)"
    recs[3]["content"] = error + "\n" + "z" * 8_000  # round 0's result: a failure
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    originals = {m.tool_call_id: m.content for m in chat(src.read_bytes()) if m.role == "tool"}
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "hybrid", "--threshold", "6000", "--model",
        "local", "-o", "out.jsonl", "--report", "report.json",
        config={"keep": {"messages": 6}},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)["reduction"]
    assert rep["summarized"] is True and rep["cleared"] == 7
    out = chat((tmp_path / "out.jsonl").read_bytes())
    summary = next(m.content for m in out if m.role == "user" and "rustup" in (m.content or ""))
    assert error in summary
    assert "<persisted-output>" not in summary and "out.offload" not in summary
    kept = [m for m in out if m.role == "tool"]
    assert [m.tool_call_id for m in kept] == ["call_6", "call_7"]
    assert kept[0].content.startswith("<persisted-output>")  # reduced
    assert kept[1].content == originals["call_7"]  # the retained round
    named = _check_offload_named(tmp_path, originals)
    assert len(named) == 1 and rep["offload_removed"] == 6


def _codex_session(path: Path) -> None:
    """A Codex rollout: its developer instructions and injected context (which Codex writes
    anew after a compaction), then four shell rounds with long outputs."""

    def item(payload: dict[str, Any]) -> dict[str, Any]:
        return {
            "timestamp": "2026-03-02T10:00:00.000Z",
            "type": "response_item",
            "payload": payload,
        }

    def msg(role: str, text: str) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        return item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    meta = {"id": "0195f0aa-1111-7222-8333-944455556666", "cwd": "/w", "cli_version": "0.171.0"}
    recs: list[dict[str, Any]] = [
        {"timestamp": "2026-03-02T10:00:00.000Z", "type": "session_meta", "payload": meta},
        msg("developer", "<permissions instructions>\n" + "sandbox rule. " * 2_000),
        msg("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        msg("user", "fix the failing test"),
    ]
    for i in range(4):
        call = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": f"c{i}"}
        recs.append(item(call))
        out = f"output {i} " + "line of text\n" * 300
        recs.append(item({"type": "function_call_output", "call_id": f"c{i}", "output": out}))
    recs.append(msg("assistant", "done"))
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def test_codex_reduce_and_check_of_its_output_count_the_same(tmp_path: Path) -> None:
    """The written file holds the reduced history without the environment context Codex writes
    anew (the developer instructions kept, as Codex's own compaction keeps them: blind check 11),
    and a ``token_count`` of what Codex sends next; ``check`` on it counts what ``run``
    reported."""
    _codex_session(tmp_path / "s.jsonl")
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl",
        "--report", "report.json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rep = report(tmp_path)
    assert rep["reduction"]["cleared"] == 3
    after = rep["tokens_after"]
    assert after > 5_000  # the developer instructions count: they are in the history
    proc = compact(tmp_path, "check", "out.jsonl")
    assert proc.returncode == 0, proc.stderr
    assert f"{after:,} tokens (estimate)" in proc.stdout.decode()
    out = read_transcript("out.jsonl", (tmp_path / "out.jsonl").read_bytes())
    assert [m.role for m in out.messages].count("system") == 1  # kept once
    assert sum("<environment_context>" in str(m) for m in out.messages) == 1  # (blind check 29)

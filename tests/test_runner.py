"""compactor.runs.runner: the library runs a file exactly as ``compact run`` does."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import compactor as c
from compactor.cli.app import app
from compactor.models.scripted import ScriptedModel
from compactor.runs.runner import Run, RunOptions, arun_file, plan, run_file

REPO = Path(__file__).resolve().parents[1]
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"
NOTE = "/transcripts/session.jsonl"


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in ("duration_s", "written", "output")}


@pytest.mark.parametrize("force", [True, False])
def test_the_library_compacts_a_file_exactly_as_the_cli(tmp_path: Path, force: bool) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    flags = ["--force"] if force else []
    cli_out, cli_rep = tmp_path / "cli.jsonl", tmp_path / "cli.json"
    args = ["run", str(src), "--model", "local", "--transcript-path", NOTE, *flags]
    result = CliRunner().invoke(app, [*args, "-o", str(cli_out), "--report", str(cli_rep)])
    assert result.exit_code == 0, result.output

    lib_out, lib_rep = tmp_path / "lib.jsonl", tmp_path / "lib.json"
    options = RunOptions(
        input=str(src),
        output=str(lib_out),
        report=str(lib_rep),
        model="local",
        transcript_path=NOTE,
        force=force,
    )
    outcome = run_file(options)
    assert outcome.exit_code == 0 and outcome.error is None
    assert lib_out.read_bytes() == cli_out.read_bytes()
    assert outcome.triggered is force
    cli_report, lib_report = json.loads(cli_rep.read_text()), json.loads(lib_rep.read_text())
    assert _comparable(lib_report) == _comparable(cli_report)
    assert outcome.report()["messages_after"] == lib_report["messages_after"]
    assert outcome.written == {"output": str(lib_out), "report": str(lib_rep)}


def test_public_names() -> None:
    assert c.RunOptions is RunOptions and c.run_file is run_file and c.arun_file is arun_file


@pytest.mark.anyio
async def test_arun_file_in_a_running_loop_with_a_sink(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    seen: list[str] = []
    result = await arun_file(
        RunOptions(input=str(src), force=True, model="local"),
        sink=lambda event: seen.append(event.type),
    )
    assert result.exit_code == 0
    assert seen[:2] == ["transcript_read", "trigger_checked"]
    assert seen[-1] == "run_finished"
    assert (tmp_path / "s.compact.jsonl").exists()


def test_a_refused_plan_is_a_result_with_exit_2_and_nothing_written(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    result = run_file(RunOptions(input=str(src), output=str(tmp_path / "nodir" / "o.jsonl")))
    assert result.exit_code == 2
    assert result.error is not None and "does not exist" in result.error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_plan_attempts_follow_the_config(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("retry: {max_retries: 2}\nfailover: {max_retries: 5, models: []}\n")
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    assert plan(RunOptions(input=str(src), config=str(cfg))).attempts == (3, 5)
    assert plan(RunOptions(input=str(src))).attempts == (3, 0)  # the CLI default: 2 retries


# -- rule 1: one file, one role --------------------------------------------------------------------


@pytest.fixture
def src(tmp_path: Path) -> Path:
    p = tmp_path / "s.jsonl"
    shutil.copy(CODING, p)
    return p


def _only(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_an_output_that_is_the_input_through_a_link_is_refused(src: Path, how: str) -> None:
    link = src.with_name("link.jsonl")
    if how == "symlink":
        link.symlink_to(src.name)
    else:
        os.link(src, link)
    before = src.read_bytes()
    result = run_file(RunOptions(input=str(src), output=str(link), force=True, model="local"))
    assert result.exit_code == 2
    assert "is the input; use RunOptions.in_place" in (result.error or "")
    assert src.read_bytes() == before
    assert link.is_symlink() == (how == "symlink")


@pytest.mark.parametrize("flag", ["report", "events"])
def test_a_report_or_events_path_equal_to_the_input_is_refused_before_any_work(
    src: Path, flag: str, tmp_path: Path
) -> None:
    # The model would fail (dead loopback port: exit 3); the plan refuses before it is asked.
    before = src.read_bytes()
    options = RunOptions(input=str(src), force=True, model="openai:gpt-x")
    options = dataclasses.replace(options, report=str(src)) if flag == "report" else options
    options = dataclasses.replace(options, events=str(src)) if flag == "events" else options
    result = run_file(options)
    assert result.exit_code == 2
    assert f"RunOptions.{flag} '{src}' is the input file" in (result.error or "")
    assert src.read_bytes() == before
    assert _only(tmp_path) == ["s.jsonl"]


@pytest.mark.parametrize(
    ("output", "report", "events", "says"),
    [
        # the library names RunOptions fields where `compact run` names its flags (issue 32)
        (
            "out.jsonl",
            "out.jsonl",
            None,
            "report 'out.jsonl' is the same file as RunOptions.output",
        ),
        ("out.jsonl", "r.json", "r-link.json", "RunOptions.events 'r-link.json' is the same file"),
        ("out.jsonl", "r.json", "r-hard.json", "RunOptions.events 'r-hard.json' is the same file"),
        ("-", "-", None, "RunOptions.report - writes to stdout, where the transcript goes"),
    ],
)
def test_two_destinations_that_are_one_file_are_refused(
    src: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    output: str,
    report: str,
    events: str | None,
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.json").write_text("old report")
    (tmp_path / "r-link.json").symlink_to("r.json")
    os.link(tmp_path / "r.json", tmp_path / "r-hard.json")
    options = RunOptions(
        input=str(src), output=output, report=report, events=events, force=True, model="local"
    )
    result = run_file(options)
    assert result.exit_code == 2
    assert says in (result.error or "")
    assert (tmp_path / "r.json").read_text() == "old report"
    assert not (tmp_path / "out.jsonl").exists()


def test_character_devices_may_take_several_destinations(src: Path) -> None:
    options = RunOptions(
        input=str(src), output="/dev/null", report="/dev/null", events="/dev/null", model="local"
    )
    result = run_file(options)
    assert result.exit_code == 0, result.error
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# -- rule 2: every folder exists and is writable before any work -----------------------------------


@pytest.mark.parametrize("in_place", [True, False])
def test_a_missing_report_folder_is_exit_2_and_nothing_is_written(
    src: Path, tmp_path: Path, in_place: bool
) -> None:
    # The case: the transcript was written (or the input replaced), then exit 2.
    before = src.read_bytes()
    data_home = Path(os.environ["XDG_DATA_HOME"])
    archived = sorted(data_home.rglob("*.jsonl"))
    options = RunOptions(
        input=str(src),
        in_place=in_place,
        report=str(tmp_path / "nodir" / "r.json"),
        force=True,
        model="local",
    )
    result = run_file(options)
    assert result.exit_code == 2
    assert "folder" in (result.error or "") and "does not exist" in (result.error or "")
    assert src.read_bytes() == before
    assert _only(tmp_path) == ["s.jsonl"]
    assert sorted(data_home.rglob("*.jsonl")) == archived  # nothing archived either


# -- rule 3: files are replaced atomically, streams are streamed, every write checked --------------


def test_in_place_keeps_a_0600_input_0600_and_its_owner(src: Path) -> None:
    os.chmod(src, 0o600)
    if os.geteuid() == 0:
        os.chown(src, 65534, 65534)
    result = run_file(RunOptions(input=str(src), in_place=True, force=True, model="local"))
    assert result.exit_code == 0, result.error
    st = src.stat()
    assert stat.S_IMODE(st.st_mode) == 0o600
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (65534, 65534)


def test_a_new_output_is_never_more_readable_than_its_input(src: Path, tmp_path: Path) -> None:
    os.chmod(src, 0o600)
    result = run_file(RunOptions(input=str(src), force=True, model="local"))
    assert result.exit_code == 0, result.error
    assert stat.S_IMODE((tmp_path / "s.compact.jsonl").stat().st_mode) == 0o600


def test_in_place_on_a_symlink_compacts_its_target_and_keeps_the_link(
    src: Path, tmp_path: Path
) -> None:
    link = tmp_path / "session.jsonl"
    link.symlink_to(src.name)
    before = src.read_bytes()
    result = run_file(RunOptions(input=str(link), in_place=True, force=True, model="local"))
    assert result.exit_code == 0, result.error
    assert link.is_symlink()
    assert src.read_bytes() != before
    assert result.archive is not None and Path(result.archive).read_bytes() == before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_is_exit_6_and_the_report_says_the_output_was_not_written(
    src: Path, tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    options = RunOptions(
        input=str(src), output="/dev/full", report=str(report), force=True, model="local"
    )
    result = run_file(options)
    assert result.exit_code == 6
    assert "failed to write /dev/full completely: No space left on device" in (result.error or "")
    rep = json.loads(report.read_text())
    assert rep["exit_code"] == 6 and rep["not_written"] == {"output": "/dev/full"}
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_report_to_dev_full_after_a_good_output_is_exit_6(src: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    result = run_file(RunOptions(input=str(src), output=str(out), report="/dev/full"))
    assert result.exit_code == 6
    assert result.error == "failed to write /dev/full completely: No space left on device"
    assert result.written == {"output": str(out)}
    assert result.not_written == {"report": "/dev/full"}


# -- rule 4: --in-place archives first, holds a lock, and never replaces a changed input -----------


def test_in_place_archives_under_xdg_data_home_first(src: Path) -> None:
    before = src.read_bytes()
    result = run_file(RunOptions(input=str(src), in_place=True, force=True, model="local"))
    assert result.exit_code == 0, result.error
    archive = Path(os.environ["XDG_DATA_HOME"]) / "compact" / "archive"
    assert result.archive is not None and Path(result.archive).parent == archive
    assert Path(result.archive).read_bytes() == before
    assert stat.S_IMODE(archive.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(result.archive).stat().st_mode) == 0o600
    assert result.report()["archive"] == result.archive
    assert list(result.written) == ["archive", "output"]  # the archive first


def test_in_place_on_a_locked_input_is_exit_5(src: Path) -> None:
    import fcntl

    before = src.read_bytes()
    fd = os.open(src, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        result = run_file(RunOptions(input=str(src), in_place=True, force=True, model="local"))
    finally:
        os.close(fd)
    assert result.exit_code == 5
    assert "holds its lock" in (result.error or "")
    assert src.read_bytes() == before


class _AppendingModel(ScriptedModel):
    """A summarizer during whose call the agent appends to its session file."""

    def __init__(self, path: Path) -> None:
        super().__init__(["<summary>the summary</summary>"], name="appending")
        self.path = path

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        with self.path.open("ab") as fh:
            fh.write(b'{"role": "user", "content": "written while compact waited"}\n')
        return await super().generate(messages, **options)


def test_in_place_never_replaces_an_input_that_changed_during_the_run(
    src: Path, tmp_path: Path
) -> None:
    # The case: lines an agent appended while --in-place waited for the model were in
    # neither the result nor the archive. Now the input is left as it is (exit 5).
    before = src.read_bytes()
    report = tmp_path / "r.json"
    planned = plan(RunOptions(input=str(src), in_place=True, force=True, report=str(report)))
    result = asyncio.run(Run(planned, model=_AppendingModel(src)).execute())
    assert result.exit_code == 5
    assert "the input changed during the run (its size went from" in (result.error or "")
    after = src.read_bytes()
    assert after.startswith(before) and after.endswith(b'written while compact waited"}\n')
    assert result.archive is not None and Path(result.archive).read_bytes() == before
    assert result.not_written == {"output": str(src)}
    assert _only(tmp_path) == ["r.json", "s.jsonl"]  # no temp file left
    assert json.loads(report.read_text())["exit_code"] == 5


class _RewritingModel(ScriptedModel):
    """A summarizer during whose call another program edits the session file: ``rewrite``
    (the same inode, changed bytes) or appends to it."""

    def __init__(self, path: Path, rewrite: bool) -> None:
        super().__init__(["<summary>the summary</summary>"], name="rewriting")
        self.path, self.rewrite = path, rewrite

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        if self.rewrite:
            data = self.path.read_bytes()
            self.path.write_bytes(data.replace(b"coding agent", b"CODING AGENT", 1))
        else:
            with self.path.open("ab") as fh:
                fh.write(b'{"role": "user", "content": "written while compact waited"}\n')
        return await super().generate(messages, **options)


@pytest.mark.parametrize("rewrite", [True, False])
def test_a_run_never_mixes_the_input_it_read_with_a_changed_one(
    src: Path, tmp_path: Path, rewrite: bool
) -> None:
    # The run parses the input as it reads it and reads the kept lines (here the system
    # message) again when it writes: a file rewritten meanwhile is exit 5 with nothing written;
    # lines appended meanwhile are simply not part of this compaction.
    before = src.read_bytes()
    out = tmp_path / "out.jsonl"
    planned = plan(RunOptions(input=str(src), output=str(out), force=True))
    result = asyncio.run(Run(planned, model=_RewritingModel(src, rewrite)).execute())
    if rewrite:
        assert result.exit_code == 5
        assert "changed during the run (a line read again differs)" in (result.error or "")
        assert not out.exists() and result.written == {}
    else:
        assert result.exit_code == 0, result.error
        first = before.split(b"\n", 1)[0]
        assert out.read_bytes().startswith(first + b"\n")
        assert b"written while compact waited" not in out.read_bytes()
    assert _only(tmp_path) == sorted(["s.jsonl", *(["out.jsonl"] if not rewrite else [])])


def test_in_place_on_a_file_inside_the_archive_is_refused(src: Path) -> None:
    first = run_file(RunOptions(input=str(src), in_place=True, force=True, model="local"))
    assert first.archive is not None
    archived = Path(first.archive)
    before = archived.read_bytes()
    again = run_file(RunOptions(input=str(archived), in_place=True, force=True, model="local"))
    assert again.exit_code == 2
    assert "inside the archive folder" in (again.error or "")
    assert archived.read_bytes() == before


# -- rule 6: a report and events for every outcome after the plan ----------------------------------


@pytest.mark.parametrize(
    ("case", "code"),
    [("malformed", 2), ("summarizer_fails", 3), ("loop_guard", 4)],
)
def test_report_and_events_are_written_for_failures_too(
    tmp_path: Path, case: str, code: int
) -> None:
    src = tmp_path / "s.jsonl"
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\n")
    if case == "malformed":
        src.write_text('{"role": "user", "content": "hi"}\n{not json\n')
    else:
        shutil.copy(CODING, src)
    if case == "loop_guard":
        cfg.write_text("model: {provider: local}\ntrigger: {context_tokens: 500}\n")
    model = "openai:gpt-x" if case == "summarizer_fails" else None  # a dead loopback port
    report, events = tmp_path / "r.json", tmp_path / "e.jsonl"
    options = RunOptions(
        input=str(src),
        config=str(cfg),
        model=model,
        force=case != "loop_guard",
        report=str(report),
        events=str(events),
    )
    result = run_file(options)
    assert result.exit_code == code, result.error
    rep = json.loads(report.read_text())
    assert rep["exit_code"] == code and rep["error"] == result.error
    assert rep["written"] == {"events": str(events)} and rep["not_written"] == {}
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert lines[-1]["type"] == "run_finished" and lines[-1]["exit_code"] == code
    assert lines[-1]["written"] == {}
    assert not (tmp_path / "s.compact.jsonl").exists()


def test_report_to_stdout_and_events_to_stderr(
    src: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o.jsonl"
    options = RunOptions(
        input=str(src), output=str(out), report="-", events="-", force=True, model="local"
    )
    result = run_file(options)
    assert result.exit_code == 0, result.error
    captured = capfd.readouterr()
    assert json.loads(captured.out)["written"] == {"output": str(out), "events": "<stderr>"}
    types = [json.loads(line)["type"] for line in captured.err.splitlines()]
    assert types[0] == "transcript_read" and types[-1] == "run_finished"


# -- issue 22 ---------------------------------------------------------------------------------


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_fraction_trigger_sets_the_user_message_budget(tmp_path: Path) -> None:
    """A 30k window at 80 % (a 24,000-token threshold): the user-message budget is 8,000
    tokens, not 160,000 // 3, so four 40k-character user messages do not survive whole and the
    result passes the loop guard."""
    records: list[dict[str, Any]] = []
    for i in range(4):
        records.append({"role": "user", "content": f"request {i} " + "x" * 40_000})
        records.append({"role": "assistant", "content": f"done with request {i}"})
    src = _write_jsonl(tmp_path / "s.jsonl", records)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: local}\ntrigger: {context_fraction: 0.8, window_tokens: 30000}\n",
        encoding="utf-8",
    )
    result = run_file(RunOptions(input=str(src), config=str(cfg), report=str(tmp_path / "r.json")))
    assert result.exit_code == 0, result.error
    assert result.triggered and result.tokens_before is not None
    assert result.tokens_after is not None and result.tokens_after < result.tokens_before / 2
    out = (tmp_path / "s.compact.jsonl").read_text("utf-8")
    assert "characters truncated" in out  # the newest one did not fit 8,000 tokens: cut
    from compactor.configfile import build_config, load_config_file
    from compactor.pipeline.middleware import new

    built = build_config(load_config_file(cfg), model=ScriptedModel([]))
    assert new(built).user_budget(c.PreserveUserMessages()) == 24_000 // 3


SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"  # 62 tokens


@pytest.mark.parametrize(
    ("loop_guard", "code"),
    [
        (None, 4),  # the default: at most 2× the input
        ("loop_guard: {max_growth: 3}", 4),
        ("loop_guard: {max_growth: 10}", 0),
        ("loop_guard: {max_growth: false}", 0),
        ("loop_guard: false", 0),  # turns the whole guard off
        ("loop_guard: {max_ratio: 0.4}", 4),  # another ratio keeps the growth default
    ],
)
def test_a_forced_run_may_not_blow_a_transcript_up(
    tmp_path: Path, loop_guard: str | None, code: int
) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(SMALL, src)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"model: {{provider: local}}\n{loop_guard or ''}\n", encoding="utf-8")
    report = tmp_path / "r.json"
    result = run_file(RunOptions(input=str(src), config=str(cfg), force=True, report=str(report)))
    assert result.exit_code == code, result.error
    out = tmp_path / "s.compact.jsonl"
    if code == 4:
        assert result.error is not None
        assert result.error.startswith("loop guard: the compacted history has ")
        assert "a compaction may grow a transcript at most" in result.error
        assert not out.exists() and "output" not in result.written
        guard = json.loads(report.read_text())
        assert guard["tokens_before"] == 62
    else:
        assert out.exists()
        assert result.tokens_after is not None and result.tokens_after > 2 * 62


def test_the_growth_guard_in_the_library() -> None:
    history = c.AgentState([c.Message("user", "hi"), c.Message("assistant", "hello")])
    long_reply = "<summary>\n" + "detail " * 40 + "\n</summary>"
    grown = c.Config(model=ScriptedModel([long_reply]), max_growth=2.0)
    with pytest.raises(c.LoopGuardError) as caught:
        asyncio.run(c.new(grown).summarize(history))
    err = caught.value
    assert (err.max_growth, err.max_ratio) == (2.0, None)
    assert err.tokens_after > 2 * err.tokens_before
    fine = c.Config(model=ScriptedModel([long_reply]), max_growth=1000.0)
    assert asyncio.run(c.new(fine).summarize(history))
    for bad in (0, -1, True, float("inf"), "2"):
        with pytest.raises(c.ConfigError, match="max_growth must be a positive number"):
            c.new(c.Config(model=ScriptedModel([]), max_growth=bad))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "src",
    [
        REPO / "sample_transcripts" / "claude-code-session.jsonl",
        REPO / "tests" / "fixtures" / "formats" / "codex.jsonl",
    ],
    ids=["claude-code", "codex"],
)
def test_added_records_take_source_date_epoch_else_the_inputs_newest_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, src: Path
) -> None:
    def added_times(out: Path) -> set[str]:
        new = out.read_bytes()[len(src.read_bytes()) :]  # --append: the input, then ours
        return {json.loads(line)["timestamp"] for line in new.splitlines() if line.strip()}

    newest = max(
        json.loads(line)["timestamp"]
        for line in src.read_text("utf-8").splitlines()
        if '"timestamp"' in line
    )
    base = RunOptions(input=str(src), force=True, append=True, model="local")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    plain = tmp_path / "plain.jsonl"
    assert run_file(dataclasses.replace(base, output=str(plain))).exit_code == 0
    assert added_times(plain) == {newest}

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pinned = tmp_path / "pinned.jsonl"
    assert run_file(dataclasses.replace(base, output=str(pinned))).exit_code == 0
    assert added_times(pinned) == {"2023-11-14T22:13:20.000Z"}

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    bad = tmp_path / "bad.jsonl"
    result = run_file(dataclasses.replace(base, output=str(bad)))
    assert result.exit_code == 2 and not bad.exists()
    assert result.error == (
        "SOURCE_DATE_EPOCH must be a non-negative integer (seconds since 1970), got 'yesterday'"
    )


def test_a_run_copies_no_message_of_the_history_and_holds_no_line_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: the run reads the transcript once (its lines keep spans, not bytes) and hands
    the embedded summarizer, masking and finalize the parsed messages themselves: the only
    messages deep-copied are the few the new history is made of."""
    from compactor.formats import _jsonl
    from compactor.schema import Message

    records: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    for i in range(400):
        records.append({"role": "user", "content": f"step {i}: run the tests in src/m{i}.py"})
        records.append(
            {
                "role": "assistant",
                "content": f"I fixed src/m{i}.py.",
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command": "pytest -q"}'},
                    }
                ],
            }
        )
        records.append({"role": "tool", "tool_call_id": f"c{i}", "content": "3 passed"})
    src = tmp_path / "big.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))

    copied: list[Message] = []
    real = Message.__deepcopy__

    def counting(self: Message, memo: dict[int, Any]) -> Message:
        copied.append(self)
        copy = real(self, memo)
        assert isinstance(copy, Message)
        return copy

    monkeypatch.setattr(Message, "__deepcopy__", counting)
    sources: list[Any] = []
    parse = _jsonl.parse_lines

    def recorded(path: str, raw: Any, *rest: Any) -> Any:  # rest: the reader's `each`
        sources.append(raw)
        return parse(path, raw, *rest)

    monkeypatch.setattr(_jsonl, "parse_lines", recorded)
    result = run_file(
        RunOptions(input=str(src), output=str(tmp_path / "out.jsonl"), force=True, model="local")
    )
    assert result.exit_code == 0, result.error
    assert len(copied) <= 6, f"{len(copied)} messages deep-copied"
    # parsed as it was read (a FileSource); in bytes only the head format detection looks at
    from compactor.io import FileSource

    assert [type(raw) for raw in sources] == [bytes, FileSource]
    assert len(sources[0]) < src.stat().st_size // 10

"""compactor.pipeline.cache: the summary cache (issue 22 point 5) and what it promises end to end.

The last tests are the issue's "done when": two runs of ``compact run`` on the same transcript
with a remote model (the loopback fake) make ONE request and write the same bytes, for every
format, shrink and ``--append``; a third run without the cache writes them again.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import compactor as c
from compactor.cli.app import app
from compactor.configfile import Overrides, build_config, parse_config_text
from compactor.models.openai import OpenAIModel
from compactor.models.scripted import ScriptedModel
from compactor.pipeline.cache import (
    MAX_ENTRY_BYTES,
    SummaryCache,
    cache_key,
    default_cache_dir,
    model_endpoint,
)
from compactor.testing.fake_openai import FakeOpenAI, reply, status

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-test-PLANTED-cache-0001"
INPUT = [c.Message("system", "summarize"), c.Message("user", "x"), c.Message("user", "go")]


def _reply(text: str = "<summary>\nkept\n</summary>") -> c.Message:
    return c.Message("assistant", text, usage=c.Usage(10, 5, 15))


# -- the key --------------------------------------------------------------------------------------


def test_the_key_covers_endpoint_model_options_and_input() -> None:
    base = cache_key("m", {}, INPUT, "http://a/v1")
    assert base == cache_key("m", {}, list(INPUT), "http://a/v1")
    assert base != cache_key("m", {}, INPUT, "http://b/v1")  # two servers never share
    assert base != cache_key("m", {}, INPUT, None)
    assert base != cache_key("m2", {}, INPUT, "http://a/v1")
    assert base != cache_key("m", {"temperature": 0}, INPUT, "http://a/v1")
    other_instruction = [c.Message("system", "summarize briefly"), *INPUT[1:]]
    assert base != cache_key("m", {}, other_instruction, "http://a/v1")


def test_the_openai_models_endpoint_is_its_base_url_without_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert OpenAIModel("m").endpoint == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/")
    assert OpenAIModel("m").endpoint == "http://127.0.0.1:8080/v1"
    assert OpenAIModel("m", base_url="http://u:pw-secret-1234@h/v1").endpoint == "http://***@h/v1"
    assert model_endpoint(ScriptedModel([])) is None  # in-process: no endpoint


def test_the_default_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "compact" / "summaries"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "compact" / "summaries"


# -- entries --------------------------------------------------------------------------------------


def test_entries_are_private_atomic_and_secrets_free(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        cache = SummaryCache(tmp_path / "cache")
        key = cache_key("openai:m", {}, INPUT, "http://h/v1")
        cache.put(key, "openai:m", _reply())
    finally:
        os.umask(old)
    path = cache.path(key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for folder in (tmp_path / "cache", path.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left
    doc = json.loads(path.read_text("utf-8"))
    assert set(doc) == {"version", "key", "model", "text", "sha256", "usage"}
    assert "http://h" not in path.read_text("utf-8")  # the endpoint is only in the hash
    hit = cache.get(key, c.Message)
    assert (
        isinstance(hit, c.Message)
        and hit.content == _reply().content
        and hit.usage == _reply().usage
    )
    assert (cache.hits, cache.misses, cache.stores, cache.errors) == (1, 0, 1, 0)


def _damage(cache: SummaryCache, key: str, how: str) -> None:
    path = cache.path(key)
    doc = json.loads(path.read_text("utf-8"))
    if how == "truncated":
        path.write_bytes(path.read_bytes()[:40])
    elif how == "flipped text":
        doc["text"] = doc["text"].replace("kept", "kapt")
        path.write_text(json.dumps(doc), "utf-8")
    elif how == "another key":
        doc["key"] = "0" * 64
        path.write_text(json.dumps(doc), "utf-8")
    elif how == "old version":
        doc["version"] = 1
        path.write_text(json.dumps(doc), "utf-8")
    elif how == "bad usage":
        doc["usage"] = {"prompt_tokens": -1, "completion_tokens": "x", "total_tokens": 0}
        path.write_text(json.dumps(doc), "utf-8")
    elif how == "not an object":
        path.write_text("[1, 2, 3]", "utf-8")
    elif how == "not utf-8":
        path.write_bytes(b"\xff\xfe{")
    elif how == "symlink":
        target = path.with_name("elsewhere.json")
        path.rename(target)
        path.symlink_to(target)
    elif how == "fifo":
        path.unlink()
        os.mkfifo(path)  # a plain open() would block here forever
    elif how == "huge":
        with path.open("r+b") as fh:
            fh.truncate(MAX_ENTRY_BYTES + 1)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "truncated",
        "flipped text",
        "another key",
        "old version",
        "bad usage",
        "not an object",
        "not utf-8",
        "symlink",
        "fifo",
        "huge",
    ],
)
def test_a_damaged_entry_is_a_miss_and_the_next_store_repairs_it(tmp_path: Path, how: str) -> None:
    cache = SummaryCache(tmp_path)
    key = cache_key("m", {}, INPUT)
    cache.put(key, "m", _reply())
    _damage(cache, key, how)
    assert cache.get(key, c.Message) is None
    assert cache.misses == 1
    if how in ("symlink", "fifo"):
        cache.path(key).unlink()
    cache.put(key, "m", _reply())
    assert cache.get(key, c.Message) is not None


def test_nothing_but_assistant_text_is_stored(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path)
    key = cache_key("m", {}, INPUT)
    for reply_ in (c.Message("assistant", ""), c.Message("user", "x"), None, "text"):
        cache.put(key, "m", reply_)
    assert cache.stores == 0 and not list(tmp_path.rglob("*.json"))


def test_a_cache_that_cannot_be_written_never_fails_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    cache = SummaryCache(blocker)
    model = ScriptedModel([_reply().content])
    out = c.new(c.Config(model=model, cache=cache))
    history = c.AgentState([c.Message("user", "hello " * 50), c.Message("assistant", "hi")])
    import asyncio

    assert asyncio.run(out.summarize(history))
    assert (cache.stores, cache.errors) == (0, 1)


def test_concurrent_writers_of_one_entry_never_show_half_an_entry(tmp_path: Path) -> None:
    """Eight writers store different replies under one key while a reader reads it: every
    read is a complete entry of one of them (or a miss before the first store)."""
    key = cache_key("m", {}, INPUT)
    texts = {f"<summary>writer {i} " + "x" * (5000 * (i + 1)) + "</summary>" for i in range(8)}
    stop = threading.Event()
    seen: list[str | None] = []

    def write(text: str) -> None:
        cache = SummaryCache(tmp_path)  # one per writer, as separate runs would have
        for _ in range(40):
            cache.put(key, "m", c.Message("assistant", text))

    def read() -> None:
        cache = SummaryCache(tmp_path)
        while not stop.is_set():
            got = cache.get(key, c.Message)
            assert got is None or isinstance(got, c.Message)
            seen.append(None if got is None else got.content)

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(t,)) for t in sorted(texts)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    first = next(i for i, s in enumerate([*seen, "end"]) if s is not None)
    assert all(s in texts for s in seen[first:])
    assert SummaryCache(tmp_path).get(key, c.Message).content in texts  # type: ignore[union-attr]
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_clear_removes_the_caches_own_files_only(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path / "c")
    keys = [cache_key("m", {}, [c.Message("user", str(i))]) for i in range(3)]
    for key in keys:
        cache.put(key, "m", _reply())
    (tmp_path / "c" / "notes.txt").write_text("mine")
    stray = cache.path(keys[0]).parent / "keep-me.json"
    stray.write_text("{}")
    leftover = cache.path(keys[1]).parent / ".abc.tmp"
    leftover.write_text("half")
    info = cache.stats()
    assert (info.exists, info.entries, info.temp_files) == (True, 3, 1)
    assert info.bytes == sum(cache.path(k).stat().st_size for k in keys)
    old = cache.path(keys[2])
    os.utime(old, (1_000_000, 1_000_000))  # cached in 1970
    assert cache.clear(older_than=86_400).entries == 1 and not old.exists()
    info = cache.stats()
    removed = cache.clear()
    assert (removed.entries, removed.temp_files, removed.bytes) == (2, 1, info.bytes)
    assert (tmp_path / "c" / "notes.txt").exists() and stray.exists()
    assert not leftover.exists() and cache.stats().entries == 0
    assert SummaryCache(tmp_path / "missing").stats().exists is False


# -- when it is on --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yaml_text", "flag", "on"),
    [
        ("model: {provider: openai, name: m}\n", None, True),  # remote: on by default
        ("model: {provider: local}\n", None, False),  # local: nothing to save
        ("model: {provider: openai, name: m}\ncache: false\n", None, False),
        ("model: {provider: openai, name: m}\n", False, False),  # --no-cache
        ("model: {provider: local}\n", True, True),  # --cache
        ("model: {provider: local}\ncache: {dir: sub}\n", None, True),  # a section turns it on
        (
            "model: {provider: local}\nfailover: {models: [{provider: openai, name: b}]}\n",
            None,
            True,
        ),
    ],
)
def test_the_cache_is_on_by_default_for_remote_models(
    tmp_path: Path, yaml_text: str, flag: bool | None, on: bool
) -> None:
    file_cfg = parse_config_text(yaml_text, path=str(tmp_path / "c.yaml"))
    cfg = build_config(file_cfg, Overrides(cache=flag), model=ScriptedModel([]))
    assert (cfg.cache is not None) is on
    if on:
        expected = tmp_path / "sub" if "dir: sub" in yaml_text else default_cache_dir()
        assert cfg.cache is not None and cfg.cache.directory == expected


# -- end to end: two runs, one request, the same bytes ---------------------------------------------

FORMATS = [
    ("openai", REPO / "sample_transcripts" / "coding-session.jsonl", False),
    ("eino", REPO / "tests" / "fixtures" / "formats" / "eino.jsonl", False),
    ("anthropic", REPO / "tests" / "fixtures" / "formats" / "anthropic.jsonl", False),
    ("claude-code", REPO / "sample_transcripts" / "claude-code-session.jsonl", False),
    ("claude-code", REPO / "sample_transcripts" / "claude-code-session.jsonl", True),
    ("codex", REPO / "tests" / "fixtures" / "formats" / "codex.jsonl", False),
    ("codex", REPO / "tests" / "fixtures" / "formats" / "codex.jsonl", True),
]


@pytest.fixture
def remote_env(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    return fake


def _run(src: Path, out: Path, *flags: str) -> Any:
    args = ["run", str(src), "--model", "openai:gpt-4o-mini", "--force", "-o", str(out)]
    args += ["--report", str(out.with_suffix(".report.json")), "-q", *flags]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(out.with_suffix(".report.json").read_text("utf-8"))


@pytest.mark.parametrize(
    ("fmt", "src", "append"), FORMATS, ids=[f"{f}{'-append' if a else ''}" for f, _, a in FORMATS]
)
def test_two_runs_make_one_request_and_write_the_same_bytes(
    tmp_path: Path, remote_env: FakeOpenAI, fmt: str, src: Path, append: bool
) -> None:
    fake = remote_env
    fake.enqueue(reply("<summary>\nThe user asked for a fix; it is done.\n</summary>"))
    flags = ["--append"] if append else []
    first = _run(src, tmp_path / "1.jsonl", *flags)
    assert first["format"] == fmt and first["cache"]["stores"] == 1
    assert len(fake.requests) == 1
    fake.default = status(500)  # any second request would fail the run
    second = _run(src, tmp_path / "2.jsonl", *flags)
    assert len(fake.requests) == 1, "the second run asked the server again"
    assert second["cache"]["hits"] == 1
    assert (tmp_path / "2.jsonl").read_bytes() == (tmp_path / "1.jsonl").read_bytes()
    # Without the cache, the same reply gives the same bytes again: nothing comes from the clock.
    fake.enqueue(reply("<summary>\nThe user asked for a fix; it is done.\n</summary>"))
    _run(src, tmp_path / "3.jsonl", "--no-cache", *flags)
    assert len(fake.requests) == 2
    assert (tmp_path / "3.jsonl").read_bytes() == (tmp_path / "1.jsonl").read_bytes()
    entries = list(Path(os.environ["XDG_CACHE_HOME"]).rglob("*.json"))
    assert len(entries) == 1 and KEY not in entries[0].read_text("utf-8")


def test_two_servers_never_share_an_entry(tmp_path: Path, remote_env: FakeOpenAI) -> None:
    src = REPO / "sample_transcripts" / "coding-session.jsonl"
    _run(src, tmp_path / "1.jsonl")
    with FakeOpenAI() as other:
        os.environ["OPENAI_BASE_URL"] = other.base_url  # restored by monkeypatch
        _run(src, tmp_path / "2.jsonl")
        assert len(other.requests) == 1
    assert len(remote_env.requests) == 1


def test_cache_info_and_clear(tmp_path: Path, remote_env: FakeOpenAI) -> None:
    _run(REPO / "sample_transcripts" / "coding-session.jsonl", tmp_path / "1.jsonl")
    folder = default_cache_dir()
    info = CliRunner().invoke(app, ["cache", "info"])
    assert info.exit_code == 0, info.output
    assert info.stdout.startswith("1 cached summary file, ") and str(folder) in info.stdout
    data = json.loads(CliRunner().invoke(app, ["cache", "info", "--json"]).stdout)
    assert (data["directory"], data["entries"], data["exists"]) == (str(folder), 1, True)
    young = CliRunner().invoke(app, ["cache", "clear", "--older-than", "1h"])
    assert young.exit_code == 0 and young.stdout.startswith("removed 0 cached summary files")
    bad = CliRunner().invoke(app, ["cache", "clear", "--older-than", "soon"])
    assert bad.exit_code == 2 and "--older-than 'soon'" in bad.output
    cleared = CliRunner().invoke(app, ["cache", "clear"])
    assert cleared.exit_code == 0
    assert cleared.stdout.startswith("removed 1 cached summary file (")
    assert not list(folder.rglob("*.json"))
    cfg = tmp_path / "c.yaml"
    cfg.write_text("cache: {dir: mine}\n")
    data = json.loads(CliRunner().invoke(app, ["cache", "info", "-c", str(cfg), "--json"]).stdout)
    assert data["directory"] == str(tmp_path / "mine") and data["exists"] is False


# -- issue 27 point 6: a hit is checked like a fresh reply ----------------------------------------


def test_an_entry_of_another_model_is_a_miss(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path)
    key = cache_key("openai:m", {}, INPUT)
    cache.put(key, "openai:m", _reply())
    assert cache.get(key, c.Message, "openai:m") is not None
    doc = json.loads(cache.path(key).read_text("utf-8"))
    doc["model"] = "openai:other"  # a planted entry: the key says m, the entry another model
    cache.path(key).write_text(json.dumps(doc), "utf-8")
    assert cache.get(key, c.Message, "openai:m") is None
    assert (cache.hits, cache.misses) == (1, 1)


def test_a_hit_the_callers_checks_refuse_is_a_miss(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path)
    key = cache_key("m", {}, INPUT)
    cache.put(key, "m", _reply())
    assert cache.get(key, c.Message, "m", lambda reply: False) is None
    assert cache.get(key, c.Message, "m", lambda reply: True) is not None
    assert (cache.hits, cache.misses) == (1, 1)


WEAK = "Here is the summary of your conversation: a fix was made."
STRONG = "<summary>\n" + "The user asked for a fix to the parser; it is done and tested. " * 30
STRONG += "\n</summary>"
LONG = "<summary>\n" + "Every step was recorded here at length, one after another. " * 60
LONG += "\n</summary>"


def _run_with(tmp_path: Path, fake: FakeOpenAI, name: str, settings: str) -> dict[str, Any]:
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(
        f"model: {{provider: openai, name: m, base_url: '{fake.base_url}'}}\n{settings}", "utf-8"
    )
    out = tmp_path / f"{name}.jsonl"
    src = REPO / "sample_transcripts" / "coding-session.jsonl"
    args = ["run", str(src), "-c", str(cfg), "--force", "-o", str(out), "-q"]
    result = CliRunner().invoke(app, [*args, "--report", str(out.with_suffix(".json"))])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(out.with_suffix(".json").read_text("utf-8"))
    report["written"] = out.read_text("utf-8")
    return report


@pytest.mark.parametrize(
    ("cached", "settings", "fresh"),
    [
        (WEAK, "summary_check: {min_tokens: 200, require_sections: true}\n", STRONG),
        (LONG, "max_summary_tokens: 300\n", "<summary>\nA fix to the parser, done.\n</summary>"),
    ],
    ids=["summary_check", "max_summary_tokens"],
)
def test_a_cached_reply_the_later_runs_checks_refuse_is_asked_again(
    tmp_path: Path, remote_env: FakeOpenAI, cached: str, settings: str, fresh: str
) -> None:
    """A reply cached by a run without ``summary_check`` (or ``max_summary_tokens``) is not
    served to a run that has it: the hit is refused like a fresh reply would be, counted as a
    miss, the request is sent again, and its reply replaces the entry (a third run hits it)."""
    fake = remote_env
    fake.enqueue(reply(cached))
    first = _run_with(tmp_path, fake, "first", "")
    assert first["cache"]["stores"] == 1 and len(fake.requests) == 1
    fake.enqueue(reply(fresh))
    second = _run_with(tmp_path, fake, "second", settings)
    assert len(fake.requests) == 2, "the refused entry was served"
    assert (second["cache"]["hits"], second["cache"]["misses"]) == (0, 1)
    assert "fix to the parser" in second["written"]
    assert cached.removeprefix("<summary>\n")[:30] not in second["written"]
    third = _run_with(tmp_path, fake, "third", settings)
    assert len(fake.requests) == 2 and third["cache"]["hits"] == 1


# -- in-process models: the key holds the code's fingerprint ---------------------------------------


def _local_run(pkg_root: Path, src: Path, out: Path, cache: Path) -> str:
    """``compact run --model local --cache`` with the ``compactor`` package found in ``pkg_root``;
    the output's text."""
    env = {**os.environ, "PYTHONPATH": str(pkg_root), "XDG_CACHE_HOME": str(cache)}
    args = [sys.executable, "-m", "compactor", "run", str(src), "--model", "local", "--force"]
    args += ["--cache", "-q", "-o", str(out)]
    # cwd: ``python -m`` puts the working folder first on sys.path
    done = subprocess.run(
        args, env=env, cwd=pkg_root, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert str(pkg_root) in subprocess.run(  # the copy is the code that ran
        [sys.executable, "-c", "import compactor; print(compactor.__file__)"],
        env=env, cwd=pkg_root, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    return out.read_text("utf-8")


def test_an_edited_embedded_summarizer_is_never_served_its_older_selfs_summary(
    tmp_path: Path,
) -> None:
    """The defect: the key had no code version, so after an upgrade (or a local edit) of the
    embedded summarizer, ``run --model local --cache`` kept returning what the old code wrote."""
    root = tmp_path / "pkg"
    shutil.copytree(
        REPO / "compactor", root / "compactor", ignore=shutil.ignore_patterns("__pycache__")
    )
    src = REPO / "sample_transcripts" / "coding-session.jsonl"
    cache = tmp_path / "cache"
    first = _local_run(root, src, tmp_path / "a.jsonl", cache)
    assert "Primary Request and Intent" in first
    again = _local_run(root, src, tmp_path / "b.jsonl", cache)
    assert again == first  # same code, same input: a hit (and the same bytes)
    local = root / "compactor" / "models" / "local.py"
    text = local.read_text("utf-8")
    local.write_text(text.replace('"Primary Request and Intent"', '"The Request"', 1), "utf-8")
    edited = _local_run(root, src, tmp_path / "c.jsonl", cache)
    assert "The Request" in edited and "Primary Request and Intent" not in edited


def test_a_fifo_or_a_dangling_link_in_the_package_never_blocks_or_fails_a_cached_run(
    tmp_path: Path,
) -> None:
    """The fingerprint reads every ``*.py`` of the package: one that is a FIFO (opening it
    would block for ever) or a dangling symlink is named, not opened, and the run goes on."""
    root = tmp_path / "pkg"
    shutil.copytree(
        REPO / "compactor", root / "compactor", ignore=shutil.ignore_patterns("__pycache__")
    )
    os.mkfifo(root / "compactor" / "zz_fifo.py")
    (root / "compactor" / "zz_gone.py").symlink_to(tmp_path / "missing.py")
    src = REPO / "sample_transcripts" / "coding-session.jsonl"
    first = _local_run(root, src, tmp_path / "a.jsonl", tmp_path / "cache")
    again = _local_run(root, src, tmp_path / "b.jsonl", tmp_path / "cache")
    assert "Primary Request and Intent" in first and again == first


def test_in_process_models_key_their_code_and_remote_ones_their_endpoint(tmp_path: Path) -> None:
    from compactor.models.local import LocalSummarizer
    from compactor.pipeline.cache import model_code, request_key

    local = model_code(LocalSummarizer())
    assert local is not None and len(local) == 64
    assert model_code(ScriptedModel([])) == local  # compact's own classes: compact's source
    remote = OpenAIModel("m", base_url="http://127.0.0.1:9/v1")
    assert model_code(remote) is None  # its server owns its behaviour

    class Declared:
        code_version = "v7"

    assert model_code(Declared()) == "v7"
    key, _ = request_key(LocalSummarizer(), "local", {}, INPUT)
    assert key != cache_key("local", {}, INPUT)  # the same request without the code is another key
    assert key == cache_key("local", {}, INPUT, None, local)

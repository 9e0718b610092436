"""Issue 33: object-store paths and a batch on a Dask cluster, with real parts on loopback.

An S3 API served by moto's ``ThreadedMotoServer`` on 127.0.0.1 (a real HTTP server, not the
in-process mock), one ``distributed.LocalCluster`` of 2 worker processes shared by the module,
the embedded summarizer (no network). The command runs as a subprocess (the console script),
joined to the module's cluster by its scheduler address; the library call where a test needs
to act while tasks run (a killed worker, Ctrl-C).
"""

from __future__ import annotations

import json
import logging
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactor.distributed import compact_many
from compactor.runs.runner import RunOptions

from .fake_server_cli import invoke

FILES = 40
"""The issue asks for 200: they run too (3 cluster batches in ~32 s on this shared 2-core
machine), over the suite's budget; 40 exercise the same paths."""
WORDS = (
    "the config parser token window summary context agent transcript request response retry "
    "cache buffer stream session compact threshold message tool result error warning value "
    "function module import return class"
).split()
FLAGS = ["--model", "local", "--force", "--transcript-path", "none", "-q"]

pytestmark = [
    # botocore and moto use datetime.utcnow(); the servers' threads must not turn it into errors
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
    pytest.mark.timeout(120),
]


def transcript(seed: int) -> bytes:
    """A small OpenAI-chat transcript (~28 KB), different for every seed."""
    rnd = random.Random(seed)
    lines: list[dict[str, str]] = [{"role": "system", "content": "You are a coding agent."}]
    for turn in range(12):
        words = " ".join(rnd.choice(WORDS) for _ in range(120))
        lines.append({"role": "user", "content": f"Task {seed}.{turn}: {words}"})
        lines.append(
            {"role": "assistant", "content": " ".join(rnd.choice(WORDS) for _ in range(200))}
        )
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    """A moto S3 server on 127.0.0.1 and the environment that points boto at it.

    The extras are imported here, not at collection: every test worker collects this module,
    one runs it (``tests/conftest.py`` ``ONE_WORKER``), and the three imports cost ~0.7 s of
    CPU."""
    pytest.importorskip("distributed", reason="needs the dev extra: dask[distributed]")
    pytest.importorskip("s3fs", reason="needs the s3 or dev extra: s3fs")
    pytest.importorskip("moto.server", reason="needs the dev extra: moto[server]")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the cluster's workers inherit it when they start
    try:
        yield env
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()


@pytest.fixture(scope="module")
def fs(s3: dict[str, str]) -> Any:
    import s3fs

    store = s3fs.S3FileSystem(skip_instance_cache=True)
    store.mkdir("logs-bucket")
    return store


@pytest.fixture(scope="module")
def client(s3: dict[str, str]) -> Iterator[Any]:
    import distributed

    dist: Any = distributed
    with (
        dist.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        dist.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def bucket(fs: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """FILES transcripts in s3://logs-bucket/logs/, the same files in a local folder, and the
    single-machine batch's outputs of that folder (the bytes every cluster run must give)."""
    local = tmp_path_factory.mktemp("logs")
    expected = tmp_path_factory.mktemp("expected")
    payload = {}
    for i in range(FILES):
        name = f"s{i:03d}.jsonl"
        data = transcript(i)
        (local / name).write_bytes(data)
        payload[f"logs-bucket/logs/{name}"] = data
    fs.pipe(payload)
    proc = _compact("run", str(local), "--output-dir", str(expected), *FLAGS)
    assert proc.returncode == 0, proc.stderr
    return {"local": local, "expected": expected, "names": sorted(os.listdir(local))}


def _compact(*args: str, console_script: bool = False) -> subprocess.CompletedProcess[str]:
    """``compact ARGS`` in this process (typer's CliRunner), or as the console script once per
    mode (a fresh interpreter costs ~1 s)."""
    if console_script:
        return subprocess.run(
            [sys.executable, "-m", "compactor", *args],
            capture_output=True,
            text=True,
            timeout=110,
        )
    proc = invoke(args)
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )


def _address(client: Any) -> str:
    return str(client.scheduler.address)


def _same_as_single_machine(fs: Any, bucket: dict[str, Any], prefix: str) -> None:
    for name in bucket["names"]:
        want = (bucket["expected"] / name).read_bytes()
        assert fs.cat_file(f"logs-bucket/{prefix}/{name}") == want, name


def test_a_bucket_on_the_cluster_writes_the_single_machine_bytes_and_resumes(
    fs: Any, client: Any, bucket: dict[str, Any]
) -> None:
    """200 transcripts in a bucket → outputs in another prefix, byte for byte the single-machine
    batch's; the batch report in the bucket; a re-run skips them all and rewrites nothing."""
    out = "s3://logs-bucket/small/"
    args = ["run", "s3://logs-bucket/logs/", "--output-dir", out, "--dask", _address(client)]
    proc = _compact(*args, *FLAGS, "--report", "s3://logs-bucket/batch.json", console_script=True)
    assert proc.returncode == 0, proc.stderr
    _same_as_single_machine(fs, bucket, "small")
    report = json.loads(fs.cat_file("logs-bucket/batch.json"))
    assert report["totals"]["files"] == FILES
    assert report["totals"]["compacted"] == FILES
    assert report["totals"]["skipped_up_to_date"] == 0
    manifest = json.loads(fs.cat_file("logs-bucket/small/compact-manifest.json"))
    assert len(manifest["entries"]) == FILES  # one per input hash + config hash
    # a mark on every output's metadata: rewriting an object would drop it
    outputs = [f"logs-bucket/small/{name}" for name in bucket["names"]]
    for path in outputs:
        fs.put_tags(path, {"marker": "kept"})

    # the re-run: one input changed since, so only it runs again
    fs.pipe_file("logs-bucket/logs/s007.jsonl", transcript(10_007))
    try:
        again = _compact(*args, *FLAGS[:-1])
    finally:
        fs.pipe_file("logs-bucket/logs/s007.jsonl", transcript(7))
    assert again.returncode == 0, again.stderr
    assert f"{FILES - 1} files skipped: output up to date" in again.stderr
    assert "1 file: 1 compacted, 0 unchanged, 0 failed" in again.stderr
    fs.invalidate_cache()
    for path in outputs:
        kept = fs.get_tags(path).get("marker") == "kept"
        assert kept is (not path.endswith("/s007.jsonl")), path
    assert (
        fs.cat_file("logs-bucket/small/s007.jsonl")
        != (bucket["expected"] / "s007.jsonl").read_bytes()
    )


def test_a_failing_file_does_not_stop_the_batch(
    fs: Any, client: Any, bucket: dict[str, Any]
) -> None:
    fs.pipe(
        {
            "logs-bucket/mixed/a.jsonl": transcript(1),
            "logs-bucket/mixed/b.jsonl": b'{"role": "user", "content": "x"}\nnot json\n',
            "logs-bucket/mixed/c.jsonl": transcript(2),
        }
    )
    proc = _compact(
        "run",
        "s3://logs-bucket/mixed/",
        "--output-dir",
        "s3://logs-bucket/mixed-out",
        "--dask",
        _address(client),
        "--report",
        "s3://logs-bucket/mixed.json",
        *FLAGS[:-1],
    )
    assert proc.returncode == 2, proc.stderr
    assert "s3://logs-bucket/mixed/b.jsonl: failed (exit 2)" in proc.stderr
    assert "s3://logs-bucket/mixed/b.jsonl:2: invalid JSON" in proc.stderr
    assert "3 files: 2 compacted, 0 unchanged, 1 failed" in proc.stderr
    assert (
        fs.cat_file("logs-bucket/mixed-out/a.jsonl")
        == (bucket["expected"] / "s001.jsonl").read_bytes()
    )
    assert fs.exists("logs-bucket/mixed-out/c.jsonl")
    assert not fs.exists("logs-bucket/mixed-out/b.jsonl")
    report = json.loads(fs.cat_file("logs-bucket/mixed.json"))
    failed = [f for f in report["files"] if f["exit_code"] != 0]
    assert [f["input"] for f in failed] == ["s3://logs-bucket/mixed/b.jsonl"]
    assert "s3://logs-bucket/mixed/b.jsonl:2: invalid JSON" in failed[0]["error"]
    assert "/tmp" not in json.dumps(report)  # the temporary copies are never named


def test_a_killed_worker_has_its_tasks_run_elsewhere(
    fs: Any, client: Any, bucket: dict[str, Any]
) -> None:
    """SIGKILL a worker that holds tasks, as the first result comes back: the scheduler runs
    them on the other worker (and the nanny's new one); every output is still written, right."""
    killed: list[int] = []

    def kill_a_busy_worker(index: int, result: Any) -> None:
        if killed:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1])
        pid = next(iter(pids.values()))
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    urls = [f"s3://logs-bucket/logs/{n}" for n in bucket["names"][:30]]
    options = RunOptions(
        input="-",
        output_dir="s3://logs-bucket/killed/",
        model="local",
        force=True,
        transcript_path="none",
    )
    outcome = compact_many(urls, options, client=client, on_done=kill_a_busy_worker)
    assert killed
    assert all(r is not None and r.exit_code == 0 for r in outcome.results), [
        r.error for r in outcome.results if r is not None and r.exit_code
    ]
    for name in bucket["names"][:30]:
        want = (bucket["expected"] / name).read_bytes()
        assert fs.cat_file(f"logs-bucket/killed/{name}") == want, name
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it
    assert killed[0] not in client.run(os.getpid).values()


def test_ctrl_c_cancels_the_rest_and_a_rerun_finishes_it(
    fs: Any, client: Any, bucket: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    """A real SIGINT in the client as the third result arrives: the tasks not finished are
    cancelled and say so; the manifest keeps what was done, so the re-run skips it."""
    # Ctrl-C's own action (KeyboardInterrupt) also when the suite was started in the background
    # (`make test &`, `nohup`), which makes this process ignore SIGINT: the signal was lost.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    seen: list[int] = []

    def interrupt(index: int, result: Any) -> None:
        seen.append(index)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    urls = [f"s3://logs-bucket/logs/{n}" for n in bucket["names"][:20]]
    options = RunOptions(
        input="-",
        output_dir="s3://logs-bucket/cut/",
        model="local",
        force=True,
        transcript_path="none",
    )
    outcome = compact_many(urls, options, client=client, on_done=interrupt)
    assert outcome.interrupted
    done = [r for r in outcome.results if r is not None and r.exit_code == 0]
    cancelled = [r for r in outcome.results if r is not None and r.exit_code == 130]
    assert len(done) >= 3 and cancelled
    assert all("cancelled by Ctrl-C" in (r.error or "") for r in cancelled)
    assert len(done) + len(cancelled) == len(urls)
    again = compact_many(urls, options, client=client)
    assert not again.interrupted
    assert len(again.skipped) >= len(done)
    _same_as_single_machine_subset(fs, bucket, "cut", 20)


def _same_as_single_machine_subset(fs: Any, bucket: dict[str, Any], prefix: str, n: int) -> None:
    for name in bucket["names"][:n]:
        want = (bucket["expected"] / name).read_bytes()
        assert fs.cat_file(f"logs-bucket/{prefix}/{name}") == want, name


def test_one_object_run_and_check_and_what_an_object_store_refuses(
    fs: Any, bucket: dict[str, Any], tmp_path: Path
) -> None:
    """No cluster: one object in, its output and report out to the bucket, the same bytes;
    ``check`` reads a folder URL; --in-place and --events on an object store are exit 2."""
    url = "s3://logs-bucket/logs/s003.jsonl"
    proc = _compact(
        "run",
        url,
        "-o",
        "s3://logs-bucket/one/s003.jsonl",
        "--report",
        "s3://logs-bucket/one/report.json",
        *FLAGS,
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        fs.cat_file("logs-bucket/one/s003.jsonl")
        == (bucket["expected"] / "s003.jsonl").read_bytes()
    )
    report = json.loads(fs.cat_file("logs-bucket/one/report.json"))
    assert report["input"] == url and report["output"] == "s3://logs-bucket/one/s003.jsonl"

    local = str(bucket["local"] / "s004.jsonl")
    up = _compact("run", local, "-o", "s3://logs-bucket/up/s004.jsonl", *FLAGS)
    assert up.returncode == 0, up.stderr
    want = (bucket["expected"] / "s004.jsonl").read_bytes()
    assert fs.cat_file("logs-bucket/up/s004.jsonl") == want

    check = _compact("check", "s3://logs-bucket/one/")
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("s3://logs-bucket/one/s003.jsonl: ok — openai")

    refused = _compact("run", url, "--in-place", *FLAGS)
    assert refused.returncode == 2
    assert refused.stderr.startswith("compact: --in-place on 's3://logs-bucket/")
    events = _compact("run", url, "--events", "s3://logs-bucket/e.jsonl", *FLAGS)
    assert events.returncode == 2
    assert "--events 's3://logs-bucket/e.jsonl'" in events.stderr
    missing = _compact("run", "s3://logs-bucket/logs/nope.jsonl", "-o", str(tmp_path / "o"), *FLAGS)
    assert missing.returncode == 2
    assert "nope.jsonl" in missing.stderr and "not found" in missing.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_jobs_bounds_the_model_requests_across_the_cluster(
    fs: Any, client: Any, bucket: dict[str, Any], tmp_path: Path, jobs: int
) -> None:
    """--jobs is one limit for the whole cluster, not one per worker: 2 workers, 6 files, each
    one request to a fake server that answers after 0.3 s; the server never sees more than
    ``jobs`` at once (and does see ``jobs``: the limit, not one file after another). With two
    at once the answers take 1 s: two workers' requests must overlap to be seen together, and
    on a machine loaded three times over (a suite beside other work) 0.3 s was once too short."""
    from compactor.testing.fake_openai import FakeOpenAI

    server = FakeOpenAI(latency=0.3 if jobs == 1 else 1.0).start()
    try:
        config = tmp_path / "compact.yaml"
        config.write_text(
            "model:\n  provider: openai\n  name: fake\n"
            f"  base_url: {server.base_url}\n  api_key: sk-test-jobs\n  timeout: 10\n"
            "loop_guard: false\n",
            encoding="utf-8",
        )
        urls = [f"s3://logs-bucket/logs/{n}" for n in bucket["names"][:6]]
        options = RunOptions(
            input="-",
            output_dir=f"s3://logs-bucket/jobs{jobs}/",
            config=str(config),
            force=True,
            cache=False,
            transcript_path="none",
        )
        outcome = compact_many(urls, options, client=client, jobs=jobs)
    finally:
        server.stop()
    assert [r.exit_code for r in outcome.results if r is not None] == [0] * 6
    assert len(server.requests) == 6
    assert server.peak_in_flight == jobs


def test_ctrl_c_on_the_command_line_cancels_and_the_report_says_what_was_done(
    fs: Any, client: Any, bucket: dict[str, Any], tmp_path: Path
) -> None:
    """The console script, SIGINT once the first model request arrived (the batch is running):
    exit 130, one line saying how many files were done and that the rest were cancelled, and
    the batch report (in the bucket) with every file: done, or cancelled with exit 130."""
    import time

    from compactor.testing.fake_openai import FakeOpenAI

    from .fake_server_cli import default_sigint

    server = FakeOpenAI(latency=0.5).start()
    try:
        config = tmp_path / "compact.yaml"
        config.write_text(
            "model:\n  provider: openai\n  name: fake\n"
            f"  base_url: {server.base_url}\n  api_key: sk-test-sigint\n  timeout: 10\n"
            "loop_guard: false\n",
            encoding="utf-8",
        )
        fs.pipe({f"logs-bucket/sig/{n}": transcript(i) for i, n in enumerate(bucket["names"][:12])})
        args = ["run", "s3://logs-bucket/sig/", "--output-dir", "s3://logs-bucket/sig-out/"]
        args += ["--dask", _address(client), "-c", str(config), "--force", "--no-cache"]
        args += [
            "--jobs",
            "1",
            "--transcript-path",
            "none",
            "--report",
            "s3://logs-bucket/sig.json",
        ]
        proc = subprocess.Popen(
            [sys.executable, "-m", "compactor", *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            preexec_fn=default_sigint,  # SIGINT back to its default action
        )
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.requests, "the batch never reached the model"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        server.stop()
    assert proc.returncode == 130, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("compact: interrupted by Ctrl-C: "), stderr
    assert "of 12 files done; the remaining tasks were cancelled" in last
    report = json.loads(fs.cat_file("logs-bucket/sig.json"))
    assert report["interrupted"] is True
    codes = [f["exit_code"] for f in report["files"]]
    assert len(codes) == 12 and set(codes) <= {0, 130} and 130 in codes
    done = codes.count(0)
    assert last.startswith(f"compact: interrupted by Ctrl-C: {done} of 12 files done")

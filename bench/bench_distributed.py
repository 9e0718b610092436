"""Issue 33: a bucket of transcripts on one machine vs a Dask cluster (``--dask local:N``).

    python bench/bench_distributed.py [--files 400] [--mb 1] [--workers 2] [--tiny 400]

Generates ``files`` transcripts of ``mb`` MiB (bench/gen_transcript.py, seeds 1..files), serves
an S3 bucket with moto's ``ThreadedMotoServer`` on 127.0.0.1, uploads them, and times, with the
embedded summarizer (``--model local --force --transcript-path none``), each as a fresh
``compact`` process:

1. the local batch on the local copies (``compact run DIR --output-dir OUT``: one process);
2. the bucket without a cluster (``compact run s3://.../logs/ --output-dir s3://.../one/``);
3. the bucket on ``--dask local:N`` (N worker processes), cluster start-up included;
   3b. the local copies on ``--dask local:N`` (no S3: the cluster alone);
4. ``--dask local:N`` over one tiny file: the cluster's start-up alone;
5. ``--dask local:N`` over ``tiny`` copies of a 62-token chat (not triggered, copied): the
   per-file cost of a task (scheduling, S3 GET/HEAD/PUT, manifest) when the work is nil;
6. ``tiny`` no-op tasks on a LocalCluster in this process: the scheduler's own round trip.

Checks that 1 and 3 wrote the same bytes, prints the ratio 1 / 3, the per-file overheads and the
model of a 1 TB archive (1 MiB files) on 8, 64 and 512 workers. Notes ``uptime`` before and
after: the machine is shared.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import REPO, precompile  # bench/ is on sys.path
from gen_transcript import generate

FLAGS = ["--model", "local", "--force", "--transcript-path", "none", "-q"]


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "compactor", *args], env=env, capture_output=True, text=True
    )
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"compact {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return took


def _noop() -> None:
    return None


def _scheduler_round_trip(workers: int, tasks: int) -> float:
    import distributed

    dist: Any = distributed
    with (
        dist.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        dist.Client(cluster) as client,
    ):
        client.submit(_noop, pure=False).result()  # warm
        started = time.perf_counter()
        futures = [client.submit(_noop, pure=False) for _ in range(tasks)]
        for _ in dist.as_completed(futures):
            pass
        return (time.perf_counter() - started) / tasks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tiny", type=int, default=400)
    args = parser.parse_args()
    import s3fs
    from moto.server import ThreadedMotoServer

    precompile()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
    print(f"before: {_uptime()}", flush=True)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = dict(
        os.environ,
        AWS_ACCESS_KEY_ID="bench",
        AWS_SECRET_ACCESS_KEY="bench",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_ENDPOINT_URL=f"http://{host}:{port}",
        PYTHONPATH=str(REPO),
    )
    os.environ.update({k: env[k] for k in env if k.startswith("AWS_")})
    fs = s3fs.S3FileSystem(skip_instance_cache=True)
    fs.mkdir("bench")
    dask = f"local:{args.workers}"
    with tempfile.TemporaryDirectory() as tmp:
        logs, out = Path(tmp) / "logs", Path(tmp) / "out"
        logs.mkdir()
        out.mkdir()
        for i in range(args.files):
            generate(logs / f"t{i:04d}.jsonl", args.mb, i + 1, False)
        total = sum(p.stat().st_size for p in logs.iterdir())
        fs.put(str(logs) + "/", "bench/logs/", recursive=True)
        small = REPO / "sample_transcripts" / "small-chat.jsonl"
        fs.pipe({f"bench/tiny/c{i:04d}.jsonl": small.read_bytes() for i in range(args.tiny)})
        fs.pipe_file("bench/one/x.jsonl", small.read_bytes())
        print(f"{args.files} files, {total / 1e6:.1f} MB in the bucket", flush=True)

        local = _timed(["run", str(logs), "--output-dir", str(out), *FLAGS], env)
        print(f"1. local batch, one process: {local:.2f} s", flush=True)
        bucket = _timed(["run", "s3://bench/logs/", "--output-dir", "s3://bench/seq/", *FLAGS], env)
        print(f"2. bucket, no cluster: {bucket:.2f} s", flush=True)
        cluster = _timed(
            ["run", "s3://bench/logs/", "--output-dir", "s3://bench/dask/", "--dask", dask, *FLAGS],
            env,
        )
        print(f"3. bucket, --dask {dask}: {cluster:.2f} s", flush=True)
        same = all(
            fs.cat_file(f"bench/dask/{p.name}") == p.read_bytes() for p in sorted(out.iterdir())
        )
        print(f"   same bytes as the local batch: {same}", flush=True)
        spread = Path(tmp) / "spread"
        spread.mkdir()
        files_local = _timed(
            ["run", str(logs), "--output-dir", str(spread), "--dask", dask, *FLAGS], env
        )
        print(f"3b. local files, --dask {dask} (no S3): {files_local:.2f} s", flush=True)
        startup = _timed(
            [
                "run",
                "s3://bench/one/x.jsonl",
                "--output-dir",
                "s3://bench/one-out/",
                "--dask",
                dask,
                *FLAGS[:2],
                *FLAGS[3:],
            ],
            env,
        )
        print(f"4. --dask {dask} start-up (one tiny file): {startup:.2f} s", flush=True)
        tiny = _timed(
            [
                "run",
                "s3://bench/tiny/",
                "--output-dir",
                "s3://bench/tiny-out/",
                "--dask",
                dask,
                "--model",
                "local",
                "--transcript-path",
                "none",
                "-q",
            ],
            env,
        )
        per_file = (tiny - startup) / args.tiny
        print(
            f"5. {args.tiny} tiny files on --dask {dask}: {tiny:.2f} s, "
            f"{per_file * 1e3:.1f} ms per file over start-up",
            flush=True,
        )
    round_trip = _scheduler_round_trip(args.workers, args.tiny)
    print(f"6. no-op task round trip: {round_trip * 1e3:.2f} ms per task", flush=True)
    server.stop()
    mb = total / 1e6
    print(f"ratio local batch / --dask {dask}: {local / cluster:.2f}x")
    print(f"ratio bucket without cluster / --dask {dask}: {bucket / cluster:.2f}x")
    print(f"ratio local batch / local files on --dask {dask}: {local / files_local:.2f}x")
    core_rate = mb / local  # MB/s of one process (one core)
    work = (cluster - startup) * args.workers  # worker-seconds spent on the files
    print(
        f"per-core throughput: {core_rate:.1f} MB/s (local batch); on the cluster "
        f"{mb / work:.1f} MB/s per worker"
    )
    files_tb = 1e12 / (args.mb * 1024 * 1024)
    for workers in (8, 64, 512):
        compute = files_tb * (args.mb * 1.048576 / core_rate + per_file * args.workers) / workers
        floor = files_tb * round_trip  # the scheduler hands out tasks one after another
        est = max(compute, floor) + startup
        print(
            f"model 1 TB on {workers} workers: {est / 3600:.2f} h "
            f"(compute {compute / 3600:.2f} h, scheduler floor {floor / 3600:.2f} h)"
        )
    print(f"after: {_uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

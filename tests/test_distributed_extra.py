"""Issue 33: an object-store path without its backend installed is one line, exit 2.

Kept apart from test_distributed.py, which needs the extras: this one runs in any environment
(the console script in a fresh interpreter, where ``import s3fs`` fails as it does without the
extra).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MISSING = """\
import sys
sys.modules["s3fs"] = None  # as if the extra were not installed: `import s3fs` fails
from compactor.cli.app import main
sys.argv = ["compact", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("command", ["run", "check"])
def test_without_s3fs_an_s3_path_is_a_one_line_exit_2(command: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", MISSING, command, "s3://logs-bucket/logs/"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "s3fs" in lines[0] and "compact-transcripts[s3]" in lines[0] and "'s3'" in lines[0]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nowhere", "--dask 'nowhere': give local, local:N or a scheduler ADDRESS"),
        ("local:two", "--dask 'local:two': local:N needs a number of workers, 1 or more"),
        ("local:0", "--dask 'local:0': local:N needs a number of workers, 1 or more"),
    ],
)
def test_a_dask_address_that_is_none_is_exit_2(value: str, message: str, tmp_path: Path) -> None:
    from .fake_server_cli import invoke

    (tmp_path / "a.jsonl").write_bytes(b'{"role": "user", "content": "hi"}\n')
    proc = invoke(["run", str(tmp_path), "--dask", value, "--model", "local"])
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == f"compact: {message}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_file_urls_are_local_paths_with_every_local_rule(tmp_path: Path) -> None:
    """``file://`` input, output and events are the local files (no fsspec); a local rule
    still holds: the output may not be the input."""
    from .fake_server_cli import invoke

    src = Path(__file__).resolve().parents[1] / "sample_transcripts" / "small-chat.jsonl"
    (tmp_path / "a.jsonl").write_bytes(src.read_bytes())
    url = f"file://{tmp_path}"
    args = ["run", f"{url}/a.jsonl", "-o", f"{url}/b.jsonl", "--events", f"{url}/ev.jsonl"]
    proc = invoke([*args, "--model", "local", "--transcript-path", "none"])
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b.jsonl").read_bytes() == src.read_bytes()  # not triggered: a copy
    assert (tmp_path / "ev.jsonl").read_text().count("\n") >= 2
    same = invoke(["run", f"{url}/a.jsonl", "-o", f"{url}/a.jsonl", "--model", "local"])
    assert same.returncode == 2
    assert "is the input; use --in-place" in same.stderr.decode()


def test_the_config_digest_is_the_same_in_every_process(tmp_path: Path) -> None:
    """A re-run skips an up-to-date output only if the config digest matches: with several
    flags set, the digest is the same under different string hash seeds (a set of flagged
    keys was hashed in its per-process order, and re-runs recompacted every file now and then)."""
    code = (
        "from compactor.runs.run_plan import RunOptions\n"
        "from compactor.distributed.many import config_digest\n"
        "opts = RunOptions(input='x.jsonl', model='local', force=True, transcript_path='none',\n"
        "                  threshold=1000, cache=False, instructions='keep ids')\n"
        "assert len(opts.file_config().flagged) > 2, opts.file_config().flagged\n"
        "print(config_digest(opts, opts.file_config()))\n"
    )
    digests = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        digests.add(proc.stdout.strip())
    assert len(digests) == 1, digests
    assert len(digests.pop()) == 64

"""A config ``callback`` that raises during a run: exit 3, its message, nothing written."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from .fake_server_cli import CODING, compact_exe


def test_a_config_callback_that_raises_is_exit_3_with_its_message(tmp_path: Path) -> None:
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "zz_cb_raises.py").write_text(
        "def cb(before, after):\n    raise ValueError('callback says no')\n", encoding="utf-8"
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\ncallback: zz_cb_raises:cb\n", encoding="utf-8")
    before = hashlib.sha256(CODING.read_bytes()).hexdigest()
    out = tmp_path / "out.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(mods), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [compact_exe(), "run", "-c", str(cfg), "--force", str(CODING), "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 3, proc.stderr
    assert "compact: unexpected error (ValueError): callback says no" in proc.stderr
    assert "nothing was written" in proc.stderr
    assert not out.exists()
    assert set(tmp_path.iterdir()) == {mods, cfg}  # no partial or temporary file left
    assert hashlib.sha256(CODING.read_bytes()).hexdigest() == before

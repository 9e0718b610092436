"""Shared fixtures: no test may reach the internet or a real API key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TRANSCRIPTS = SHARED / "transcripts"
DEAD_BASE_URL = "http://127.0.0.1:9/v1"


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clear OPENAI_* and proxy variables; point the client at a dead loopback port."""
    for key in list(os.environ):
        upper = key.upper()
        if upper.startswith("OPENAI_") or upper.endswith("_PROXY") or upper == "COMPACT_CONFIG":
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", DEAD_BASE_URL)
    monkeypatch.setenv("NO_PROXY", "*")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared_transcripts() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.skip("../shared/transcripts is not beside the checkout")
    return TRANSCRIPTS

"""Shared fixtures: no test may reach the internet or a real API key."""

from __future__ import annotations

import functools
import os
import ssl
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from compactor.testing.fake_openai import FakeOpenAI

# Bytecode is cached for the suite even where PYTHONDONTWRITEBYTECODE says not to write it: the
# suite starts the console script a few hundred times, and without a cache every start compiles
# the compactor modules it imports again (~0.1 s of CPU each, a third of a start), every worker
# re-writes the assertions of every test module at collection (~5 s each), and every Dask worker
# compiles the package again. The caches land in __pycache__/ (git-ignored), as for anyone who
# has not set the variable. BENCHMARKS.md "The suite's time (issue 31)" has the figures.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Property tests check properties, not time (speed is measured in bench/): no per-example
# deadline, which a loaded CI machine turns into flaky failures.
settings.register_profile("compact", deadline=None)
settings.load_profile("compact")


def _one_ca_bundle_per_process() -> None:
    """Every model client the tests build in this process shares one default TLS context.

    The SDKs' HTTP client (httpx2) builds a fresh ``ssl.SSLContext`` for every client and loads
    the system's CA bundle into it (``load_verify_locations``, ~25 ms of CPU): a ``compact run``
    builds its clients once, but the suite builds ~500 in its own processes, 12 s of CPU (7 % of
    the suite) for contexts that no test uses (every server is plain HTTP on 127.0.0.1). The
    context is the library's own, built once per setting of the variables it reads; console
    scripts the tests start build theirs as users' do."""
    try:
        import httpcore2
    except ImportError:  # pragma: no cover - an SDK without it builds its contexts its own way
        return
    build = httpcore2.default_ssl_context
    built: dict[tuple[bool, str | None, str | None], ssl.SSLContext] = {}

    @functools.wraps(build)
    def shared(*, _trust_env: bool = True) -> ssl.SSLContext:
        key = (_trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        if key not in built:
            built[key] = build(_trust_env=_trust_env)
        return built[key]

    httpcore2.default_ssl_context = shared


_one_ca_bundle_per_process()

SLOW = os.environ.get("COMPACT_SLOW_TESTS", "") not in ("", "0")
"""``make test-slow`` (``COMPACT_SLOW_TESTS=1``): every property test runs its full example
count; ``make test`` runs each at most :data:`QUICK_EXAMPLES`."""
QUICK_EXAMPLES = 300


def examples(full: int, quick: int = QUICK_EXAMPLES) -> int:
    """A property test's ``max_examples``: ``full`` under ``make test-slow``, at most ``quick``
    in ``make test``.

    The full counts, up to 3,000 examples a property, made the property tests a fifth of the
    suite's CPU time. Derandomized tests still draw the same examples on every run (a quick run
    draws fewer, not a prefix of the full run's); BENCHMARKS.md, "The suite's time (issue 31,
    helper suite2)", lists the bugs each shortened test was checked to still catch."""
    return full if SLOW else min(full, quick)


REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TRANSCRIPTS = SHARED / "transcripts"
DEAD_BASE_URL = "http://127.0.0.1:9/v1"
HAVE_SHARED = TRANSCRIPTS.is_dir()
needs_shared = pytest.mark.skipif(
    not HAVE_SHARED, reason="../shared/transcripts is not beside the checkout"
)
"""Mark for tests (or parameters) that read the real transcripts: they skip on a user's clone."""


def shared_transcript_files() -> list[Path]:
    """The real agent transcripts (``<agent>/<name>.jsonl``), not the reference compactions."""
    if not HAVE_SHARED:
        return []
    return sorted(
        p for p in TRANSCRIPTS.glob("*/*.jsonl") if p.parent.name != "reference-compactions"
    )


def shared_file(relative: str) -> Path:
    """``../shared/transcripts/<relative>``; skips the calling test when it is not there."""
    path = TRANSCRIPTS / relative
    if not path.is_file():
        pytest.skip(f"{path} is not beside the checkout")
    return path


@pytest.fixture(scope="session")
def _data_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("xdg-data")


@pytest.fixture(autouse=True)
def _clean_environ(
    monkeypatch: pytest.MonkeyPatch, _data_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Clear OPENAI_*, ANTHROPIC_* and proxy variables; point the OpenAI client at a dead
    loopback port (an Anthropic model without a key never sends anything); archive originals
    under a temporary $XDG_DATA_HOME, never in the user's own; give every test its
    own empty summary cache ($XDG_CACHE_HOME), so no test sees another's cached replies; point
    $XDG_CONFIG_HOME at an empty folder, so the user's own config file is never read (a
    subprocess inherits all three)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(_data_home))
    # mkdtemp, not tmp_path_factory.mktemp: a numbered dir lists the whole base folder to find
    # its number, which for one per test grows with the suite (quadratic in all)
    cache = tempfile.mkdtemp(prefix="xdg-cache-", dir=tmp_path_factory.getbasetemp())
    monkeypatch.setenv("XDG_CACHE_HOME", cache)
    # the developer's own ~/.config/compact/config.yaml never leaks into a test
    monkeypatch.setenv("XDG_CONFIG_HOME", str(_data_home / "no-user-config"))
    for key in list(os.environ):
        upper = key.upper()
        if (
            upper.startswith(("OPENAI_", "ANTHROPIC_"))
            or upper.endswith("_PROXY")
            or upper == "COMPACT_CONFIG"
        ):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", DEAD_BASE_URL)
    monkeypatch.setenv("NO_PROXY", "*")


ONE_WORKER = {
    "tests/test_distributed.py": "dask",
    "tests/test_models_anthropic.py": "anthropic",
    "tests/test_cli_anthropic.py": "anthropic",
}
"""Test modules whose tests run in one test worker, with the other modules of their group: a
module-scoped Dask cluster and S3 server are started once (three clusters when its tests went
to three workers: +8 s of CPU), and one worker imports the anthropic SDK for them (they import
it in their tests, not at collection). xdist's own ``xdist_group`` mark does nothing under
pytest 9.2 (it renames ``Item._nodeid``, which ``nodeid`` no longer reads)."""


@pytest.hookimpl(optionalhook=True)  # -p no:xdist: one process runs everything anyway
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n N`` (make test): xdist's load scheduling (runs of consecutive tests to each worker,
    so a module's fixtures are mostly set up once), except that the first worker sent a test of
    a :data:`ONE_WORKER` group is sent the whole group. Another ``--dist`` is left to xdist."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]

    class GroupedLoad(LoadScheduling):  # type: ignore[misc]
        def _send_tests(self, node: Any, num: int) -> None:
            sent: list[int] = []
            while len(sent) < num and self.pending:
                group = ONE_WORKER.get(self.collection[self.pending[0]].split("::", 1)[0])
                if group is None:
                    sent.append(self.pending.pop(0))
                    continue
                members = [
                    i
                    for i in self.pending
                    if ONE_WORKER.get(self.collection[i].split("::", 1)[0]) == group
                ]
                gone = set(members)
                self.pending[:] = [i for i in self.pending if i not in gone]
                sent.extend(members)
            if sent:
                self.node2pending[node].extend(sent)
                node.send_runtest_some(sent)

    return GroupedLoad(config, log)


@pytest.hookimpl(optionalhook=True)  # -p no:xdist: no such hook, and nothing to decide
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (``make test``): one worker more than the cores this process may use.

    About a third of the suite's test time is spent waiting, not computing: on a console script
    it started, a pty, a fake server's latency, a retry's backoff, a Dask cluster. With one worker
    per core the cores sat idle that long; a third worker on two cores fills it (BENCHMARKS.md,
    "The suite's time (issue 31)"). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return cores + 1


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared_transcripts() -> Path:
    if not TRANSCRIPTS.is_dir():
        pytest.skip("../shared/transcripts is not beside the checkout")
    return TRANSCRIPTS


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOpenAI]:
    """One fake OpenAI server per test module (use ``fake`` in tests)."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake(fake_server: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """The module's fake server with an empty step queue; its settings are restored after."""
    default, limit = fake_server.default, fake_server.max_context_tokens
    fake_server.reset()
    yield fake_server
    fake_server.reset()
    fake_server.default, fake_server.max_context_tokens = default, limit

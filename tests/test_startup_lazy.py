"""Start-up of ``compact run --model local`` (issue 28 point 7, speed19): a run whose every model
is the embedded summarizer and that calls none of the user's code needs no event loop, so it
imports neither asyncio (~17 ms) nor, when its first attempt succeeds, tenacity (~12 ms, with
tornado). What such a run writes is unchanged (tests/test_golden.py); these tests pin what it
imports, that user code still gets its loop, and that the retry engine does exactly what it did
when tenacity ran from the first attempt on.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from compactor._util import run_without_loop
from compactor.events import Event, RetryWait
from compactor.pipeline.retry import Outcome, _run_phase, default_sleep

REPO = Path(__file__).resolve().parent.parent
CODING = REPO / "sample_transcripts" / "coding-session.jsonl"

# Prints, at exit, which of the named modules the run imported (main() ends with os._exit after
# the atexit handlers).
_PROBE = """\
import atexit, json, sys
names = ("asyncio", "tenacity", "tornado", "rich", "hashlib")
atexit.register(lambda: print(json.dumps([n for n in names if n in sys.modules])))
sys.argv = ["compact", *sys.argv[1:]]
from compactor.cli.app import main
main()
"""


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_a_quiet_local_run_imports_no_asyncio_tenacity_rich_or_hashlib(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    args = ["run", str(CODING), "--force", "--model", "local", "--no-cache", "-q", "-o", str(out)]
    code, loaded, err = _run(args)
    assert code == 0, err
    assert loaded == []
    assert out.stat().st_size > 0


def test_a_local_run_with_the_local_fallback_needs_no_loop_either(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    args = ["run", str(CODING), "--force", "--model", "local", "--fallback", "local", "-q"]
    code, loaded, err = _run([*args, "-o", str(out)])
    assert code == 0, err
    assert loaded == []


def test_a_user_callback_still_runs_in_an_event_loop(tmp_path: Path) -> None:
    """The user's code may await I/O: a run that calls it keeps its event loop (this callback
    awaits ``asyncio.sleep(0.01)``, which needs a running loop)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "zz_cb_sleeps.py").write_text(
        "import asyncio, pathlib\n"
        "async def cb(before, after):\n"
        "    await asyncio.sleep(0.01)\n"
        f"    pathlib.Path({str(tmp_path / 'called')!r}).write_text('yes')\n",
        encoding="utf-8",
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: local}\ncallback: zz_cb_sleeps:cb\n", encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(mods), os.environ.get("PYTHONPATH", "")]),
    }
    out = tmp_path / "out.jsonl"
    args = ["run", "-c", str(cfg), "--force", str(CODING), "-q", "-o", str(out)]
    code, loaded, err = _run(args, env)
    assert code == 0, err
    assert "asyncio" in loaded
    assert (tmp_path / "called").read_text() == "yes"


def test_default_sleep_without_a_loop_blocks_and_imports_no_asyncio() -> None:
    """A retry's wait in a run driven without a loop: a plain sleep of the same length."""
    code = (
        "import sys, time\n"
        "from compactor._util import run_without_loop\n"
        "from compactor.pipeline.retry import default_sleep\n"
        "t = time.monotonic()\n"
        "run_without_loop(default_sleep(0.05))\n"
        "print(round(time.monotonic() - t, 3), 'asyncio' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert proc.returncode == 0, proc.stderr
    elapsed, imported = proc.stdout.split()
    assert float(elapsed) >= 0.05
    assert imported == "False"


def test_default_sleep_in_a_loop_lets_other_tasks_run() -> None:
    """Inside an event loop the wait is still ``asyncio.sleep``: two waits of 0.2 s side by side
    take 0.2 s, not 0.4 s."""

    async def both() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.gather(default_sleep(0.2), default_sleep(0.2))
        return loop.time() - start

    assert asyncio.run(both()) < 0.35


def _phase(outcomes: list[Outcome], max_calls: int) -> tuple[Outcome, bool, list[str]]:
    """Run ``_run_phase`` without a loop on scripted outcomes; what happened, in order."""
    log: list[str] = []

    async def attempt(n: int) -> Outcome:
        log.append(f"call {n}")
        return outcomes[n - 1]

    async def go_on(response: object, error: BaseException | None) -> bool:
        log.append(f"go_on {response or error}")
        return error is not None

    async def sleep(seconds: float) -> None:
        log.append(f"sleep {seconds}")

    async def emit(event: Event) -> None:
        assert isinstance(event, RetryWait)
        log.append(f"wait event {event.attempt} {event.delay}")

    def backoff(attempt: int, response: object = None, error: object = None) -> float:
        return 0.5 * attempt

    outcome, still = run_without_loop(
        _run_phase("primary", max_calls, attempt, go_on, backoff, sleep, emit)
    )
    return outcome, still, log


def test_a_first_attempt_that_succeeds_makes_one_call_without_tenacity() -> None:
    code = (
        "import sys\n"
        "from tests.test_startup_lazy import _phase\n"
        "from compactor.pipeline.retry import Outcome\n"
        "out, still, log = _phase([Outcome(response='ok')], 4)\n"
        "print(out.response, still, log, 'tenacity' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok False ['call 1', 'go_on ok'] False"


def test_retries_after_a_failed_first_attempt_are_tenacity_s_as_before() -> None:
    """The first attempt runs before tenacity is imported; tenacity then replays it (no
    second call, no second ``go_on``), waits, announces and calls exactly as it did."""
    boom, bang = RuntimeError("boom"), RuntimeError("bang")
    outcomes = [Outcome(error=boom), Outcome(error=bang), Outcome(response="ok")]
    out, still, log = _phase(outcomes, 4)
    assert out.response == "ok"
    assert still is False
    assert log == [
        "call 1",
        "go_on boom",
        "wait event 1 0.5",
        "sleep 0.5",
        "call 2",
        "go_on bang",
        "wait event 2 1.0",
        "sleep 1.0",
        "call 3",
        "go_on ok",
    ]


def test_the_last_allowed_attempt_failing_still_wants_more() -> None:
    out, still, log = _phase([Outcome(error=RuntimeError("a")), Outcome(error=ValueError("b"))], 2)
    assert isinstance(out.error, ValueError)
    assert still is True
    assert log == ["call 1", "go_on a", "wait event 1 0.5", "sleep 0.5", "call 2", "go_on b"]
    out, still, log = _phase([Outcome(error=RuntimeError("only"))], 1)
    assert str(out.error) == "only"
    assert still is True
    assert log == ["call 1", "go_on only"]


def test_a_format_spec_defaults_as_the_dataclass_did() -> None:
    """FormatSpec is a plain class now (``compact check`` defines it on every start-up): its
    defaults are the dataclass's, each spec gets dicts of its own, and a misspelt keyword is
    still a TypeError."""
    import pytest

    from compactor.formats.base import FormatSpec

    a = FormatSpec(name="a", help="h", detect_order=1, list_order=2, family="chat")
    b = FormatSpec("a", "h", 1, 2, "chat")
    assert a == b
    with pytest.raises(TypeError):  # its dicts are unhashable, as the frozen dataclass's were
        hash(a)
    assert (a.typed, a.roles, a.streaming, a.can_append, a.agent_session) == (
        None,
        (),
        None,
        False,
        False,
    )
    assert (a.read_tool, a.record_kind, a.is_message_record) == (None, None, None)
    assert (a.patch_reduced, a.fix_appended, a.append_refused) == (None, None, None)
    assert a.call_keys == {} and a.result_keys == {}
    assert a.call_keys is not b.call_keys and a.call_keys is not a.result_keys
    c = FormatSpec("c", "h", 1, 2, "codex", roles=("user",), call_keys={"x": "id"})
    assert (c.roles, c.call_keys, c.result_keys) == (("user",), {"x": "id"}, {})
    with pytest.raises(TypeError, match="unexpected keyword argument 'rols'"):
        FormatSpec("d", "h", 1, 2, "chat", rols=("user",))  # type: ignore[call-arg]


def test_a_lazy_pattern_compiles_on_first_use_and_its_module_then_holds_the_pattern() -> None:
    import re

    namespace: dict[str, object] = {}
    exec(  # a module of its own: the stand-in rebinds the globals of the module that made it
        "import re\n"
        "from compactor._util import lazy_pattern\n"
        "WORD_RE = lazy_pattern(r'(?P<w>a+)b', re.IGNORECASE)\n"
        "ALIAS = WORD_RE\n"
        "def find(text):\n"
        "    return WORD_RE.search(text)\n",
        namespace,
    )
    stand_in = namespace["WORD_RE"]
    assert not isinstance(stand_in, re.Pattern)
    assert stand_in.pattern == "(?P<w>a+)b"  # type: ignore[attr-defined]  # read without compiling
    assert namespace["WORD_RE"] is stand_in
    find = namespace["find"]
    assert callable(find)
    assert find("xAAB").group("w") == "AA"
    real = namespace["WORD_RE"]
    assert isinstance(real, re.Pattern)
    assert real is namespace["ALIAS"]  # every global that held it
    assert (real.pattern, real.flags) == ("(?P<w>a+)b", re.compile("x", re.I).flags)
    assert stand_in.sub("-", "aab ab") == "- -"  # type: ignore[attr-defined]  # the stand-in still works


def test_a_local_run_leaves_most_summarizer_patterns_uncompiled(tmp_path: Path) -> None:
    """~380 module-level patterns of the summarizer, its facts and the run path are compiled on
    first use (``lazy_pattern``): a run on a small coding session leaves ~275 of them alone
    (~45 ms of start-up on a coding-agent transcript)."""
    code = (
        "import atexit, sys\n"
        "def report():\n"
        "    from compactor._util import _LazyPattern\n"
        "    left = sum(1 for n, m in list(sys.modules.items()) if n.startswith('compactor')\n"
        "               for v in list(vars(m).values()) if isinstance(v, _LazyPattern))\n"
        "    print(left)\n"
        "atexit.register(report)\n"
        "sys.argv = ['compact', *sys.argv[1:]]\n"
        "from compactor.cli.app import main\n"
        "main()\n"
    )
    out = tmp_path / "out.jsonl"
    args = ["run", str(CODING), "--force", "--model", "local", "--no-cache", "-q", "-o", str(out)]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
    assert int(proc.stdout.strip().splitlines()[-1]) >= 200


def test_a_module_that_imported_a_lazy_pattern_holds_the_compiled_one_after_its_first_use() -> None:
    import re

    maker: dict[str, object] = {}
    exec("from compactor._util import lazy_pattern\nX_RE = lazy_pattern('x+')\n", maker)
    user: dict[str, object] = {"X_RE": maker["X_RE"]}  # `from maker import X_RE`
    exec("def count(text):\n    return len(X_RE.findall(text))\n", user)
    other: dict[str, object] = {"X_RE": maker["X_RE"]}
    count = user["count"]
    assert callable(count)
    assert count("xx-x") == 2
    assert isinstance(user["X_RE"], re.Pattern)
    assert isinstance(maker["X_RE"], re.Pattern)  # its own module's name as well
    assert user["X_RE"] is maker["X_RE"]
    assert not isinstance(other["X_RE"], re.Pattern)  # not used there yet: still the stand-in
    assert other["X_RE"].pattern == "x+"  # type: ignore[attr-defined]


def test_importing_the_summarizer_compiles_few_patterns() -> None:
    """Importing the embedded summarizer and its facts compiles only the module-level patterns
    kept eager (held in rule tables, handed to other functions, compared by identity): 61 more
    that a run on a coding-agent transcript never used are ``lazy_pattern`` (perf63b: 133
    compiled at import before, 73 after; ~15 ms of a 3.4 s agent run)."""
    code = (
        "import re._compiler as rc\n"
        "count = [0]\n"
        "compile = rc.compile\n"
        "def counting(pattern, flags=0):\n"
        "    count[0] += 1\n"
        "    return compile(pattern, flags)\n"
        "rc.compile = counting\n"
        "import compactor.models.local, compactor.facts\n"
        "print(count[0])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip().splitlines()[-1]) <= 85

"""Generate the sample transcripts in this folder (deterministic: same bytes every run).

    python sample_transcripts/make_samples.py

Everything here is written by this script; nothing comes from a real user session.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

SYSTEM = (
    "You are a coding agent working in the repository /repo. Use the tools to read and edit "
    "files and to run commands. Keep answers short."
)


def _dump(path: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.write_text(text, encoding="utf-8")


class Chat:
    """Builds an OpenAI chat-completions transcript with paired tool calls and results."""

    def __init__(self, system: str = SYSTEM) -> None:
        self.records: list[dict[str, Any]] = [{"role": "system", "content": system}]
        self.n = 0

    def user(self, text: str) -> None:
        self.records.append({"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.records.append({"role": "assistant", "content": text})

    def tool(self, name: str, args: dict[str, Any], result: str, thought: str = "") -> None:
        self.n += 1
        call_id = f"call_{self.n:04d}"
        self.records.append(
            {
                "role": "assistant",
                "content": thought,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
        )
        self.records.append({"role": "tool", "tool_call_id": call_id, "content": result})


PARSER_PY = '''"""Parse duration strings such as "1h30m" or "45s"."""

import re

_UNITS = {"h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\\d+)([hms])")


def parse_duration(text: str) -> int:
    """Seconds in ``text``; raises ValueError for anything else."""
    total = 0
    pos = 0
    for match in _PART.finditer(text):
        if match.start() != pos:
            raise ValueError(f"bad duration: {text!r}")
        total += int(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    return total
'''

FAILING_PYTEST = """============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0
rootdir: /repo
collected 14 items

tests/test_duration.py ........F.....                                    [100%]

=================================== FAILURES ===================================
____________________________ test_rejects_trailing _____________________________

    def test_rejects_trailing():
        with pytest.raises(ValueError):
>           parse_duration("1h30x")
E           Failed: DID NOT RAISE <class 'ValueError'>

tests/test_duration.py:41: Failed
=========================== short test summary info ============================
FAILED tests/test_duration.py::test_rejects_trailing - Failed: DID NOT RAISE
========================= 1 failed, 13 passed in 0.09s =========================
"""

PASSING_PYTEST = """============================= test session starts ==============================
platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0
rootdir: /repo
collected 14 items

tests/test_duration.py ..............                                    [100%]

============================== 14 passed in 0.07s ==============================
"""


def coding_session() -> list[dict[str, Any]]:
    c = Chat()
    c.user(
        "parse_duration('1h30x') returns 5400 instead of raising. Fix it and add a test. "
        "Don't change the public signature."
    )
    c.tool("read_file", {"path": "src/durations/parser.py"}, PARSER_PY, "Let me read the parser.")
    c.tool(
        "run",
        {"cmd": "pytest -q tests/test_duration.py"},
        FAILING_PYTEST,
        "I'll run the existing tests first.",
    )
    c.say(
        "The loop never checks that the matches cover the whole string, so trailing garbage "
        "like 'x' is ignored. I'll check `pos == len(text)` after the loop and reject empty input."
    )
    c.tool(
        "edit_file",
        {
            "path": "src/durations/parser.py",
            "old": "        pos = match.end()\n    return total\n",
            "new": "        pos = match.end()\n    if pos != len(text) or not text:\n"
            '        raise ValueError(f"bad duration: {text!r}")\n    return total\n',
        },
        "ok: 1 replacement in src/durations/parser.py",
    )
    c.tool("run", {"cmd": "pytest -q tests/test_duration.py"}, PASSING_PYTEST)
    c.user("Nice. Also make sure an empty string raises, and mention it in the docstring.")
    c.tool(
        "edit_file",
        {
            "path": "src/durations/parser.py",
            "old": '    """Seconds in ``text``; raises ValueError for anything else."""',
            "new": '    """Seconds in ``text``; raises ValueError for anything else, including "".'
            '"""',
        },
        "ok: 1 replacement in src/durations/parser.py",
    )
    c.tool(
        "edit_file",
        {
            "path": "tests/test_duration.py",
            "old": "",
            "new": "\n\ndef test_rejects_empty():\n    with pytest.raises(ValueError):\n"
            '        parse_duration("")\n',
        },
        "ok: appended 4 lines to tests/test_duration.py",
    )
    c.tool("run", {"cmd": "pytest -q"}, PASSING_PYTEST.replace("14", "15"))
    c.say(
        "Done: `parse_duration` now rejects trailing characters and the empty string "
        "(src/durations/parser.py), with `test_rejects_empty` added. All 15 tests pass."
    )
    c.user("Thanks. Next, please look at why the CLI prints durations with a trailing space.")
    c.tool(
        "grep",
        {"pattern": "format_duration", "path": "src"},
        "src/durations/cli.py:12:    print(format_duration(seconds), end=' \\n')\n"
        "src/durations/format.py:3:def format_duration(seconds: int) -> str:",
    )
    c.say("Found it: cli.py prints with `end=' \\n'`. I'll change it to a plain print.")
    return c.records


SKILL_BODIES = {
    "pdf": (
        "# PDF skill\n\nUse `pdftotext -layout FILE -` to extract text. For forms, read the "
        "fields with `pdftk FILE dump_data_fields`. Never rasterize a PDF to read text. "
        "Keep page numbers in citations: (p. N).\n" + "Tip: large files: extract pages 1-5 first.\n"
    ),
    "release-notes": (
        "# Release-notes skill\n\nGroup changes by Added / Changed / Fixed / Removed. One line "
        "per change, imperative mood, link the PR as (#123). Breaking changes go first under "
        "a **Breaking** heading. Never list internal refactors.\n"
    ),
    "sql-style": (
        "# SQL style skill\n\nKeywords uppercase, one clause per line, trailing commas never, "
        "CTEs instead of nested subqueries, explicit JOIN ... ON, no SELECT *.\n"
    ),
}


def skills_session() -> list[dict[str, Any]]:
    c = Chat("You are an assistant with skills. Load a skill with the `skill` tool before use.")
    c.user("Summarize the changes in CHANGELOG-draft.pdf into release notes for v2.4.")
    c.tool("skill", {"skill": "pdf"}, SKILL_BODIES["pdf"], "I'll load the PDF skill.")
    c.tool(
        "run",
        {"cmd": "pdftotext -layout CHANGELOG-draft.pdf -"},
        "v2.4 draft\n- added --json flag to export (#812)\n- fixed crash on empty config (#815)\n"
        "- removed python 3.8 support (#820)\n- refactor storage layer (#818)\n",
    )
    c.tool("skill", {"skill": "release-notes"}, SKILL_BODIES["release-notes"])
    c.say(
        "## v2.4\n\n**Breaking**\n- Remove Python 3.8 support (#820)\n\n### Added\n"
        "- Add `--json` flag to export (#812)\n\n### Fixed\n- Fix crash on empty config (#815)"
    )
    c.user("Good. Now write the SQL that counts exports per day for the release dashboard.")
    c.tool("skill", {"skill": "sql-style"}, SKILL_BODIES["sql-style"])
    c.say(
        "```sql\nWITH exports AS (\n    SELECT\n        created_at::date AS day,\n        id\n"
        "    FROM events\n    WHERE kind = 'export'\n)\nSELECT\n    day,\n    COUNT(id) AS n\n"
        "FROM exports\nGROUP BY day\nORDER BY day\n```"
    )
    c.user("Reload the pdf skill, I updated it, and extract page 2 of the draft.")
    c.tool(
        "skill",
        {"skill": "pdf"},
        SKILL_BODIES["pdf"] + "Update: prefer `-f 2 -l 2` to select single pages.\n",
    )
    c.tool(
        "run",
        {"cmd": "pdftotext -layout -f 2 -l 2 CHANGELOG-draft.pdf -"},
        "Known issues\n- export of >1GB files is slow (#830)\n",
    )
    c.say("Page 2 lists one known issue: export of files over 1 GB is slow (#830).")
    return c.records


def _test_log(rng: random.Random, run: int, failing: list[str]) -> str:
    modules = ["api", "storage", "cache", "auth", "billing", "search", "export", "jobs"]
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0",
        "rootdir: /repo, configfile: pyproject.toml",
        "plugins: anyio-4.4.0, timeout-2.3.1, xdist-3.6.1",
        f"collected {len(modules) * 40} items",
        "",
    ]
    for mod in modules:
        for k in range(40):
            name = f"tests/{mod}/test_{mod}_{k:02d}.py::test_case_{rng.randrange(1000):03d}"
            status = "FAILED" if name.split("::")[0] in failing else "PASSED"
            lines.append(f"{name} {status} [{rng.randrange(1, 100):>3}%]")
    lines.append("")
    for f in failing:
        lines += [
            f"_______________________ {f} _______________________",
            "    def test_roundtrip(tmp_path):",
            "        store = Storage(tmp_path)",
            "        store.put('k', b'v' * 1024)",
            ">       assert store.get('k') == b'v' * 1024",
            f"E       AssertionError: assert b'' == b'vvvv...' (run {run})",
            "",
        ]
    lines.append(
        f"==== {len(failing)} failed, {len(modules) * 40 - len(failing)} passed in 41.2s ===="
    )
    return "\n".join(lines) + "\n"


STRESS_TRACEBACK = """Traceback (most recent call last):
  File "/repo/scripts/stress_storage.py", line 4, in <module>
    from hypothesis import given, settings
ModuleNotFoundError: No module named 'hypothesis'
"""

PUT_OLD = """    def put(self, key: str, data: bytes) -> None:
        fh = open(self._path(key), "wb")
        fh.write(data)
"""

PUT_NEW = """    def put(self, key: str, data: bytes) -> None:
        tmp = self._path(key).with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, self._path(key))
"""

REGRESSION_TEST = """import threading

from storage import Storage


def test_get_sees_a_finished_put(tmp_path):
    store = Storage(tmp_path)
    done = threading.Event()
    threading.Thread(target=lambda: (store.put("k", b"v" * 4096), done.set())).start()
    done.wait()
    assert store.get("k") == b"v" * 4096
"""


def _plan(c: Chat, statuses: list[str]) -> None:
    steps = [
        "Reproduce the intermittent failure",
        "Find the cause",
        "Fix it with a minimal change",
        "Run the full suite green three times in a row",
    ]
    plan = [{"step": s, "status": st} for s, st in zip(steps, statuses, strict=True)]
    c.tool("update_plan", {"plan": plan}, "Plan updated")


def coding_session_long() -> list[dict[str, Any]]:
    rng = random.Random(20260101)
    c = Chat()
    c.user(
        "The storage round-trip tests fail intermittently on CI. Find the cause and fix it; "
        "run the full suite until it is green three times in a row."
    )
    _plan(c, ["in_progress", "pending", "pending", "pending"])
    failing = ["tests/storage/test_storage_07.py", "tests/storage/test_storage_21.py"]
    run = 0
    for step in range(45):
        run += 1
        c.tool(
            "run",
            {"cmd": "pytest -p no:randomly -v"},
            _test_log(rng, run, failing if step < 38 else []),
            f"Run {run}: full suite.",
        )
        if step % 5 == 0:
            body = "".join(
                f"    def method_{i}(self, key: str) -> bytes:\n"
                f"        path = self.root / key[:2] / key\n"
                f"        return path.read_bytes() if path.exists() else b''"
                f"  # {rng.random():.6f}\n"
                for i in range(60)
            )
            c.tool(
                "read_file",
                {"path": f"src/storage/backend_{step // 5}.py"},
                "class Backend:\n" + body,
            )
        if step == 3:
            c.tool(
                "run",
                {"cmd": "python scripts/stress_storage.py --rounds 2000"},
                STRESS_TRACEBACK,
                "The suite alone is too slow to reproduce it; trying the stress script.",
            )
            c.tool(
                "run",
                {"cmd": "pip install hypothesis==6.100.1"},
                "Successfully installed hypothesis-6.100.1",
            )
            c.tool(
                "run",
                {"cmd": "python scripts/stress_storage.py --rounds 2000"},
                "round-trips: 2000\nempty reads: 14 (0.7%)\nslowest put: 48 ms",
            )
            _plan(c, ["completed", "in_progress", "pending", "pending"])
        if step == 20:
            c.user("Any progress? Keep the fix minimal, please.")
        if step == 37:
            c.say(
                "Cause: `put` writes through a buffered handle that is never flushed before "
                "`get` reads the file on CI's slower disks. Decision: fix it in `Storage.put` "
                "rather than retrying in the tests, because a retry would only hide the race."
            )
            c.tool(
                "edit_file",
                {"path": "src/storage/backend_0.py", "old": PUT_OLD, "new": PUT_NEW},
                "ok: 1 replacement in src/storage/backend_0.py",
            )
            c.tool(
                "write_file",
                {"path": "tests/storage/test_put_flush.py", "content": REGRESSION_TEST},
                "ok: wrote 11 lines",
            )
            _plan(c, ["completed", "completed", "completed", "in_progress"])
    c.say(
        "Green three times in a row after the fix in src/storage/backend_0.py: `put` now "
        "writes to a temp file and renames it with os.replace, and test_put_flush.py guards it."
    )
    _plan(c, ["completed", "completed", "completed", "completed"])
    c.user("Great, now open a PR with a short description.")
    return c.records


def agentic_session() -> list[dict[str, Any]]:
    """Anthropic Messages API turns: content blocks with tool_use / tool_result."""
    recs: list[dict[str, Any]] = []

    def user_text(t: str) -> None:
        recs.append({"role": "user", "content": [{"type": "text", "text": t}]})

    def call(i: int, name: str, inp: dict[str, Any], result: str, text: str = "") -> None:
        blocks: list[dict[str, Any]] = []
        if text:
            blocks.append({"type": "text", "text": text})
        blocks.append({"type": "tool_use", "id": f"toolu_{i:03d}", "name": name, "input": inp})
        recs.append({"role": "assistant", "content": blocks})
        recs.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i:03d}",
                        "content": [{"type": "text", "text": result}],
                    }
                ],
            }
        )

    user_text("Find out why the nightly backup job on db-2 did not run, and fix it if it is safe.")
    call(
        1,
        "bash",
        {"command": "systemctl status backup-nightly.timer"},
        "● backup-nightly.timer - Nightly DB backup\n     Loaded: loaded\n"
        "     Active: inactive (dead)\n",
        "Checking the timer first.",
    )
    call(
        2,
        "bash",
        {"command": "journalctl -u backup-nightly.service --since yesterday | tail -5"},
        "backup.sh[2211]: pg_dump: error: connection to server failed: FATAL: password "
        'authentication failed for user "backup"\nsystemd[1]: backup-nightly.service: '
        "Failed with result 'exit-code'.\n",
    )
    recs.append(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "The job ran but pg_dump failed authentication; the timer was then "
                    "disabled by the on-failure hook. The backup user's password was rotated "
                    "on Monday but /etc/backup/pgpass was not updated.",
                }
            ],
        }
    )
    user_text("The new password is in the vault at db/backup. Update pgpass and re-enable.")
    call(
        3,
        "bash",
        {"command": "vault kv get -field=password db/backup > /dev/null && echo ok"},
        "ok",
    )
    call(
        4,
        "bash",
        {"command": "install -m 600 /dev/stdin /etc/backup/pgpass < <(vault ...)"},
        "",
    )
    call(
        5,
        "bash",
        {
            "command": "systemctl enable --now backup-nightly.timer"
            " && systemctl start backup-nightly"
        },
        "Created symlink /etc/systemd/system/timers.target.wants/backup-nightly.timer.\n",
    )
    recs.append(
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "Updated /etc/backup/pgpass (mode 600), re-enabled the timer and "
                    "started a backup run manually; it completed in 4m12s.",
                }
            ],
        }
    )
    return recs


class ClaudeCode:
    """Builds a Claude Code session log: user / assistant records chained by ``parentUuid``,
    tool results as user records (``is_error`` on failures), one API response per line."""

    SESSION = "5f0c7d2e-9a41-4c55-8f0e-3b1d6a2c7e90"

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.n = 0
        self.parent: str | None = None

    def _uuid(self) -> str:
        self.n += 1
        return f"00000000-0000-4000-8000-{self.n:012d}"

    def _record(self, kind: str, message: dict[str, Any], **extra: Any) -> None:
        uid = self._uuid()
        self.records.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/repo",
                "sessionId": self.SESSION,
                "version": "2.1.100",
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": uid,
                "timestamp": f"2026-01-12T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
                **extra,
            }
        )
        self.parent = uid

    def user(self, text: str) -> None:
        self._record("user", {"role": "user", "content": text})

    def _assistant(self, block: dict[str, Any]) -> None:
        message = {
            "id": f"msg_{self.n + 1:024d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
            "usage": {"input_tokens": 4, "cache_read_input_tokens": 1800 + 40 * self.n,
                      "cache_creation_input_tokens": 120, "output_tokens": 90},
        }  # fmt: skip
        self._record("assistant", message, requestId=f"req_{self.n + 1:024d}")

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text})

    def tool(
        self, name: str, args: dict[str, Any], result: str | None, *, error: bool = False,
        text: str = "",
    ) -> None:  # fmt: skip
        if text:
            self.say(text)
        call_id = f"toolu_{self.n + 1:020d}"
        self._assistant({"type": "tool_use", "id": call_id, "name": name, "input": args})
        if result is None:
            return
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": result}
        if error:
            block["is_error"] = True
        self._record("user", {"role": "user", "content": [block]})


SEARCH_PY = """from fastapi import APIRouter, Depends

from .auth import current_user
from .index import search_index

router = APIRouter()


@router.get("/api/search")
def search(q: str, user=Depends(current_user)):
    return {"results": search_index(q, limit=20)}
"""

RATELIMIT_PY = """import time
from collections import defaultdict, deque

from fastapi import Depends, HTTPException

from .auth import current_user

WINDOW_SECONDS = 60
LIMIT = 60
_hits: dict[str, deque[float]] = defaultdict(deque)


def rate_limited(user=Depends(current_user)):
    now = time.monotonic()
    hits = _hits[user.id]
    while hits and now - hits[0] > 1:
        hits.popleft()
    if len(hits) >= LIMIT:
        raise HTTPException(status_code=429, detail="rate limit exceeded")
    hits.append(now)
    return user
"""


def claude_code_session() -> list[dict[str, Any]]:
    """A Claude Code session: a task list, a failed test run fixed later, new and edited files,
    a background server still running, and a follow-up request the agent has just started."""
    c = ClaudeCode()
    c.user(
        "Add per-user rate limiting to the /api/search endpoint: 60 requests per minute. "
        "Don't add new dependencies."
    )
    todos = [
        ("Read the search handler", "in_progress"),
        ("Add the rate limiter", "pending"),
        ("Write tests for the limit", "pending"),
        ("Document the limit in docs/api.md", "pending"),
    ]
    c.tool(
        "TodoWrite",
        {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in todos]},
        "Todos have been modified successfully.",
    )
    numbered = "".join(f"{i:6}→{line}\n" for i, line in enumerate(SEARCH_PY.splitlines(), 1))
    c.tool("Read", {"file_path": "/repo/src/api/search.py"}, numbered)
    c.tool(
        "Grep",
        {"pattern": "RateLimit|429", "path": "src", "output_mode": "content", "-n": True},
        "src/api/errors.py:12:class RateLimitError(APIError):\n"
        "src/api/errors.py:31:        raise RateLimitError('upstream returned 429')\n"
        "src/api/index.py:88:    except RateLimitError:  # error from the search backend",
    )
    c.say(
        "Decision: keep the hit counters in process memory instead of Redis, because you asked "
        "for no new dependencies; the limit therefore applies per worker."
    )
    c.tool(
        "Write",
        {"file_path": "/repo/src/api/ratelimit.py", "content": RATELIMIT_PY},
        "File created successfully at: /repo/src/api/ratelimit.py",
    )
    c.tool(
        "Edit",
        {
            "file_path": "/repo/src/api/search.py",
            "old_string": "def search(q: str, user=Depends(current_user)):",
            "new_string": "def search(q: str, user=Depends(rate_limited)):",
        },
        "The file /repo/src/api/search.py has been updated.",
    )
    todos[0], todos[1], todos[2] = (todos[0][0], "completed"), (todos[1][0], "completed"), (
        todos[2][0], "in_progress")  # fmt: skip
    c.tool(
        "TodoWrite",
        {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in todos]},
        "Todos have been modified successfully.",
    )
    c.tool(
        "Bash",
        {"command": "pytest tests/api -q", "description": "Run the API tests"},
        "Exit code 1\n.........................................F\n"
        "=================================== FAILURES ===================================\n"
        "_______________________________ test_burst_limit _______________________________\n"
        "    def test_burst_limit(client):\n"
        "        codes = [client.get('/api/search?q=x').status_code for _ in range(61)]\n"
        ">       assert codes[-1] == 429\n"
        "E       assert 200 == 429\n"
        "FAILED tests/api/test_search.py::test_burst_limit - assert 200 == 429\n"
        "1 failed, 41 passed in 3.08s",
        error=True,
    )
    c.say(
        "The root cause is the window check: old hits expire after 1 second instead of 60, so "
        "a burst spread over two seconds never reaches the limit. I changed the expiry from "
        "`1` to `WINDOW_SECONDS`."
    )
    c.tool(
        "Edit",
        {
            "file_path": "/repo/src/api/ratelimit.py",
            "old_string": "    while hits and now - hits[0] > 1:",
            "new_string": "    while hits and now - hits[0] > WINDOW_SECONDS:",
        },
        "The file /repo/src/api/ratelimit.py has been updated.",
    )
    c.tool(
        "Bash",
        {"command": "pytest tests/api -q --cov=src/api", "description": "Run the API tests"},
        ".......................................... [100%]\n"
        "---------- coverage: platform linux, python 3.12.3 -----------\n"
        "Name                  Stmts   Miss  Cover\n"
        "TOTAL                   412     25    94%\n"
        "42 passed in 3.11s",
    )
    todos[2] = (todos[2][0], "completed")
    c.tool(
        "TodoWrite",
        {"todos": [{"content": t, "status": s, "activeForm": t} for t, s in todos]},
        "Todos have been modified successfully.",
    )
    c.tool(
        "Bash",
        {"command": "uvicorn app.main:app --port 8000", "run_in_background": True,
         "description": "Start the API server"},
        "Command running in background with ID: bash_1",
    )  # fmt: skip
    c.tool(
        "Bash",
        {
            "command": "for i in $(seq 61); do curl -s -o /dev/null -w '%{http_code}\\n' "
            "localhost:8000/api/search?q=x -H 'Authorization: Bearer dev'; done | sort | "
            "uniq -c",
            "description": "Check the limit against the running server",
        },
        "     60 200\n      1 429",
    )
    c.say(
        "Done. `/api/search` is now limited to 60 requests per user per minute:\n\n"
        "- `src/api/ratelimit.py` (new): a `rate_limited` dependency that keeps the last "
        "minute of hits per user in memory and answers 429 past 60.\n"
        "- `src/api/search.py`: the endpoint depends on `rate_limited` instead of "
        "`current_user`.\n"
        "- Tests: 42 passed, coverage 94%; against the running server 60 requests got 200 "
        "and the 61st got 429.\n\n"
        "The limit is per worker process (no Redis, as asked). The dev server is still "
        "running in the background (bash_1)."
    )
    c.user("Nice. Also document the limit in docs/api.md.")
    c.tool(
        "Read",
        {"file_path": "/repo/docs/api.md"},
        None,
        text="Adding a Rate limits section to docs/api.md.",
    )
    return c.records


def small_chat() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What does `git rebase --onto A B C` do, in one sentence?"},
        {
            "role": "assistant",
            "content": "It replays the commits of C that are not in B on top of A.",
        },
        {"role": "user", "content": "And how do I undo it?"},
        {
            "role": "assistant",
            "content": "Reset to the pre-rebase commit from the reflog: "
            "`git reset --hard ORIG_HEAD` (or `C@{1}`).",
        },
    ]


def main() -> None:
    _dump(HERE / "coding-session.jsonl", coding_session())
    _dump(HERE / "skills-session.jsonl", skills_session())
    _dump(HERE / "coding-session-long.jsonl", coding_session_long())
    _dump(HERE / "agentic-session.jsonl", agentic_session())
    _dump(HERE / "small-chat.jsonl", small_chat())
    _dump(HERE / "claude-code-session.jsonl", claude_code_session())


if __name__ == "__main__":
    main()

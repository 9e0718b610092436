"""A synthetic ~80k-token coding-agent session with 20 planted facts, for the local summarizer.

:func:`planted_session` builds a deterministic Claude-Code-shaped history (content blocks, tool
results with ``is_error``) of a billing-service task: long file reads and search outputs full of
source lines that merely contain "error", passing test logs, chit-chat — and, spread over it, the
20 facts of :data:`FACTS` a resuming agent needs: user rules and requests, assistant decisions
("Decision: …", "I changed …", a root cause), tool-output facts (an error line with its exit
code, a deployment, a coverage figure, a benchmark), files created, edited and deleted, the
open task list, a background server that never finished and the request still in progress.

Each fact has the strings a summary must contain for the fact to count as kept.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from compactor.schema import AgenticMessage, Block


@dataclass(frozen=True)
class Fact:
    name: str
    needles: tuple[str, ...]
    """Every one must occur in the summary (case-sensitive)."""


FACTS: tuple[Fact, ...] = (
    Fact("user rule", ("Never run migrations against the production database",)),
    Fact("first request", ("/healthz",)),
    Fact("error line", ("psycopg2.OperationalError: could not connect to server",)),
    Fact("exit code", ("docker compose up -d db", "125")),
    Fact("fix of the exit-code error", ("docker compose up -d postgres",)),
    Fact("decision", ("use Redis for the rate limiter instead of an in-process dict",)),
    Fact("change statement", ("retry limit", "from 3 to 5")),
    Fact("root cause", ("timezone-naive datetime",)),
    Fact("file created", ("billing/healthz.py", "def healthz()")),
    Fact("file edited", ("config/settings.yaml", "timeout_seconds: 45")),
    Fact("coverage", ("92%",)),
    Fact("deployment", ("4f2a1c9", "staging.billing.example.com")),
    Fact("test result", ("148 passed",)),
    Fact("open task", ("Write the invoices backfill script",)),
    Fact("background server", ("npm run dev -- --port 5173",)),
    Fact("request in progress", ("rate-limit headers",)),
    Fact("pinned version", ("stripe==7.9.0",)),
    Fact("benchmark", ("p95 latency", "182ms")),
    Fact("file deleted", ("scripts/old_migrate.py",)),
    Fact("finding", ("STRIPE_WEBHOOK_SECRET_TEST",)),
)


class SessionBuilder:
    """Builds an AgenticMessage history: user and assistant text, tool calls with results."""

    def __init__(self) -> None:
        self.messages: list[AgenticMessage] = []
        self.n = 0
        self.rng = random.Random(4821)

    def user(self, text: str, **extra: object) -> None:
        msg = AgenticMessage("user", [Block("user_input_text", text)], extra=dict(extra))
        self.messages.append(msg)

    def say(self, text: str) -> None:
        self.messages.append(AgenticMessage("assistant", [Block("assistant_gen_text", text)]))

    def call(
        self, name: str, args: dict[str, object], result: str | None, *, text: str = "",
        error: bool = False,
    ) -> str:  # fmt: skip
        self.n += 1
        call_id = f"toolu_{self.n:04d}"
        blocks = [Block("assistant_gen_text", text)] if text else []
        blocks.append(
            Block("function_tool_call", call_id=call_id, name=name, arguments=json.dumps(args))
        )
        self.messages.append(AgenticMessage("assistant", blocks))
        if result is not None:
            content = [Block("user_input_text", result)]
            block = Block(
                "function_tool_result", call_id=call_id, name=name, content=content, is_error=error
            )
            self.messages.append(AgenticMessage("user", [block]))
        return call_id

    # -- noise -----------------------------------------------------------------------------------

    def source_file(self, module: str, lines: int = 310) -> str:
        out = [f'"""{module}: billing helpers."""', "", "import logging", "", "log = logging."]
        for i in range(lines // 6):
            out += [
                f"def {module}_step_{i}(value: int) -> int:",
                "    if value < 0:",
                f'        raise ValueError("error: negative value in step {i}")',
                "    try:",
                f"        return value * {self.rng.randrange(2, 97)}",
                "    except OverflowError as error:  # an error we log",
            ]
        return "\n".join(f"{i + 1:6}→{line}" for i, line in enumerate(out))

    def read_noise(self, module: str) -> None:
        path = f"/srv/billing/billing/{module}.py"
        self.call("Read", {"file_path": path}, self.source_file(module), text="Let me read it.")

    def grep_noise(self, word: str) -> None:
        hits = "\n".join(
            f'billing/{m}.py:{self.rng.randrange(10, 900)}:        raise {word}("failed: {m}")'
            for m in ("invoice", "client", "ledger", "tax", "refund") * 8
        )
        self.call("Bash", {"command": f"rg -n 'raise {word}' billing/"}, hits)

    def passing_log(self, count: int) -> str:
        lines = ["============================= test session starts =============================="]
        for i in range(count):
            lines.append(f"tests/test_mod_{i % 40:02d}.py::test_case_{i:03d} PASSED [{i % 100:3}%]")
        lines.append(f"================= {count} passed, 3 warnings in 12.04s =================")
        return "\n".join(lines)

    def chatter(self, topic: str) -> None:
        self.say(
            f"Looking at {topic} now. The code is spread over several modules because the "
            "service grew over time, so I will check each one before changing anything."
        )


def planted_session() -> list[AgenticMessage]:
    """The session: about 80k tokens (estimate), 20 facts of :data:`FACTS` planted in it."""
    s = SessionBuilder()
    s.user(
        "Add a `/healthz` endpoint to the billing service and pin stripe==7.9.0 in "
        "requirements.txt. Never run migrations against the production database."
    )
    s.call(
        "TodoWrite",
        {
            "todos": [
                {"content": "Add the /healthz endpoint", "status": "in_progress"},
                {"content": "Pin the stripe version", "status": "pending"},
                {"content": "Write the invoices backfill script", "status": "pending"},
            ]
        },
        "Todos have been modified successfully.",
    )
    for module in ("app", "routes", "invoice", "client"):
        s.read_noise(module)
        s.chatter(module)
    s.grep_noise("ValueError")
    s.call(
        "Write",
        {
            "file_path": "billing/healthz.py",
            "content": '"""Health check."""\n\nfrom .app import app\n\n\n@app.get("/healthz")\n'
            'def healthz() -> dict[str, str]:\n    return {"status": "ok"}\n',
        },
        "File created successfully at: billing/healthz.py",
    )
    s.call(
        "Bash",
        {"command": "docker compose up -d db"},
        "Exit code 125\nError response from daemon: no such service: db",
        error=True,
    )
    s.call(
        "Bash",
        {"command": "docker compose up -d postgres"},
        " Container billing-postgres-1  Started",
        text="The compose service is called postgres, not db.",
    )
    for module in ("ledger", "tax"):
        s.read_noise(module)
    s.call(
        "Bash",
        {"command": "pytest tests/test_invoice.py -x"},
        "Exit code 1\n" + s.passing_log(30) + "\nE   psycopg2.OperationalError: could not "
        "connect to server: Connection refused\nFAILED tests/test_invoice.py::test_due - "
        "psycopg2.OperationalError\n==== 1 failed, 30 passed in 3.10s ====",
        error=True,
    )
    s.say(
        "The database container was still starting. While waiting I traced the due-date bug: "
        "the root cause was a timezone-naive datetime in invoice_due_date(), compared with an "
        "aware one from Stripe."
    )
    for module in ("refund", "webhooks", "models"):
        s.read_noise(module)
        s.chatter(module)
    s.grep_noise("KeyError")
    s.call(
        "Edit",
        {
            "file_path": "config/settings.yaml",
            "old_string": "http:\n  timeout_seconds: 30\n",
            "new_string": "http:\n  timeout_seconds: 45\n",
        },
        "The file config/settings.yaml has been updated.",
    )
    s.say("I changed the retry limit in billing/client.py from 3 to 5, as the upstream asks.")
    s.call(
        "Edit",
        {
            "file_path": "billing/client.py",
            "old_string": "MAX_RETRIES = 3",
            "new_string": "MAX_RETRIES = 5",
        },
        "The file billing/client.py has been updated.",
    )
    for module in ("ratelimit", "middleware"):
        s.read_noise(module)
    s.say(
        "Decision: use Redis for the rate limiter instead of an in-process dict, so that the "
        "four workers share one budget."
    )
    s.call(
        "Bash",
        {"command": "pytest --cov=billing -q"},
        s.passing_log(148).replace("148 passed, 3 warnings", "148 passed, 2 skipped")
        + "\n---------- coverage: platform linux, python 3.11.9 ----------\n"
        "Name    Stmts   Miss  Cover\nTOTAL    1234     98    92%",
    )
    for module in ("reports", "exports", "tasks"):
        s.read_noise(module)
        s.chatter(module)
    s.call("Bash", {"command": "rm scripts/old_migrate.py"}, "")
    s.call(
        "Bash", {"command": "python bench/healthz_bench.py"}, "requests: 5000\np95 latency: 182ms"
    )
    s.call(
        "Bash",
        {"command": "./deploy.sh staging"},
        "Building image...\nPushing image...\nDeployed build 4f2a1c9 to "
        "https://staging.billing.example.com\nHealth check passed",
    )
    s.say(
        "I found that the webhook handler verified signatures with STRIPE_WEBHOOK_SECRET_TEST "
        "in every environment; staging now reads the right secret."
    )
    s.grep_noise("RuntimeError")
    for module in ("audit", "currency", "schemas", "admin", "cli", "jobs"):
        s.read_noise(module)
    s.call(
        "TodoWrite",
        {
            "todos": [
                {"content": "Add the /healthz endpoint", "status": "completed"},
                {"content": "Pin the stripe version", "status": "completed"},
                {"content": "Write the invoices backfill script", "status": "pending"},
            ]
        },
        "Todos have been modified successfully.",
    )
    s.call(
        "Bash",
        {"command": "npm run dev -- --port 5173", "run_in_background": True},
        "Command running in background with ID: bash_3",
        text="Starting the dashboard so you can see the health badge.",
    )
    for module in ("dashboard", "api_client"):
        s.read_noise(module)
    s.user("Also add rate-limit headers to the API responses.")
    s.say("Adding the rate-limit headers in the middleware now.")
    s.call("Read", {"file_path": "billing/middleware.py"}, None)
    return s.messages

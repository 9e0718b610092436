"""Deterministically generate a large OpenAI-chat JSONL transcript for the benchmarks.

    python bench/gen_transcript.py OUT --mb 60 [--seed 1] [--usage] [--shape agent]

One JSON message per line. The default shape (``agent``): a system prompt, then turns of user
requests, assistant replies with ``tool_calls`` (read_file / run_shell / search / edit_file), and
tool results holding source files, build and test logs, JSON payloads and prose, in several
languages and scripts. Other shapes (issue 28 point 7):

* ``paths``: a chat log whose every sentence names file paths (``src/app.py``, absolute, dotted,
  Windows, ``path:line``), identifiers and backticks; user and assistant messages of 1-4 KB.
* ``tools``: few words, long tool outputs (10-200 KB): ``grep -n`` hits, compiler diagnostics,
  directory listings, tracebacks, logs, test runs.
* ``tiny``: about a million messages of a few words each (~48 bytes a line).

The same arguments always give byte-identical output.
"""

from __future__ import annotations

import argparse
import json
import random
import string
from pathlib import Path

WORDS = (
    "the of and to in is that for it as with was on be by this are or from at which an have "
    "not they but all were we can when there been has more if will one their would what so "
    "about into out up them some could other than then now only its time may these two first "
    "config parser token window summary context agent transcript request response retry cache "
    "buffer stream session compact threshold message tool result error warning value function "
    "module import return class method test assert build deploy server client handler queue"
).split()
IDENTS = (
    "parse_config load_state write_output count_tokens summarize_history retry_request "
    "build_index render_table handle_event open_stream flush_buffer resolve_path check_limits "
    "apply_patch run_tests collect_stats merge_results"
).split()
FOREIGN = [
    "Der Kontext wird zusammengefasst, sobald das Limit erreicht ist.",
    "Le résumé remplace les anciens messages de la conversation.",
    "上下文窗口已满，需要压缩历史记录。",
    "コンテキストが長すぎるため、要約を作成します。",
    "컨텍스트 창이 가득 찼습니다. 요약을 생성합니다.",
    "Контекст слишком длинный, создаём краткое содержание.",
    "السياق طويل جدًا، سيتم إنشاء ملخص.",
    "Emoji check 🚀✅🧠 — “quotes” and ‘apostrophes’ … ok",
]
SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>", "<|im_start|>"]
TOOLS = ("read_file", "run_shell", "search", "edit_file")
SHAPES = ("agent", "paths", "tools", "tiny")


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice(".!?.")


def prose(rng: random.Random, sentences: int) -> str:
    parts = [sentence(rng, rng.randint(6, 22)) for _ in range(sentences)]
    if rng.random() < 0.2:
        parts.append(rng.choice(FOREIGN))
    if rng.random() < 0.05:
        parts.append(f"The literal {rng.choice(SPECIALS)} marker appears in the text.")
    return " ".join(parts)


def python_file(rng: random.Random, functions: int) -> str:
    lines = ['"""Generated module."""', "", "from __future__ import annotations", ""]
    lines.append("import json\nimport os\nfrom pathlib import Path\n")
    for _ in range(functions):
        name = rng.choice(IDENTS) + f"_{rng.randint(0, 999)}"
        arg = rng.choice(["path", "value", "items", "config", "limit"])
        lines.append(f"def {name}({arg}: object, *, strict: bool = False) -> int:")
        lines.append(f'    """{sentence(rng, rng.randint(5, 12))}"""')
        for _ in range(rng.randint(2, 8)):
            var = rng.choice(["total", "count", "result", "offset", "size"])
            expr = rng.choice(
                [
                    f"len(str({arg})) * {rng.randint(1, 64)}",
                    f"{var} + {rng.randint(1, 4096)}",
                    f"int(os.environ.get('{var.upper()}_MAX', '{rng.randint(1, 99)}'))",
                    f"sum(ord(c) for c in repr({arg}))",
                ]
            )
            lines.append(f"    {var} = {expr}")
        lines.append(f"    if strict and {arg} is None:")
        lines.append(f"        raise ValueError(f'{{{arg}!r}} is not allowed')")
        lines.append("    return total if 'total' in dir() else 0")
        lines.append("")
    return "\n".join(lines) + "\n"


def log_output(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        level = rng.choice(["INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"])
        stamp = f"2026-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
        stamp += f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"
        mod = rng.choice(IDENTS)
        msg = sentence(rng, rng.randint(4, 14))
        out.append(f"{stamp} {level:<7} [{mod}:{rng.randint(1, 900)}] {msg} (req={i:06d})")
        if level == "ERROR" and rng.random() < 0.5:
            out.append("Traceback (most recent call last):")
            out.append(f'  File "/srv/app/{mod}.py", line {rng.randint(1, 500)}, in {mod}')
            out.append(f"    raise RuntimeError('{sentence(rng, 5)}')")
            out.append("RuntimeError: " + sentence(rng, 6))
    return "\n".join(out)


def test_output(rng: random.Random, tests: int) -> str:
    out = ["============================= test session starts =============================="]
    out.append("platform linux -- Python 3.11.9, pytest-9.2.0, pluggy-1.6.0")
    passed = failed = 0
    for _ in range(tests):
        name = f"tests/test_{rng.choice(IDENTS)}.py::test_{rng.choice(IDENTS)}"
        if rng.random() < 0.08:
            failed += 1
            out.append(f"{name} FAILED")
        else:
            passed += 1
            out.append(f"{name} PASSED")
    out.append(f"{'=' * 20} {failed} failed, {passed} passed in 3.21s {'=' * 20}")
    return "\n".join(out)


def json_payload(rng: random.Random, items: int) -> str:
    data = {
        "status": "ok",
        "items": [
            {
                "id": "".join(rng.choices(string.ascii_lowercase + string.digits, k=12)),
                "name": rng.choice(IDENTS),
                "score": round(rng.random() * 100, 3),
                "tags": rng.sample(WORDS, 3),
                "note": sentence(rng, rng.randint(3, 9)),
            }
            for _ in range(items)
        ],
    }
    return json.dumps(data, indent=rng.choice([None, 2]), ensure_ascii=rng.random() < 0.5)


def tool_call(rng: random.Random, turn: int, k: int) -> tuple[dict[str, object], str]:
    tool = rng.choice(TOOLS)
    call_id = f"call_{turn:06d}_{k}"
    if tool == "read_file":
        args = {"path": f"src/{rng.choice(IDENTS)}.py"}
        result = python_file(rng, rng.randint(2, 14))
    elif tool == "run_shell":
        if rng.random() < 0.5:
            args = {"cmd": "pytest -q tests/", "timeout": 600}
            result = test_output(rng, rng.randint(10, 120))
        else:
            args = {"cmd": f"tail -n 200 /var/log/{rng.choice(IDENTS)}.log"}
            result = log_output(rng, rng.randint(20, 200))
    elif tool == "search":
        args = {"query": " ".join(rng.sample(WORDS, 3)), "limit": 20}
        result = json_payload(rng, rng.randint(3, 30))
    else:
        args = {
            "path": f"src/{rng.choice(IDENTS)}.py",
            "old": python_file(rng, 1),
            "new": python_file(rng, 1),
        }
        result = "Applied 1 edit.\n" + prose(rng, 1)
    call = {"id": call_id, "type": "function", "function": {"name": tool, "arguments": ""}}
    call["function"]["arguments"] = json.dumps(args)  # type: ignore[index]
    return call, result


DIRS = (
    "src",
    "src/app",
    "src/app/models",
    "lib",
    "tests",
    "scripts",
    "docs",
    "pkg/core",
    "cmd/server",
)
STEMS = ("app", "main", "models", "views", "utils", "config", "server", "client", "db", "cli")
EXTS = ("py", "ts", "go", "rs", "md", "json", "yaml", "toml", "sh", "js")


def a_path(rng: random.Random) -> str:
    kind = rng.random()
    name = f"{rng.choice(STEMS)}.{rng.choice(EXTS)}"
    if kind < 0.3:
        return "src/app.py"
    if kind < 0.55:
        return f"{rng.choice(DIRS)}/{name}"
    if kind < 0.7:
        return f"/home/dev/project/{rng.choice(DIRS)}/{name}"
    if kind < 0.8:
        return f"./{rng.choice(DIRS)}/{name}:{rng.randint(1, 900)}"
    if kind < 0.87:
        return name
    if kind < 0.93:
        return f"C:\\Users\\dev\\project\\{name}"
    return f"`{rng.choice(DIRS)}/{name}`"


def path_prose(rng: random.Random, sentences: int) -> str:
    parts = []
    for _ in range(sentences):
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 16))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words) + 1), a_path(rng))
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), f"{rng.choice(IDENTS)}()")
        if rng.random() < 0.15:
            words.insert(rng.randrange(len(words) + 1), "src.app.models.User")
        words[0] = words[0].capitalize()
        parts.append(" ".join(words) + rng.choice(".!?.") + rng.choice(["", "", "\n"]))
    return " ".join(parts)


def grep_output(rng: random.Random, lines: int) -> str:
    out = []
    for _ in range(lines):
        kind = rng.random()
        where = f"{rng.choice(DIRS)}/{rng.choice(STEMS)}.{rng.choice(EXTS)}"
        if kind < 0.5:
            out.append(f"{where}:{rng.randint(1, 2000)}:    {rng.choice(IDENTS)}(config, path)")
        elif kind < 0.7:
            code = f"E{rng.randint(100, 999):04d}"
            msg = sentence(rng, rng.randint(3, 8))
            out.append(f"{where}:{rng.randint(1, 900)}:{rng.randint(1, 80)}: error[{code}]: {msg}")
        elif kind < 0.85:
            out.append(f"-rw-r--r-- 1 dev dev {rng.randint(10, 99999):>6} Nov 12 10:41 {where}")
        else:
            out.append(f'  File "/srv/app/{where}", line {rng.randint(1, 500)}, in handle')
    return "\n".join(out)


def _agent_turns(
    rng: random.Random, turn: int, usage: bool, tokens: list[int]
) -> list[dict[str, object]]:
    recs: list[dict[str, object]] = [{"role": "user", "content": prose(rng, rng.randint(1, 6))}]
    for _step in range(rng.randint(1, 4)):
        calls = [tool_call(rng, turn, k) for k in range(rng.choice([1, 1, 1, 2, 3]))]
        msg: dict[str, object] = {
            "role": "assistant",
            "content": prose(rng, rng.randint(0, 3)),
            "tool_calls": [c for c, _ in calls],
        }
        if usage:
            tokens[0] += rng.randint(500, 5_000)
            msg["usage"] = {"total_tokens": tokens[0]}
        recs.append(msg)
        for call, result in calls:
            name = call["function"]["name"]  # type: ignore[index]
            recs.append(
                {"role": "tool", "tool_call_id": call["id"], "name": name, "content": result}
            )
    recs.append({"role": "assistant", "content": prose(rng, rng.randint(2, 10))})
    return recs


def _path_turns(rng: random.Random, turn: int) -> list[dict[str, object]]:
    recs: list[dict[str, object]] = []
    for _ in range(rng.randint(1, 3)):
        recs.append({"role": "user", "content": path_prose(rng, rng.randint(3, 12))})
        recs.append({"role": "assistant", "content": path_prose(rng, rng.randint(8, 30))})
    return recs


def _tool_turns(rng: random.Random, turn: int) -> list[dict[str, object]]:
    recs: list[dict[str, object]] = [{"role": "user", "content": sentence(rng, 8)}]
    for k in range(rng.randint(1, 3)):
        call_id = f"call_{turn:06d}_{k}"
        kind = rng.random()
        if kind < 0.5:
            args = {"cmd": f"grep -rn {rng.choice(IDENTS)} ."}
            result = grep_output(rng, rng.randint(100, 2500))
        elif kind < 0.7:
            args = {"cmd": "tail -n 2000 /var/log/app.log"}
            result = log_output(rng, rng.randint(100, 1500))
        elif kind < 0.85:
            args = {"cmd": "pytest -q tests/"}
            result = test_output(rng, rng.randint(100, 1500))
        else:
            args = {"query": " ".join(rng.sample(WORDS, 3))}
            result = json_payload(rng, rng.randint(50, 600))
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": "run_shell", "arguments": json.dumps(args)},
        }
        recs.append({"role": "assistant", "content": "", "tool_calls": [call]})
        recs.append(
            {"role": "tool", "tool_call_id": call_id, "name": "run_shell", "content": result}
        )
    recs.append({"role": "assistant", "content": sentence(rng, 12)})
    return recs


TINY_USER = ("ok", "go on", "yes", "run the tests", "thanks", "fix it", "and src/app.py?", "next")
TINY_ASSISTANT = ("Done.", "Running them now.", "All pass.", "Fixed.", "OK", "Edited app.py.")


def _tiny_turns(rng: random.Random, turn: int) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": rng.choice(TINY_USER)},
        {"role": "assistant", "content": rng.choice(TINY_ASSISTANT)},
    ]


def generate(out: Path, megabytes: float, seed: int, usage: bool, shape: str = "agent") -> int:
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    written = 0
    lines = 0
    total_tokens = 2_000

    def emit(fh: object, rec: dict[str, object]) -> None:
        nonlocal written, lines
        data = (json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8")
        fh.write(data)  # type: ignore[attr-defined]
        written += len(data)
        lines += 1

    with out.open("wb") as fh:
        system = "You are a careful coding agent. " + prose(rng, 30)
        emit(fh, {"role": "system", "content": system})
        turn = 0
        tokens = [total_tokens]
        while written < target:
            turn += 1
            if shape == "paths":
                recs = _path_turns(rng, turn)
            elif shape == "tools":
                recs = _tool_turns(rng, turn)
            elif shape == "tiny":
                recs = _tiny_turns(rng, turn)
            else:
                recs = _agent_turns(rng, turn, usage, tokens)
            for rec in recs:
                emit(fh, rec)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=60.0, help="target size in MiB")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--usage", action="store_true", help="add usage.total_tokens")
    parser.add_argument("--shape", choices=SHAPES, default="agent")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    lines = generate(args.out, args.mb, args.seed, args.usage, args.shape)
    size = args.out.stat().st_size
    print(f"wrote {args.out}: {size / 1024 / 1024:.1f} MiB, {lines} messages (seed {args.seed})")


if __name__ == "__main__":
    main()

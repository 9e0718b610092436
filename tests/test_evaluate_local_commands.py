"""``compact eval`` after blind check 10: the CLI's own commands and their output are not user
requests, and a long in-flight command shortened by the summary counts when its head is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.runs.evaluate import evaluate_files

from .test_evaluate import SESSION, _call, _compacted, _eval, _flat, _write

EXIT = (
    "<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n"
    "            <command-args></command-args>"
)
COMPACT = (
    "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
    "<command-args>keep the loader API</command-args>"
)
STDOUT = "<local-command-stdout>Goodbye!</local-command-stdout>"
REVIEW = (
    "<command-name>/review-pr</command-name>\n<command-message>review-pr</command-message>\n"
    "<command-args>check the retry in loader.py for races</command-args>"
)


def _by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["categories"]}


def test_cli_commands_and_their_output_are_not_requests(tmp_path: Path) -> None:
    session = [
        *SESSION[:-1],
        {"role": "user", "content": COMPACT},
        {"role": "user", "content": STDOUT},
        SESSION[-1],
        {"role": "user", "content": EXIT},
        {"role": "user", "content": STDOUT},
    ]
    original = _write(tmp_path / "s.jsonl", session)
    full = _compacted(tmp_path / "c.jsonl", _flat(SESSION))  # the real requests, no markup
    run = _eval("--json", str(original), str(full))
    assert run.returncode == 0, run.stderr
    cats = _by_name(json.loads(run.stdout))
    current = cats["current request"]["items"]
    assert [i["text"] for i in current] == [
        "Also bump the package to version 2.4.1 in pyproject.toml."
    ]
    assert current[0]["kept"] is True
    listed = [i["text"] for i in cats["user requests"]["items"]]
    assert len(listed) == 2 and not any("command" in t or "/exit" in t for t in listed), listed
    assert cats["user requests"]["score"] == 100.0


def test_a_slash_command_with_arguments_that_asks_for_work_stays_a_request(
    tmp_path: Path,
) -> None:
    session = [*SESSION, {"role": "user", "content": REVIEW}]
    original = _write(tmp_path / "s.jsonl", session)
    lost = _compacted(tmp_path / "lost.jsonl", _flat(SESSION))
    kept = _compacted(
        tmp_path / "kept.jsonl",
        _flat(SESSION) + "\n/review-pr check the retry in loader.py for races",
    )
    low = evaluate_files(str(original), str(lost))
    high = evaluate_files(str(original), str(kept))
    now_low = next(c for c in low.categories if c.name == "current request")
    now_high = next(c for c in high.categories if c.name == "current request")
    assert now_low.items[0].text == "/review-pr check the retry in loader.py for races"
    assert not now_low.items[0].kept and now_high.items[0].kept


LONG = (
    "git status >/dev/null 2>&1 || true; if [ ! -d .git ]; then git init >/dev/null; fi; "
    "cat > .gitignore <<'EOF'\nnode_modules/\ntarget/\nEOF\n"
    "python - <<'PY'\nfrom pathlib import Path\ntext = Path('AGENTS.md').read_text()\n"
    "Path('AGENTS.md').write_text(text + '\\n- Use apply_patch for manual edits.\\n')\nPY\n"
    "git add -A && git commit -qm 'Initial commit: kernel, UI and workflow notes' >/dev/null"
)


def _in_flight(tmp_path: Path, summary: str) -> dict[str, dict[str, Any]]:
    session = [
        *SESSION[:-1],
        {"role": "assistant", "content": "Initializing the repository.",
         "tool_calls": [_call("c9", "shell", {"command": LONG})]},
    ]  # fmt: skip
    original = _write(tmp_path / "s.jsonl", session)
    compacted = _compacted(tmp_path / "c.jsonl", _flat(SESSION[:-1]) + "\n" + summary)
    run = _eval("--json", str(original), str(compacted))
    assert run.returncode == 0, run.stderr
    return _by_name(json.loads(run.stdout))


def test_a_shortened_in_flight_command_counts_when_its_head_is_kept(tmp_path: Path) -> None:
    flat = " ".join(LONG.split())
    shortened = flat[:120] + " … " + flat[-40:]
    cats = _in_flight(tmp_path, f"In flight: shell: {shortened}")
    for name in ("in flight", "last action"):
        item = cats[name]["items"][0]
        assert item["kept"] is True and item["how"] == "its head", item


def test_an_in_flight_command_without_its_head_is_not_kept(tmp_path: Path) -> None:
    flat = " ".join(LONG.split())
    cats = _in_flight(tmp_path, f"In flight: shell: … {flat[-60:]}")  # only the tail
    item = cats["in flight"]["items"][0]
    assert item["kept"] is False and item["how"] != "its head", item
    cats = _in_flight(tmp_path, "In flight: shell: git status")  # the program alone
    assert cats["in flight"]["items"][0]["kept"] is False

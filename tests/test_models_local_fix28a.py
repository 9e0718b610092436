"""Re-judged shared goldens (issue 28, rows 1270-1289): what a resuming agent was misled by -
an approved call said to wait, one file under two paths, a self-correction as the only
decision, a file ``install`` wrote missing, the facts a mid-work round read, the numbered items
a user's choice names. Sessions are built here, by shape, with invented content."""

from __future__ import annotations

import json
from typing import Any

from compactor.facts.destwrites import dest_writes
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_readfacts import read_fact

from .cc_session import Session
from .codex_rollout import rec
from .test_models_local_session import section

# -- W4: a file a shell command writes through its destination argument ---------------------------


def test_install_dd_and_rsync_name_the_file_they_write() -> None:
    assert dest_writes("install -m 600 /dev/stdin /srv/app/secret < <(vault read x)".split()) == [
        "/srv/app/secret"
    ]
    assert dest_writes(["install", "-D", "out/tool.bin", "/opt/tool/bin/tool"]) == [
        "/opt/tool/bin/tool"
    ]
    assert dest_writes(["install", "-t", "/opt/bin", "a.sh", "b.sh"]) == [
        "/opt/bin/a.sh",
        "/opt/bin/b.sh",
    ]
    assert dest_writes(["sudo", "install", "-m", "644", "x.conf", "/etc/x.conf"]) == ["/etc/x.conf"]
    assert dest_writes(["install", "-d", "/var/lib/app"]) == []  # a folder
    assert dest_writes(["dd", "if=/dev/zero", "of=disk.img", "bs=1M"]) == ["disk.img"]
    assert dest_writes(["dd", "if=img.iso", "of=/dev/sdb"]) == []  # a device
    assert dest_writes(["rsync", "-av", "notes.md", "backup/notes.md"]) == ["backup/notes.md"]
    assert dest_writes(["rsync", "-a", "src/", "host:/srv/"]) == []  # a folder, remote


def test_a_file_install_wrote_is_a_change_not_no_file_changed() -> None:
    s = Session()
    s.user("The new token is in the vault at svc/relay. Update the relay credentials file.")
    s.call("Bash", {"command": "install -m 600 /dev/stdin /etc/relay/creds < <(vault read x)"}, "")
    s.say("Updated /etc/relay/creds (mode 600).")
    files = section(s.summary(), 3)
    assert "/etc/relay/creds" in files
    assert "No file was created, edited or deleted" not in files


# -- W3: a self-correction is no decision ----------------------------------------------------------


def test_a_self_correction_is_no_decision_but_a_cause_is() -> None:
    s = Session()
    s.user("The total is off by one for 0.5 values; fix it in src/calc/totals.py.")
    s.call("Read", {"file_path": "/home/dev/board/src/calc/totals.py"}, "1\treturn int(x)\n")
    s.say(
        "My edit command did not use the proper indentation, Let's fix that and make sure to "
        "use the proper indentation this time."
    )
    s.call(
        "Edit",
        {
            "file_path": "/home/dev/board/src/calc/totals.py",
            "old_string": "return int(x)",
            "new_string": "return int(round(x))",
        },
        "The file has been updated.",
    )
    s.say("I made a mistake earlier in the test command. Let me try again with the right path.")
    s.say("The cause was truncation: int() drops the fraction, so 344.5 became 344.")
    s.call("Bash", {"command": "python check.py"}, "345")
    decisions = section(s.summary(), 5)
    assert "int() drops the fraction" in decisions
    assert "proper indentation" not in decisions
    assert "I made a mistake" not in decisions
    assert "Let me try again" not in decisions


# -- W2: one file under one name, a relative read resolved against the session's directory --------


def _chat_call(n: int, name: str, args: dict[str, Any], out: str, text: str = "") -> list[bytes]:
    function = {"name": name, "arguments": json.dumps(args)}
    call: dict[str, Any] = {"id": f"call_{n}", "type": "function", "function": function}
    return [
        json.dumps({"role": "assistant", "content": text, "tool_calls": [call]}).encode(),
        json.dumps({"role": "tool", "tool_call_id": f"call_{n}", "content": out}).encode(),
    ]


def test_a_relative_read_and_an_absolute_edit_of_one_file_are_one_entry() -> None:
    prompt = "\n(Open file: {})\n(Current directory: /work/repo)\nbash-$"
    lines = [
        json.dumps({"role": "system", "content": "You are an autonomous programmer."}).encode(),
        json.dumps({"role": "user", "content": "Fix the rounding in the duration field."}).encode(),
        *_chat_call(
            1,
            "find_file",
            {"file_name": "durations.py"},
            "Found 1 matches in /work/repo/"
            "lib:\n/work/repo/lib/durations.py" + prompt.format("n/a"),
        ),
        *_chat_call(
            2,
            "open",
            {"path": "lib/durations.py"},
            "[File: lib/durations.py (90 lines "
            "total)]\n41:    return int(secs / unit)"
            + prompt.format("/work/repo/lib/durations.py"),
        ),
        *_chat_call(
            3,
            "edit",
            {"search": "int(secs / unit)", "replace": "int(round(secs / unit))"},
            "Text replaced.\n[File: /work/repo/lib/durations.py (90 lines total)]\n41:    "
            "return int(round(secs / unit))" + prompt.format("/work/repo/lib/durations.py"),
        ),
        *_chat_call(
            4,
            "open",
            {"path": "setup.cfg"},
            "[File: setup.cfg (20 lines total)]\n1:"
            "[metadata]" + prompt.format("/work/repo/setup.cfg"),
        ),
    ]
    raw = b"\n".join(lines) + b"\n"
    files = section(summarize_transcript(read_transcript("s.jsonl", raw).messages), 3)
    assert "/work/repo/lib/durations.py (edited" in files
    read = next(line for line in files.splitlines() if "Read, not changed" in line)
    assert "durations.py" not in read  # the edited file, not also "not changed"
    assert "setup.cfg" in read


# -- W1: an escalated call a later record approved is not waiting for approval ------------------


def _escalated(key: str, command: str, prefix: list[str], why: str) -> dict[str, Any]:
    args = {
        "cmd": command,
        "workdir": "/w/site",
        "sandbox_permissions": "require_escalated",
        "justification": why,
        "prefix_rule": prefix,
    }
    item = {"type": "function_call", "name": "exec_command", "arguments": json.dumps(args)}
    return rec("response_item", {**item, "call_id": key})


def test_an_escalated_call_a_later_record_approved_is_not_waiting() -> None:
    records = [
        rec("session_meta", {"id": "1a2b3c4d-0000-4000-8000-000000000028", "cwd": "/w/site"}),
        rec("turn_context", {"cwd": "/w/site"}),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "publish the release notes"}],
            },
        ),
        _escalated(
            "call_1",
            "bash /opt/tools/publish.sh notes.md",
            ["bash", "/opt/tools/publish.sh"],
            "Allow publishing the notes?",
        ),
        _escalated("call_2", "git remote -v", ["git", "remote"], "Allow reading the remote URL?"),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [
                    {
                        "type": "input_text",
                        "text": "Approved command prefix saved:\n"
                        '- ["bash", "/opt/tools/publish.sh"]',
                    }
                ],
            },
        ),
    ]
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    pending = section(summarize_transcript(read_transcript("r.jsonl", raw).messages), 7)
    publish = next(line for line in pending.splitlines() if "publish.sh" in line)
    remote = next(line for line in pending.splitlines() if "git remote -v" in line)
    assert "the user approved it" in publish and "waits for" not in publish
    assert "waits for the user's approval" in remote  # no approval names it


# -- M2: a choice by number names the items it picks -----------------------------------------


def test_a_choice_by_number_names_the_items_of_the_list_it_answers() -> None:
    s = Session()
    s.user("what gaps do you see in the lending space?")
    s.say(
        "Here are the gaps I found:\n\n**1. Fixed-rate vaults** — nobody ships them\n"
        "**2. Invoice factoring for freelancers**\n**3. Cross-chain collateral registry**\n"
        "**4. Credit scores from payroll data** — regulatory risk\n\nWhich ones should I dig into?"
    )
    s.user("ok now ditch number 2 and 4.")
    s.say("Dropped them; focusing on 1 and 3.")
    decisions = section(s.summary(), 5)
    line = next(x for x in decisions.splitlines() if "Decided by the user" in x)
    assert "2: Invoice factoring for freelancers" in line
    assert "4: Credit scores from payroll data" in line
    assert "Fixed-rate" not in line


# -- M1: the facts a context-gathering read established survive ------------------------------


def test_what_context_reads_established_is_kept_for_the_work_in_flight() -> None:
    s = Session()
    s.user("draft the grant application for this project; repo link and proof of work included")
    s.call(
        "Bash",
        {"command": "git remote -v"},
        "origin\thttps://git.example.org/ana/tidepool.git "
        "(fetch)\norigin\thttps://git.example.org/ana/tidepool.git (push)\n",
    )
    s.call(
        "Bash",
        {"command": "git log --oneline -5"},
        "4be91c2 feat: tide tables offline\n77aa010 fix: chart axis\n0c1d2e3 docs: usage\n",
    )
    s.call(
        "Bash",
        {"command": "cat package.json"},
        json.dumps(
            {"name": "tidepool", "version": "2.3.1", "description": "Offline tide charts"}, indent=2
        ),
    )
    s.call(
        "Bash",
        {"command": "cat README.md"},
        "# Tidepool\n\n[![ci](https://img.shields.io/b"
        "adge/ci-green)](https://x)\nLive at https://tidepool.example.org and docs.\n",
    )
    s.call("Bash", {"command": "git status --short"}, " M src/tides.ts\n?? notes/\n")
    for n in range(14):  # later rounds of other work push the reads out of the call list
        s.call("Bash", {"command": f"ls docs/part{n}"}, f"page{n}.md\n")
    key = f"toolu_{s.n:04d}"
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": key,
                "name": "Bash",
                "input": {"command": "python draft.py > application.md"},
            }
        ]
    )
    text = s.summary()
    assert "https://git.example.org/ana/tidepool.git" in text
    assert "4be91c2 feat: tide tables offline (3 listed)" in text
    assert "name tidepool, version 2.3.1, description Offline tide charts" in text
    assert "title Tidepool" in text and "https://tidepool.example.org" in text
    assert "img.shields.io" not in text
    assert "untracked (not committed): notes/; changed, not committed: src/tides.ts (M)" in text


def test_read_facts_by_shape() -> None:
    full = "commit 0123456789abcdef0123\nAuthor: A <a@x>\nDate:   Mon\n\n    fix: the sum\n"
    assert read_fact("git log -1", full) == "latest commit 0123456789ab fix: the sum"
    toml = '[project]\nname = "tidecalc"\nversion = "0.4.0"\n'
    assert read_fact("cat pyproject.toml", toml) == "pyproject.toml: name tidecalc, version 0.4.0"
    assert (
        read_fact("git rev-parse --abbrev-ref HEAD", "release/2.3\n")
        == "git rev-parse: release/2.3"
    )
    assert read_fact("cat notes.txt", "https://x.example.org\n") == ""  # no fact of a known shape
    assert read_fact("git remote get-url origin", "git@host:a/b.git\n") == ""  # not a URL line

"""Blind check 10's wrong statements in the local summary (issue 28, quality pass 9), each on a
session built here by shape: a failure retried inside a later ``&&`` chain is retried; a
background job that only "exited" (or whose output shows success) did not fail; a listing's
result is its head, not its last lines; a file a script in a shell call wrote is changed."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1. a failed command retried as one part of a later `&&` chain ------------------------------


def _font_session(later: str, result: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("install the Maple Mono NF CN font and set it in the terminal config")
    s.call(
        "exec_command",
        {"cmd": 'fontlist +list-fonts 2>/dev/null | rg -i "Maple Mono|NF CN"'},
        "Process exited with code 2\nOutput:\n",  # (exit 1 alone: rg found no match, no failure)
        error=True,
    )
    s.say("The font is not installed yet. Installing it.")
    s.call("exec_command", {"cmd": later}, result)
    s.say("The font is installed and listed.")
    return s


def test_a_failure_retried_inside_a_later_chain_is_fixed_not_left_unretried() -> None:
    later = (
        "brew install --cask font-maple-mono && fontlist +list-fonts 2>/dev/null | "
        "rg -i 'Maple Mono|NF CN' | sed -n '1,40p'"
    )
    s = _font_session(later, "Process exited with code 0\nOutput:\nMaple Mono NF CN Bold\n")
    errors = section(summarize_transcript(s.messages), 4)
    assert "fontlist +list-fonts" in errors, errors
    assert "Not retried afterwards" not in errors, errors
    assert "Fixed: a later `exec_command: brew install" in errors, errors


def test_a_chain_that_does_not_hold_the_failed_command_is_no_retry() -> None:
    later = "brew install --cask font-maple-mono && fontlist +list-fonts | rg -i 'Fira'"
    s = _font_session(later, "Process exited with code 0\nOutput:\nFira Code\n")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed" not in errors and "Worked around" not in errors, errors
    assert "Next call after it: `exec_command: brew install" in errors, errors  # said neutrally


# -- 7. a background job that only "exited", or whose output shows success, did not fail --------


def _failed_then_job(end: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("format the code and run the kernel tests")
    s.call(
        "exec_command",
        {"cmd": "cargo fmt --all"},
        "Process exited with code 127\nOutput:\nbash: cargo: command not found\n",
        error=True,
    )
    s.say("cargo is not on PATH here; running it inside the dev shell.")
    s.call(
        "exec_command",
        {"cmd": "nix develop -c bash -lc 'cargo fmt --all && cargo test'"},
        "Process running with session ID 4711\nOutput:\n",
    )
    s.call("write_stdin", {"session_id": 4711, "chars": ""}, end)
    s.say("Done.")
    return s


def test_a_job_that_exited_with_code_zero_is_a_fix() -> None:
    s = _failed_then_job(
        "Process exited with code 0\nOutput:\ntest result: ok. 4 passed; 0 failed\n"
    )
    errors = section(summarize_transcript(s.messages), 4)
    assert "failed too" not in errors, errors
    assert "Fixed: a later" in errors and "4711 ended: exited (exit 0)" in errors, errors


def test_a_job_whose_status_says_only_exited_is_not_failed() -> None:
    s = _failed_then_job(
        "<status>exited</status>\nOutput:\nrunning 4 tests\ntest result: ok. 4 passed; 0 failed\n"
        "✓ built in 1.74s\n"
    )
    errors = section(summarize_transcript(s.messages), 4)
    assert "failed too" not in errors, errors
    assert "4711 ended: exited (its output shows success)" in errors, errors
    s = _failed_then_job("<status>exited</status>\nOutput:\nsome output\n")
    errors = section(summarize_transcript(s.messages), 4)
    assert "failed too" not in errors and "Fixed: a later" not in errors, errors
    assert "4711 ended (exit status not shown)" in errors, errors
    s = _failed_then_job("<status>exited</status>\n<exit_code>2</exit_code>\nerror: no\n")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Not fixed: a later" in errors and "failed too" in errors, errors


# -- 3. a listing's result is its head (HEAD first), not its last lines -------------------------


def test_a_listing_shows_its_first_lines_and_says_how_many_more() -> None:
    s = SessionBuilder()
    s.user("fix the read command, then commit")
    s.call("Edit", {"file_path": "src/read.py", "old_string": "a", "new_string": "b"}, "ok")
    s.call("Bash", {"command": "git status --short"}, "M src/read.py\n?? notes/\n?? skills/\n")
    log = "\n".join(
        ["90fb981 Simplify read command", "4aa657d Document uv usage"]
        + [f"{i:07x} older change {i}" for i in range(3)]
    )
    s.call("Bash", {"command": "git log --oneline -5"}, log)
    summary = summarize_transcript(s.messages)
    assert (
        "returned: 90fb981 Simplify read command | 4aa657d Document uv usage … (3 more lines)"
        in (summary)
    ), summary
    assert "older change 2" not in section(summary, 8), summary
    assert "returned: M src/read.py | ?? notes/ … (1 more line)" in summary, summary


def test_a_test_runner_keeps_its_last_lines() -> None:
    s = SessionBuilder()
    s.user("run the tests")
    out = "\n".join(["collected 40 items", *(f"tests/t{i}.py ......" for i in range(5))])
    s.call("Bash", {"command": "pytest -q"}, out + "\n40 passed in 1.2s")
    summary = summarize_transcript(s.messages)
    assert "40 passed in 1.2s" in section(summary, 8), summary
    assert "collected 40 items" not in section(summary, 8), summary


# -- 8. a file a script in a shell call wrote is changed, not "Read, not changed" ---------------

_SCRIPT = """python - <<'PY'
from pathlib import Path
path = Path('ui/src/App.tsx')
text = path.read_text()
path.write_text(text.replace('a', 'b'))

path = Path('ui/src/components/Node.tsx')
text = path.read_text()
path.write_text(text.replace('c', 'd'))
with open('out/report.json', 'w') as f:
    f.write('{}')
print(Path('ui/src/lib/api.ts').read_text()[:10])
PY"""


def test_files_a_script_in_a_shell_call_writes_are_changed() -> None:
    s = SessionBuilder()
    s.user("remove the badge row from the node card")
    s.call("exec_command", {"cmd": "sed -n '1,200p' ui/src/components/Node.tsx"}, "export x")
    s.call("exec_command", {"cmd": "sed -n '1,50p' ui/src/lib/api.ts"}, "export api")
    s.call("exec_command", {"cmd": _SCRIPT}, "Process exited with code 0\nOutput:\nexport api")
    s.call(
        "exec_command",
        {"cmd": "node -e 'const fs=require(\"fs\"); const p=\"ui/vite.config.ts\"; "
                "fs.writeFileSync(p, \"x\")' && perl -pi -e 's/a/b/' ui/index.html"},
        "Process exited with code 0\nOutput:\n",
    )  # fmt: skip
    s.say("Done: the badge row is gone.")
    files = section(summarize_transcript(s.messages), 3)
    for path in (
        "ui/src/App.tsx",
        "ui/src/components/Node.tsx",
        "out/report.json",
        "ui/vite.config.ts",
    ):
        assert f"{path} (changed by a script in a shell call, exec_command" in files, files
    assert "ui/index.html (edited by exec_command" in files, files
    read = files[files.index("Read, not changed") :]
    assert "ui/src/lib/api.ts" in read and "Node.tsx" not in read, files


def test_a_file_the_final_answer_says_it_edited_is_never_read_not_changed() -> None:
    s = SessionBuilder()
    s.user("remove the badge row from the node card")
    s.call("exec_command", {"cmd": "sed -n '1,200p' ui/src/components/Node.tsx"}, "export x")
    s.call("exec_command", {"cmd": "sed -n '1,50p' ui/src/lib/api.ts"}, "export api")
    s.call("exec_command", {"cmd": "./tools/apply-change badge"}, "ok")
    s.say("Removed the stdin/stdout badge row from ui/src/components/Node.tsx. Nothing else.")
    files = section(summarize_transcript(s.messages), 3)
    assert "Changed, as the assistant's final answer says: ui/src/components/Node.tsx" in files
    read = files[files.index("Read, not changed") :]
    assert "ui/src/lib/api.ts" in read and "Node.tsx" not in read, files


def test_script_writes_reads_bindings_in_order_and_ignores_reads() -> None:
    from compactor.facts.shellwrites import script_writes

    script = (
        "python3 - <<'PY'\nimport json\nfrom pathlib import Path\n"
        "src = Path('data/in.json')\nrows = json.load(open(src))\nprint(open('notes.txt').read())\n"
        "log = Path('logs/run.log')\nwith log.open('a') as f:\n    f.write('x')\n"
        "out = 'data/out.json'\njson.dump(rows, open(out, 'w'))\n"
        "out = 'not a path, just text'\nprint(out)\nPY"
    )
    assert script_writes(script) == ["logs/run.log", "data/out.json"]
    assert script_writes("python - <<'PY'\nprint(open('a.txt', 'r').read())\nPY") == []
    assert script_writes("ls -la src/") == []

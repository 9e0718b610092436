"""``compact eval`` after blind check 22 (issue 28 point 8): the "ended" row reads the compacted
transcript's END, not any interruption marker it keeps (verbatim reduce outputs scored 61-75);
and eval sees, from the original, a harness's JSON record in the user's place and the user's own
command failing after the last answer, so that a summary that misses them scores lower.
"""

from __future__ import annotations

import json
from pathlib import Path

from compactor.runs.evaluate import Evaluation, evaluate_files

from .cc_session import Session
from .fake_server_cli import invoke
from .test_evaluate import _call, _compacted, _write

LONG = "collecting ... test session output line that says nothing in particular\n" * 120


def _interrupted_then_answered() -> Session:
    """A Write rejected and the turn interrupted mid-history, then a new request, answered."""
    s = Session()
    s.user("Write the netmiko prompt module for the read-only agent.")
    s.bash("ls prompts", "prompts.py\n__init__.py")
    s.assistant([{"type": "tool_use", "id": "toolu_w", "name": "Write",
                  "input": {"file_path": "/w/prompts.py", "content": "x " * 400}}])  # fmt: skip
    s.user([{"type": "tool_result", "tool_use_id": "toolu_w", "is_error": True,
             "content": "The user doesn't want to proceed with this tool use. The tool use was "
                        "rejected (eg. if it was a file edit, the new_string was NOT written to "
                        "the file). STOP what you are doing and wait for the user."}])  # fmt: skip
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user("no, it connects to cumulus devices that run linux.")
    for n in range(6):
        s.bash(f"pytest -q tests/test_prompts_{n}.py", LONG)
    s.assistant([{"type": "text", "text": "Done: prompts.py now targets Cumulus Linux and the "
                  "six prompt tests pass."}])  # fmt: skip
    return s


def _ended(result: Evaluation) -> list[tuple[float, str]]:
    return [(i.score, i.how) for c in result.categories if c.name == "ended" for i in c.items]


def test_a_reduce_output_keeping_every_message_agrees_on_how_it_ended(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_interrupted_then_answered().lines()) + b"\n")
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert b"[Request interrupted by user for tool use]" in out.read_bytes()  # kept mid-history
    assert b".offload" in out.read_bytes()  # old results cleared: a real reduce output
    result = evaluate_files(str(src), str(out))
    assert _ended(result) == [(1.0, "agrees: the original ends answered")], _ended(result)
    assert not result.contradictions, result.contradictions
    assert result.score >= 95, [(c.name, c.score) for c in result.categories]


def _summary_closing(pending: str) -> str:
    return (
        "4. Errors and fixes:\n- The Write was rejected: [Request interrupted by user for tool "
        "use]; the user said it connects to cumulus devices.\n"
        "5. Problem Solving:\n- prompts.py targets Cumulus Linux.\n"
        f"7. Pending Tasks:\n- {pending}\n8. Current Work:\n- prompts.py done, tests pass.\n"
        "9. Optional Next Step:\n- Wait for the user."
    )


def test_a_summary_claims_by_its_closing_sections_not_by_a_marker_in_its_history(
    tmp_path: Path,
) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_interrupted_then_answered().lines()) + b"\n")
    right = _compacted(tmp_path / "r.jsonl", _summary_closing("None: nothing is pending."))
    result = evaluate_files(str(src), str(right))
    assert _ended(result) == [(1.0, "agrees: the original ends answered")], _ended(result)
    wrong = _compacted(tmp_path / "w.jsonl", _summary_closing("The work is still in progress."))
    against = evaluate_files(str(src), str(wrong))
    assert [s for s, _ in _ended(against)] == [0.0]
    assert [c.kind for c in against.contradictions] == ["ended"]
    assert against.score < result.score


def test_a_request_kept_after_the_summary_is_the_current_one(tmp_path: Path) -> None:
    """A hybrid: the summary states the request of its own time; the request kept verbatim
    after it is the transcript's current one (the summary's is not checked against it)."""
    first, last = "Add the retry to fetch_rows().", "Now bump the version to 2.4.1."
    original = _write(tmp_path / "s.jsonl", [
        {"role": "user", "content": first},
        {"role": "assistant", "content": "Done: fetch_rows() retries 3 times."},
        {"role": "user", "content": last},
        {"role": "assistant", "content": "Done: pyproject.toml says 2.4.1."},
    ])  # fmt: skip
    summary = _compacted(tmp_path / "sum.jsonl", f'Current request: "{first}"')
    recs = [json.loads(x) for x in summary.read_text().splitlines()]
    tail = [{"role": "user", "content": last}, {"role": "assistant", "content": "Done: 2.4.1."}]
    hybrid = _write(tmp_path / "h.jsonl", [*recs, *tail])
    result = evaluate_files(str(original), str(hybrid))
    stated = next(c for c in result.categories if c.name == "stated request")
    assert stated.items == [], stated.items
    alone = evaluate_files(str(original), str(summary))  # the summary is the end: checked
    stated = next(c for c in alone.categories if c.name == "stated request")
    assert [i.score for i in stated.items] == [0.0]


START = _call("c1", "Bash", {"command": "npm run dev", "run_in_background": True})
TASK = {"task_id": "b87f28b", "tool_use_id": "toolu_01HZ", "description": "Start Vite dev server"}
RECORD = json.dumps({**TASK, "task_type": "local_bash"})


def test_a_harness_record_in_the_users_place_is_not_the_current_request(tmp_path: Path) -> None:
    """A queued task's registration (a JSON object of identifier keys) after the last answer:
    the current request is still the user's last words, answered."""
    original = _write(tmp_path / "s.jsonl", [
        {"role": "user", "content": "lance le saas"},
        {"role": "assistant", "content": "Starting it.", "tool_calls": [START]},
        {"role": "tool", "tool_call_id": "c1", "content": "Running in background: b87f28b."},
        {"role": "assistant", "content": "SaaS lancé: http://localhost:5174/ (il tourne)."},
        {"role": "user", "content": RECORD},
    ])  # fmt: skip
    job = "The job b87f28b (npm run dev) is still running on http://localhost:5174/"
    faithful = _compacted(tmp_path / "f.jsonl", (
        f'Current request: "lance le saas"\n{job} (do not start it again).\n'
        "The last request was answered."))  # fmt: skip
    defective = _compacted(
        tmp_path / "d.jsonl",
        (f'Current request: "{RECORD}"\n{job}.\nThe latest request is not answered yet.'),
    )
    good, bad = (
        evaluate_files(str(original), str(faithful)),
        evaluate_files(str(original), str(defective)),
    )
    assert not good.contradictions, good.contradictions
    assert good.score >= 95, [(c.name, c.items) for c in good.categories]
    assert sorted(c.kind for c in bad.contradictions) == ["current request", "ended"]
    said = next(c for c in bad.contradictions if c.kind == "current request")
    assert "record (JSON)" in said.original and '"lance le saas"' in said.original
    assert bad.score < good.score - 20, (bad.score, good.score)


def _user_ran_a_failing_command() -> Session:
    s = Session()
    s.user("Does `import ./systems/nixos inputs` need the inputs passed in?")
    s.bash("nix flake check", "all checks passed")
    s.assistant([{"type": "text", "text": "Yes: pass `inputs` explicitly; the check passes."}])
    s.user("<bash-input>nix flake check</bash-input>")
    s.user("<bash-stdout></bash-stdout><bash-stderr>warning: Git tree '/home/u/conf' is dirty\n"
           "evaluating flake...\nerror:\n       … while checking flake output 'nixosConfigurations'"
           "\n       error: path '/nix/store/abc-source/systems/host7' does not exist"
           "</bash-stderr>")  # fmt: skip
    return s


def test_the_users_own_command_failing_after_the_answer_is_seen(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(_user_ran_a_failing_command().lines()) + b"\n")
    ask = 'Current request: "Does `import ./systems/nixos inputs` need the inputs passed in?"'
    faithful = _compacted(tmp_path / "f.jsonl", (
        f"{ask}\nThe last request was answered (pass `inputs` explicitly). Then the user ran "
        "`nix flake check` themselves; it failed: error: path "
        "'/nix/store/abc-source/systems/host7' does not exist. Address it."))  # fmt: skip
    defective = _compacted(
        tmp_path / "d.jsonl",
        (f"{ask}\nNone: the last request was answered; nothing is pending; wait for the user."),
    )
    good, bad = evaluate_files(str(src), str(faithful)), evaluate_files(str(src), str(defective))
    assert not good.contradictions, good.contradictions
    shown = next(c for c in good.categories if c.name == "failures shown")
    assert [i.score for i in shown.items] == [1.0], shown.items
    assert [c.kind for c in bad.contradictions] == ["ended"]
    assert (
        "`nix flake check` themselves and it failed: error: path" in bad.contradictions[0].original
    )
    assert "host7' does not exist" in bad.contradictions[0].original
    assert bad.score < good.score - 20, (bad.score, good.score)
    verbatim = evaluate_files(str(src), str(src))  # the original itself shows it all
    assert not verbatim.contradictions and verbatim.score == 100.0, verbatim.contradictions


def test_a_warning_or_a_passing_command_of_the_user_is_no_failure(tmp_path: Path) -> None:
    s = _user_ran_a_failing_command()
    s.records[-1]["message"]["content"] = (
        "<bash-stdout>all checks passed</bash-stdout><bash-stderr>warning: Git tree is dirty"
        "</bash-stderr>"
    )
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    said = _compacted(tmp_path / "c.jsonl", "The last request was answered; nothing is pending.")
    result = evaluate_files(str(src), str(said))
    assert not result.contradictions, result.contradictions
    assert _ended(result) == [(1.0, "agrees: the original ends answered")]


def test_a_codex_users_own_command_failing_after_the_answer_is_seen(tmp_path: Path) -> None:
    """Codex records a command the user ran (``!cmd``) as a ``<user_shell_command>`` message."""
    shell = (
        "<user_shell_command>\n<command>\ncargo test -p core\n</command>\n<result>\nExit code: "
        "101\nDuration: 4.2000 seconds\nOutput:\n   Compiling core v0.1.0\nerror[E0425]: cannot "
        "find value `retries` in this scope\n</result>\n</user_shell_command>"
    )
    messages = [
        {"role": "user", "content": "Add a retry count to fetch_rows()."},
        {"role": "assistant", "content": "Done: fetch_rows() takes `retries` (default 3)."},
        {"role": "user", "content": shell},
    ]
    original = _write(tmp_path / "s.jsonl", messages)
    said = _compacted(tmp_path / "c.jsonl", "The last request was answered; nothing is pending.")
    bad = evaluate_files(str(original), str(said))
    assert [c.kind for c in bad.contradictions] == ["ended"], bad.contradictions
    assert "`cargo test -p core` themselves and it failed: error[E0425]" in (
        bad.contradictions[0].original
    )
    messages[-1]["content"] = shell.replace("Exit code: 101", "Exit code: 0").replace(
        "error[E0425]: cannot find value `retries` in this scope", "test result: ok"
    )
    passed = evaluate_files(str(_write(tmp_path / "p.jsonl", messages)), str(said))
    assert not passed.contradictions, passed.contradictions

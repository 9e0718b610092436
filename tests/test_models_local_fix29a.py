"""Blind check 31 (helper fix29a): a file is overwritten only when a successful read or
listing showed it existed; a file only read is not "changed" because the final answer names
another file of the same name; paths with spaces kept whole; a sub-agent's review that names
failures is no failed call."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .codex_rollout import sections
from .planted_session import SessionBuilder


def _added(ls_output: str, ls_folder: str = "_out/impl") -> str:
    s = SessionBuilder()
    s.user("create the sprint status file")
    s.call(
        "exec_command",
        {"cmd": f"ls {ls_folder}; find . -name 'sprint-status.yaml'"},
        f"Exit code: 0\nOutput:\n{ls_output}",
    )
    s.call(
        "exec_command",
        {"cmd": "sed -n '1,20p' _out/impl/sprint-status.yaml"},
        "Exit code: 1\nOutput:\nsed: can't read _out/impl/sprint-status.yaml: No such file",
    )
    s.call("exec_command", {"cmd": "cat .specify/templates/spec-template.md"}, "# spec.md\n")
    patch = (
        "*** Begin Patch\n*** Add File: _out/impl/sprint-status.yaml\n+status: new\n"
        "*** Add File: specs/004-uc04/spec.md\n+# UC-04\n*** End Patch\n"
    )
    s.call(
        "apply_patch",
        {"input": patch},
        "Exit code: 0\nOutput:\nSuccess. Updated the following files:\n"
        "A _out/impl/sprint-status.yaml\nA specs/004-uc04/spec.md\n",
    )
    s.say("Created the sprint status file and the UC-04 spec.")
    return sections(summarize_transcript(s.messages))["3"]


def test_a_new_file_named_by_a_search_a_failed_read_or_a_template_is_created() -> None:
    files = _added("story-1.md\n")  # the folder listed without it; find found nothing
    assert "_out/impl/sprint-status.yaml (created by apply_patch)" in files, files
    assert "specs/004-uc04/spec.md (created by apply_patch)" in files, files
    assert "overwritten" not in files
    # a listing of another folder that holds a file of the same name shows nothing either
    files = _added("sprint-status.yaml\n", ls_folder="_out/planning")
    assert "_out/impl/sprint-status.yaml (created by apply_patch)" in files, files


def test_a_file_a_listing_of_its_own_folder_showed_is_overwritten() -> None:
    files = _added("story-1.md\nsprint-status.yaml\n")
    assert "_out/impl/sprint-status.yaml (overwritten by apply_patch)" in files, files
    files = _added("./_out/impl/sprint-status.yaml\n", ls_folder=".")  # find's own line
    assert "_out/impl/sprint-status.yaml (overwritten by apply_patch)" in files, files


def test_a_read_file_is_not_changed_because_the_answer_names_a_namesake() -> None:
    s = SessionBuilder()
    s.user("write the UC-04 spec like the UC-03 one")
    s.call("exec_command", {"cmd": "sed -n '1,260p' './specs/003-uc03/spec.md'"}, "# UC-03")
    s.call("exec_command", {"cmd": "sed -n '1,50p' out/run_1/report.json"}, '{"a": 1}')
    s.call("exec_command", {"cmd": "python gen.py --out out/run_2"}, "wrote report")
    s.call("exec_command", {"cmd": "sed -n '1,50p' out/run_2/report.json"}, '{"a": 2}')
    patch = "*** Begin Patch\n*** Add File: specs/004-uc04/spec.md\n+# UC-04\n*** End Patch\n"
    s.call("apply_patch", {"input": patch}, "Exit code: 0\nOutput:\nA specs/004-uc04/spec.md\n")
    s.say("Created [spec.md](specs/004-uc04/spec.md) and wrote the new out/run_2/report.json.")
    files = sections(summarize_transcript(s.messages))["3"]
    said = next(line for line in files.splitlines() if "final answer says" in line)
    assert "out/run_2/report.json" in said, files  # named whole: the answer says so
    assert "003-uc03" not in said and "run_1" not in said, files
    read = files[files.index("Read, not changed") :]
    assert "./specs/003-uc03/spec.md" in read and "out/run_1/report.json" in read, files


def test_a_quoted_path_with_spaces_is_kept_whole() -> None:
    s = SessionBuilder()
    s.user("write the spec from './Use Cases/UC-04.md' and 'Acceptance Tests/UC-04-AT.md'")
    where = "/home/u/proj"
    at = "sed -n '1,9p' './Acceptance Tests/UC-04-AT.md'"
    s.call("exec_command", {"cmd": at, "workdir": where}, "AT")
    s.call("exec_command", {"cmd": 'cat "Use Cases/UC-04.md"', "workdir": where}, "# UC\nflow")
    s.say("Read both.")
    files = sections(summarize_transcript(s.messages))["3"]
    assert "/home/u/proj/Acceptance Tests/UC-04-AT.md" in files, files
    assert "/home/u/proj/Use Cases/UC-04.md" in files, files
    assert "proj/Tests/" not in files and "proj/Cases/" not in files, files
    assert "Named by the user: ./Use Cases/UC-04.md, Acceptance Tests/UC-04-AT.md" in files, files
    assert "never by a call" not in files, files


def test_a_quoted_sentence_ending_in_a_path_is_no_path() -> None:
    from compactor.facts import whole_paths

    text = "she said 'fix the bug in src/app.py' and 'My Docs/x.md'"
    assert [p for _, p in whole_paths(text)] == ["src/app.py", "My Docs/x.md"]


def _reviews(error: bool) -> str:
    s = SessionBuilder()
    s.user("review the branch from two angles")
    report = (
        "## Findings\n\n1. Nil price\nFailure scenario: a handset is imported with zero price "
        "and the resolver panics.\nError: the whole query fails.\n"
    )
    for angle in ("Angle B: removed-behavior audit", "Angle C: cross-file tracer"):
        args: dict[str, object] = {"description": angle, "prompt": "review", "subagent_type": "x"}
        s.call("Agent", args, report, error=error)
    s.say("Both reviews are in: one real bug.")
    return summarize_transcript(s.messages)


def test_a_completed_sub_agent_review_naming_failures_is_no_failed_call() -> None:
    text = _reviews(error=False)
    assert "2 tool calls (0 failed)" in text, text
    assert "failed:" not in text and "did not fail, but printed" not in text, text
    assert "Failure scenario: a handset" in text  # the report itself is still shown


def test_a_sub_agent_call_flagged_as_an_error_still_failed() -> None:
    assert "2 tool calls (2 failed)" in _reviews(error=True)

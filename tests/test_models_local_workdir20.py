"""Blind check 20 (coda-codex, W5): ``cat .codex/prompts/x.md`` run with ``workdir`` ``.codex``
failed "No such file or directory" (the path resolved below ``.codex/.codex``), and section 4
kept it as "a fact it established", although the same command from the repository root printed
the file two calls later. A later success of the same command in another directory means the
first one looked in the wrong folder: no established fact."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_MISSING = "Exit code: 1\nOutput:\ncat: docs/guide/steps.md: No such file or directory\n"
_FILE = "Exit code: 0\nOutput:\n# Steps\n1. Build the parser\n2. Run the tests\n"
_LISTING = "Exit code: 0\nOutput:\nsteps.md\nintro.md\n"


def _session(later_workdir: str | None) -> str:
    s = SessionBuilder()
    s.user("follow docs/guide/steps.md")
    cat = {"command": ["bash", "-lc", "cat docs/guide/steps.md"]}
    s.call("shell", {**cat, "workdir": "docs"}, _MISSING, error=True)
    s.call("shell", {"command": ["bash", "-lc", "ls docs/guide"], "workdir": "/repo"}, _LISTING)
    if later_workdir is not None:
        s.call("shell", {**cat, "workdir": later_workdir}, _FILE)
    s.say("The guide has two steps: build the parser, then run the tests.")
    return section(summarize_transcript(s.messages), 4)


def test_a_not_found_that_the_same_command_found_from_another_workdir_is_no_fact() -> None:
    errors = _session("/repo")
    assert "cat docs/guide/steps.md" in errors, errors
    assert "A fact it established" not in errors, errors
    assert "Fixed: a later" in errors, errors
    assert "ran in docs" in errors and "/repo" in errors, errors


def test_a_not_found_never_found_elsewhere_is_still_a_fact() -> None:
    errors = _session(None)
    assert "A fact it established" in errors, errors


def test_a_not_found_of_a_path_that_repeats_its_workdir_says_where_it_was_looked_up() -> None:
    """coda's ``cat .codex/prompts/constitution.md`` in ``workdir`` ``.codex``: the fact is only
    about the doubled path (the file was read later as ``prompts/constitution.md``)."""
    errors = _session(None)
    assert "(it ran in docs: the path was looked up as docs/docs/guide/steps.md)" in errors, errors
    s = SessionBuilder()
    s.user("follow guide/steps.md")
    cat: dict[str, object] = {"command": ["bash", "-lc", "cat guide/steps.md"], "workdir": "docs"}
    s.call("shell", cat, _MISSING.replace("docs/guide", "guide"), error=True)
    s.call("shell", {"command": ["bash", "-lc", "ls"], "workdir": "docs"}, _LISTING)
    s.say("There is no guide folder here.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "A fact it established" in errors, errors
    assert "looked up as" not in errors, errors  # a path that does not repeat the folder

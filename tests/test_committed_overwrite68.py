"""A Write in flight over a file an earlier commit included says it would overwrite the committed
(and pushed) version (blind check 67 N6: cc_jt_readme ended with a Write of README.md in flight
after README.md was committed, pushed and deployed). Invented users and projects only."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section
from .codex_rollout import Rollout, codex_summary, codex_user, rec, sections

WIN = "C:\\Users\\dev\\site"
README = WIN + "\\README.md"


def _session(commit: str, *, push: bool = True, flying: str = README) -> Session:
    s = Session()
    s.user("write a README for the site, commit it and push it")
    s.call("Write", {"file_path": README, "content": "# Site\nFirst version.\n"}, "File created")
    s.bash(commit, "[main 1a2b3c4] docs: readme\n 1 file changed, 2 insertions(+)")
    if push:
        s.bash(
            "git push origin main", "To github.com:dev/site.git\n   9f8e7d6..1a2b3c4  main -> main"
        )
    s.user("now rewrite the README with the install steps")
    call = {"type": "tool_use", "id": "toolu_fly", "name": "Write"}
    s.assistant([{**call, "input": {"file_path": flying, "content": "# Site\nInstall: …\n"}}])
    for record in s.records:
        record["cwd"] = WIN
    return s


@pytest.mark.parametrize(
    "commit",
    [
        "git add README.md && git commit -m 'docs: readme'",
        "git add -A && git commit -m 'docs: readme'",
        "git commit -am 'docs: readme'",
    ],
)
def test_a_write_in_flight_over_a_committed_and_pushed_file_says_so(
    commit: str, tmp_path: Path
) -> None:
    summary = cc_summary(_session(commit), tmp_path)
    for n in (7, 8):
        part = section(summary, n)
        assert "overwrote the committed and pushed version" in part, part
        assert "check `git status` and `git diff`" in part


def test_a_commit_not_pushed_is_the_committed_version(tmp_path: Path) -> None:
    summary = cc_summary(_session("git add README.md && git commit -m x", push=False), tmp_path)
    assert "overwrote the committed version" in section(summary, 7)


def test_a_write_in_flight_over_an_uncommitted_file_says_nothing(tmp_path: Path) -> None:
    s = _session("git add README.md && git commit -m x", flying=WIN + "\\INSTALL.md")
    assert "overwrote the committed" not in cc_summary(s, tmp_path)


def test_a_commit_of_other_files_says_nothing(tmp_path: Path) -> None:
    s = _session("git add src/app.ts && git commit -m x")
    assert "overwrote the committed" not in cc_summary(s, tmp_path)


def test_a_file_of_the_same_name_in_another_folder_was_not_committed(tmp_path: Path) -> None:
    s = _session("git add README.md && git commit -m x", flying=WIN + "\\docs\\README.md")
    assert "overwrote the committed" not in cc_summary(s, tmp_path)


def test_a_shell_write_in_flight_over_a_committed_file_says_so(tmp_path: Path) -> None:
    s = Session()
    s.user("add a changelog, commit it, then extend it")
    s.bash("cat > CHANGELOG.md <<'EOF'\n# Changes\n- first\nEOF", "")
    s.bash("git add CHANGELOG.md && git commit -m 'changelog'", "[main 5d6e7f8] changelog")
    call = {"type": "tool_use", "id": "toolu_fly", "name": "Bash"}
    heredoc = "cat > CHANGELOG.md <<'EOF'\n# Changes\n- second\nEOF"
    s.assistant([{**call, "input": {"command": heredoc}}])
    assert "overwrote the committed version" in section(cc_summary(s, tmp_path), 7)


def test_an_edit_in_flight_of_a_committed_file_says_it_changed_it(tmp_path: Path) -> None:
    s = _session("git add -A && git commit -m x")
    fly = s.records[-1]["message"]["content"][0]
    fly["name"], fly["input"] = (
        "Edit",
        {"file_path": README, "old_string": "First", "new_string": "2nd"},
    )
    part = section(cc_summary(s, tmp_path), 7)
    assert "The call in flight `Edit` edits" in part, part
    assert "it changed the committed and pushed version" in part


def test_a_codex_patch_in_flight_over_a_committed_file_says_so(tmp_path: Path) -> None:
    r = Rollout("/home/dev/site")
    r.records.insert(0, codex_user("commit the notes, then rewrite them"))
    r.exec("git add notes.md && git commit -m notes", "[main 3c4d5e6] notes\n 1 file changed")
    patch = "*** Begin Patch\n*** Update File: notes.md\n@@\n-old\n+new\n*** End Patch\n"
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": "fly", "input": patch}
    r.records.append(rec("response_item", call))
    part = sections(codex_summary(r.records, tmp_path, "s68", "/home/dev/site"))["7"]
    assert "`/home/dev/site/notes.md`, which `git add notes.md && git commit -m notes`" in part
    assert "the committed version" in part, part

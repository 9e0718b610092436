"""A file the user named and no call names, but the log shows it exists (blind check 44, W4).

The session file started mid-session: its first record was the output of a setup script whose
call lay before the file, and the assistant reported the script "now handles nested configs
properly"; the user named the script, no call in the file did, and the summary said it "may not
exist". A file that a tool result names, or, when the log starts mid-session, that the
assistant's text names, is said to be named there instead. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

MAY_NOT = "they may not exist"


def _session(*, orphan: bool, listed: bool = False) -> Session:
    s = Session()
    if orphan:  # the result of a call made before this file begins
        s.user(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01BeforeThisFile",
                    "content": "Backing up existing ~/.bashrc to ~/.bashrc.orig\nLinking "
                    "config/nvim -> ~/.config/nvim\nAll links made.",
                }
            ]
        )
        s.say(
            "Done. Changes:\n- `bootstrap.sh` - now links nested config folders properly\n"
            "- `config/nvim` - moved under config/"
        )
    s.user("now move .bashrc into home/ and make bootstrap.sh link from there")
    s.call(
        "Bash",
        {"command": "ls -a" if listed else "mkdir -p home && git mv .bashrc home/.bashrc"},
        "bootstrap.sh\nconfig\nhome" if listed else "",
    )
    s.say("Moved .bashrc into home/.")
    return s


def test_a_file_the_assistant_named_in_a_log_that_starts_mid_session(tmp_path: Path) -> None:
    files = section(cc_summary(_session(orphan=True), tmp_path), 3)
    assert MAY_NOT not in files, files
    assert "in the assistant's text, not by a call in this part" in files, files
    assert "bootstrap.sh" in files.split("in the assistant's text", 1)[1], files


def test_a_file_a_tool_result_lists_exists(tmp_path: Path) -> None:
    files = section(cc_summary(_session(orphan=False, listed=True), tmp_path), 3)
    assert MAY_NOT not in files, files
    assert "Named by the user and in tool results, not by a call: bootstrap.sh" in files, files


def test_a_file_only_the_user_named_in_a_whole_session_may_not_exist(tmp_path: Path) -> None:
    s = _session(orphan=False)
    s.say("I will update bootstrap.sh next.")  # the assistant echoing the user is no evidence
    files = section(cc_summary(s, tmp_path), 3)
    assert f"{MAY_NOT}): bootstrap.sh" in files, files

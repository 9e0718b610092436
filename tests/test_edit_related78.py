"""Blind check 78 W1: a failed ``Edit(F)`` ("No changes to make", "String to replace not
found") was retried by the very next edit of F with other strings, which succeeded; section 4
still said "Not fixed: the user rejected a later Edit(F)", the verdict of a later, unrelated,
rejected edit. The next edit of the file (no other edit, no new request between) is the retry,
and so is one that adds a distinctive token the failed edit added. Names invented."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

F = "/home/dev/site/infra.config.ts"
G = "/home/dev/site/README.md"
_NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"
_SAME = (
    "<tool_use_error>No changes to make: old_string and new_string are exactly the "
    "same.</tool_use_error>"
)
_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def _edit(s: Session, path: str, old: str, new: str, out: str = "", error: bool = False) -> None:
    s.call(
        "Edit",
        {"file_path": path, "old_string": old, "new_string": new},
        out or f"The file {path} has been updated.",
        error=error,
    )


def _rejected_later(s: Session) -> None:
    s.user("double check it")
    _edit(s, F, "      cdn: {},", "      cdn: { comment: label },", _REJECTED, error=True)
    s.user("[Request interrupted by user for tool use]")
    s.say("Understood.")


def test_the_next_edit_of_the_file_retries_a_no_change_edit(tmp_path: Path) -> None:
    s = Session()
    s.user("block public access on the assets bucket")
    _edit(s, F, "function isProd() {}", "function isProd() {}", _SAME, error=True)
    _edit(s, F, "      assets: {},", "      assets: { bucket: { blockAcls: true } },")
    s.say("Done.")
    _rejected_later(s)
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Edit(" in errors and "succeeded." in errors and "rejected a later" not in errors, errors


def test_an_edit_adding_the_same_token_retries_it(tmp_path: Path) -> None:
    """Not the next edit (another file's came between), but it adds what the failed one did."""
    s = Session()
    s.user("block public access on the assets bucket")
    _edit(s, F, "  assets: {}", "  assets: { blockPublicAcls: true }", _NOT_FOUND, error=True)
    s.call("Read", {"file_path": F}, "1\tconst site = new Site({ assets: undefined });\n")
    _edit(s, G, "## Deploy", "## Deploy\n\nPublic access is blocked.")
    _edit(s, F, "assets: undefined", "assets: (args) => { args.blockPublicAcls = true; }")
    s.say("Done.")
    _rejected_later(s)
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Edit(" in errors and "succeeded." in errors and "rejected a later" not in errors, errors


def test_an_unrelated_rejected_edit_after_a_new_request_settles_nothing(tmp_path: Path) -> None:
    s = Session()
    s.user("import the storage module")
    _edit(s, F, 'import { a } from "lib";', 'import { a } from "lib";\nimport * as s3 from "s3";',
          _NOT_FOUND, error=True)  # fmt: skip
    s.say("It is not there.")
    _rejected_later(s)
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Edit(" in errors and "rejected a later" not in errors, errors

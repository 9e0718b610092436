"""Failures and their fixes (fix50a): BENCH50 W1-W3. Sessions are invented, by shape, inside
each test.

* W1, W2: a result not flagged as an error whose output holds "error:" lines that passing tests
  print, then a test runner's summary with no failure (and, for a commit, git's commit line), did
  not fail; an error printed after that line, or a summary that counts failures, still fails it.
* W3: the lines of a diff hunk or of a numbered file listing are never error lines.
"""

from __future__ import annotations

import json

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

_HOOK = (
    "$ bun test\n"
    "src/evaluation.test.ts:\n"
    "error: Ledger store unreachable\n"
    "      at handler (src/evaluation.ts:41:11)\n"
    "(pass) evaluation > should return 500 for other errors [2.10ms]\n"
    "error: Work queue is full\n"
    "(pass) evaluation > should return 429 when the queue is full [0.40ms]\n"
    "\n 812 pass\n 0 fail\n 2301 expect() calls\nRan 812 tests across 61 files. [4.20s]\n"
    "Checked 190 files in 41ms. No fixes applied.\n$ tsc --noEmit\n"
)
_COMMIT = 'git commit -m "Sort the ledger view"'


def _outcome(command: str, text: str) -> tuple[bool, tuple[str, ...]]:
    call = Call("c1", "Bash", json.dumps({"command": command}), 0)
    got = outcome(Result("c1", "Bash", text, False), call)
    return got.failed, got.lines


def test_a_hook_whose_tests_pass_and_a_made_commit_did_not_fail() -> None:
    committed = _HOOK + "[main 5be20c1] Sort the ledger view\n 4 files changed, 90 insertions(+)\n"
    assert _outcome(_COMMIT, committed) == (False, ())
    assert _outcome("bun run test 2>&1 | tail -30", _HOOK) == (False, ())
    for summary in ("Tests:       812 passed, 812 total", "\u2713 812 tests", "812 passed in 3.1s"):
        assert not _outcome("npm test", _HOOK.replace(" 812 pass\n 0 fail", summary))[0]


def test_errors_after_the_success_line_or_a_failure_count_still_fail() -> None:
    pushed = _HOOK + "[main 5be20c1] Sort\n 4 files changed\nerror: failed to push some refs\n"
    failed, lines = _outcome(_COMMIT + " && git push", pushed)
    assert failed and "error: failed to push some refs" in lines
    assert _outcome("bun test", _HOOK.replace(" 0 fail", " 2 fail"))[0]
    assert _outcome(_COMMIT, _HOOK)[0] is False  # tests passed, no error after the summary
    assert _outcome("deploy.sh", "error: Ledger store unreachable\nDone.\n")[0]


def test_diff_and_listing_lines_are_no_error_lines() -> None:
    diff = (
        "diff --git a/src/types.ts b/src/types.ts\nindex 1c2..3d4 100644\n"
        "--- a/src/types.ts\n+++ b/src/types.ts\n@@ -3,6 +3,7 @@ export type Reply = {\n"
        "   status: number;\n-  message: string;\n+  message: string | null;\n"
        "   error: string | null;\n+  error: string | null;\n }\n"
    )
    assert _outcome("rtk git diff", diff) == (False, ())
    listing = "    11\tconst reply = {\n    12\t  error: string | null;\n    13\t};\n"
    assert _outcome("rtk cat -n src/types.ts", listing) == (False, ())
    after = diff + "error: unable to write the index\n"  # a real error after the diff
    assert _outcome("rtk git diff", after)[0]


def test_the_summary_keeps_a_made_commit_out_of_the_failures() -> None:
    s = SessionBuilder()
    s.user("commit the ledger view fix")
    s.call("Bash", {"command": _COMMIT}, _HOOK + "[main 5be20c1] Sort the ledger view\n")
    s.say("Committed 5be20c1; the hook's 812 tests pass.")
    summary = summarize_transcript(s.messages)
    assert "(failed)" not in summary and "Not retried" not in summary
    assert "No call failed" in summary  # (its printed lines: listed as such, "did not fail")

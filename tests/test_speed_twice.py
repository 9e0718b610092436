"""Work the local run did twice, done once (issue 28 point 7, helper perf51): each shortcut
gives the answer of the code it skips, checked with hypothesis."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.facts import Call
from compactor.facts import reportedwrites as rw

from .conftest import examples

_VERBS = ("Copied", "copied", "Saved", "saved", "Wrote", "wrote", "Written", "written",
          "Exported", "exported", "Created", "created", "Writing", "writing", "Generated",
          "generated", "Generating", "generating", "opied", "reated", "rote", "aved", "x")
_REPORT_LINES = st.tuples(
    st.sampled_from(["", "[INFO] ", "✓ ", "==> ", "OK: ", "12:30:01 ", "- ", "  "]),
    st.sampled_from(_VERBS),
    st.sampled_from([" ", " plan template to ", " -> ", " 3 files to ", " new file ", " to ",
                     " the new ", " report into ", "\t"]),
    st.sampled_from(["src/app.py", "/srv/x/plan.md", "Makefile", "notes", "a.txt.", "'a b.md'",
                     "dist/", "https://x.io/a.md", "$OUT/a.md", "é.md"]),
    st.sampled_from(["", " (3 KB)", "...", " …", ":", " done"]),
).map("".join)
_REPORTS = st.lists(st.one_of(_REPORT_LINES, st.sampled_from(["", "ok", "Error: x"])), max_size=5)
_COMMANDS = st.sampled_from(
    ["./setup.sh --json", "python gen.py", "bash -lc 'make docs'", "cat build.log",
     "grep -r Created .", "bash -lc 'cat out.txt'", 'echo "Created a/b.txt"', "npm run build"]
)  # fmt: skip


@settings(max_examples=examples(3000), deadline=None, database=None, derandomize=True)
@given(_COMMANDS, _REPORTS.map("\n".join))
def test_property_reported_writes_prefilter_drops_no_report(command: str, text: str) -> None:
    """``reported_writes`` decides by the call before it scans the output for the verbs' hints
    (most calls only read): the same reports as running the report pattern on every shell call
    that does not only read, whatever the output holds."""
    call = Call("c1", "exec_command", json.dumps({"cmd": command}), 1)
    reads = rw.is_reading_call(call) or rw.is_wrapped_read(call)
    assert rw.reported_writes(call, text) == ([] if reads else rw._reports(command, text))

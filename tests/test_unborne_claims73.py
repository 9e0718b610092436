"""A file the last answer or a done plan item says was changed, that no call changed, is flagged
in section 7 (blind check 73 N2: "[completed] Add observability section to settings modal in
app.html", though no call touched app.html and the settings.js Edits failed)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

FAILED = "<tool_use_error>String to replace not found in file.</tool_use_error>"


def _session(settings_edit_works: bool) -> Session:
    s = Session()
    s.user("Add an observability section to the settings modal and a metrics exporter.")
    s.call(
        "Write",
        {"file_path": "/w/js/observability/exporter.js", "content": "export const x = 1;\n"},
        "File created successfully at: /w/js/observability/exporter.js",
    )
    s.call(
        "Edit",
        {"file_path": "/w/js/settings.js", "old_string": "a", "new_string": "b"},
        "The file /w/js/settings.js has been updated." if settings_edit_works else FAILED,
        error=not settings_edit_works,
    )
    todos = [
        {"content": "Create the exporter (js/observability/exporter.js)", "status": "completed"},
        {
            "content": "Add observability section to settings modal in app.html",
            "status": "completed",
        },
    ]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    s.say(
        "Done.\n- **js/settings.js**: Added the observability toggle\n"
        "- Created `js/observability/exporter.js`"
    )
    return s


def test_claimed_changes_no_call_made_are_flagged(tmp_path: Path) -> None:
    pending = " ".join(section(cc_summary(_session(False), tmp_path), 7).split())
    assert "Not borne out by the results" in pending, pending
    assert "no call changed `app.html` (no call touched it)" in pending
    assert "no call changed `settings.js` (every call that edited it failed (1))" in pending
    assert "`exporter.js`" not in pending  # written by a call that worked


def test_claimed_changes_the_calls_made_are_not_flagged(tmp_path: Path) -> None:
    pending = " ".join(section(cc_summary(_session(True), tmp_path), 7).split())
    assert "`settings.js`" not in pending, pending
    assert "no call changed `app.html`" in pending  # still: nothing touched it

"""A harness integration's tagged user-role message that asks for work is a request, labelled
as harness-sent (blind check 52, W2: a CI monitor's ``<ci-monitor-event>CI check … failed …
fix the failing check …</ci-monitor-event>`` was dropped as injected context, so the older,
answered request was named current). A tagged notice that only informs stays context."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.formats.harness_asks import harness_ask_tag

from .cc_session import Session, cc_summary, section
from .codex_rollout import codex_say, codex_summary, codex_user

OLD = "The legend overlaps the chart when the window is narrow; fix it."
EVENT = (
    '<build-watch-alert>Check "unit (linux)" failed on pull request #431 '
    "(https://git.example.org/acme/plotter/pull/431). Read the failing job's log, then fix the "
    "failing check and push the fix.</build-watch-alert>"
)
NOTICE = '<build-watch-alert>Check "unit (linux)" passed on pull request #431.</build-watch-alert>'


def _session(event: str) -> Session:
    s = Session()
    s.user(OLD)
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/src/legend.ts", "old_string": "a", "new_string": "b"},
        "ok",
    )
    s.bash("git commit -am 'legend wraps'", "[main 1a2b3c4] legend wraps")
    s.say("Committed as 1a2b3c4: the legend wraps below the chart on narrow windows.")
    s.user(event)
    s.bash("ci-logs 431 --failed", "vet: struct field order wastes 8 bytes")
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/src/legend_test.ts", "old_string": "a", "new_string": "b"},
        "ok",
    )
    s.bash("git commit -am 'field order' && git push", "[main 5d6e7f8] field order")
    s.say("Pushed 5d6e7f8 with the struct fields reordered; the check runs again.")
    return s


def test_a_tagged_harness_message_asking_for_a_fix_is_the_current_request(tmp_path: Path) -> None:
    summary = cc_summary(_session(EVENT), tmp_path)
    first = section(summary, 1)
    assert 'Current request: "<build-watch-alert>Check "unit (linux)" failed' in first, first
    assert "sent by a harness integration as <build-watch-alert>, not typed by the user" in first
    assert f'Current request: "{OLD}' not in summary
    assert "failed on pull request #431" in section(summary, 6)


def test_a_tagged_harness_notice_that_asks_nothing_stays_context(tmp_path: Path) -> None:
    summary = cc_summary(_session(NOTICE), tmp_path)
    assert f'"{OLD}" (the current request)' in section(summary, 1)
    assert "build-watch-alert" not in section(summary, 6)


def test_a_codex_rollout_reads_the_harness_request_too(tmp_path: Path) -> None:
    records = [
        codex_user(OLD),
        codex_say("Fixed: the legend wraps below the chart."),
        codex_user(EVENT),
        codex_say("Pushed the reordered struct; the check runs again."),
    ]
    summary = codex_summary(records, tmp_path, "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", "/w")
    first = section(summary, 1)
    assert 'Current request: "<build-watch-alert>' in first and "harness integration" in first


@pytest.mark.parametrize(
    "text",
    [
        "<turn_aborted>\nThe user interrupted the previous turn on purpose. Verify current state "
        "before retrying.\n</turn_aborted>",
        "<user_shell_command>\n<command>make fix</command>\n<result>ok</result>\n"
        "</user_shell_command>",
        "<session_paused>\nThe harness paused the session; run /resume to go on.\n"
        "</session_paused>",
        NOTICE,
        "<deploy-status>Deployment 12 is live at https://x.example.org.</deploy-status>",
        "<ci-event>Run 5521 failed: 2 of 40 tests.</ci-event>",
    ],
)
def test_notices_are_no_harness_requests(text: str) -> None:
    assert harness_ask_tag(text) == ""


@pytest.mark.parametrize(
    "text",
    [
        EVENT,
        "<ci-event>Job lint failed.\nInvestigate and update the config.</ci-event>",
        '<pager-alert severity="high">Disk full on db-2; please resolve it.</pager-alert>',
        "<deploy-status>Deploy 12 failed. Check the logs and retry.</deploy-status>",
    ],
)
def test_asks_for_work(text: str) -> None:
    assert harness_ask_tag(text)

"""A call the user interrupted is counted and walked as interrupted, not failed (blind check 71
W1, kt_claude: "15 tool calls (6 failed, 1 rejected by the user)" and step "Failed: Task(…)"
while section 4 said "Interrupted by the user … not a success, not a failure"). Sessions built by
shape, invented content."""

from __future__ import annotations

from .cc_session import Session

_STOP = "[Request interrupted by user for tool use]"


def _session() -> str:
    s = Session()
    s.user("what happens when a user runs the /plugin install command?")
    s.call("Task", {"description": "Explore plugin install", "prompt": "Find it"}, _STOP, True)
    s.user(_STOP)
    s.user("this is about the CLI itself, not this codebase")
    s.call("WebFetch", {"url": "https://docs.example.com/plugins"}, "Request failed: 404", True)
    s.call("WebFetch", {"url": "https://docs.example.com/cli/plugins"}, "Plugins are fetched.")
    s.say("The CLI fetches the plugin's repository and registers its commands.")
    return s.summary()


def test_an_interrupted_call_is_not_counted_nor_walked_as_failed() -> None:
    summary = _session()
    analysis = summary[: summary.index("<summary>")]
    assert "3 tool calls (1 failed, 1 interrupted by the user)" in analysis
    assert "Failed: `Task" not in analysis and "Failed: Task" not in analysis
    assert "Interrupted by the user (never completed): Task" in analysis.replace("`", "")
    assert "Failed: WebFetch" in analysis.replace("`", "")
    assert "(interrupted by the user, never completed)" in summary

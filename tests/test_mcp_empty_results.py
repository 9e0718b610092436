"""A search tool's result that found nothing, and an MCP tool's own unflagged error report
(blind check 70 W1, W2: ids next to empty data were what the searches "printed"; a 422 error
report was counted as "0 failed")."""

from __future__ import annotations

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result
from compactor.models.local_resultfacts import empty_report

from .cc_session import Session

_EMPTY = (
    "API Results:\n\n{'tor': {'id': '%s', 'totalCount': 0, 'filteredCount': 0, 'last': True, "
    "'data': [], 'cid': '%s'}, 'i2p': {'id': '%s', 'totalCount': 0, 'data': []}}"
)
_ERROR = (
    "Error calling Acme API: Client error '422 Unprocessable Entity' for url "
    "'https://api.acme.test/v2/search?query=x'\nFor more information check: "
    "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/422"
)


def _empty(seed: str) -> str:
    return _EMPTY % (seed * 16, seed * 16, (seed + "9") * 8)


def test_empty_search_result_says_nothing_found_not_its_ids() -> None:
    s = Session()
    s.user("Search the dark web and telegram for leak_corp_2023")
    s.call("mcp__acme__search_darkweb", {"text": "leak_corp_2023"}, _empty("dd32"))
    s.call("mcp__acme__search_telegram", {"text": "leak_corp_2023"}, _empty("f8ab"))
    s.call("mcp__acme__search_cl", {"text": "leak_corp_2023"}, _ERROR)
    s.say("Searching more sources.")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_v", "name": "Bash", "input": {"command": "vim a"}}]
    )
    summary = s.summary()
    assert "printed `id=dd32" not in summary and "printed `id=f8ab" not in summary
    assert "returned no results (totalCount 0 in every category)" in summary
    assert "4 tool calls (1 failed)" in summary
    assert "Client error '422 Unprocessable Entity'" in summary


def test_empty_report_needs_every_count_zero_and_every_list_empty() -> None:
    assert empty_report('{"total_count": 0, "items": []}') == "returned no results (total_count 0)"
    assert empty_report('{"results": []}') == "returned no results (every result list is empty)"
    assert empty_report('{"totalCount": 0, "data": []}, {"totalCount": 2, "data": [1]}') == ""
    assert empty_report('{"totalCount": 0, "data": [{"id": "x"}]}') == ""
    assert empty_report('{"id": "abc", "status": "ok"}') == ""
    assert empty_report("no document here, data: []") == ""


def test_unflagged_own_error_report_of_a_tool_is_a_failure() -> None:
    mcp = Call("c1", "mcp__acme__search_cl", '{"text": "x"}', 0)
    assert outcome(Result("c1", mcp.name, _ERROR), mcp).failed
    done = outcome(Result("c1", mcp.name, "Found 3 records"), mcp)
    assert not done.failed
    # a shell command's output is its program's: a status line printed on purpose
    sh = Call("c2", "Bash", '{"command": "curl -s -o /dev/null -w \\"HTTP %{http_code}\\" u"}', 0)
    assert not outcome(Result("c2", "Bash", "HTTP 404"), sh).failed

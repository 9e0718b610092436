"""A finding is not "superseded later" by a line of code that shares its identifier, and a
finding the user confirmed is superseded only by a fix (blind check 69 W4: "it fails with an
Internal Server Error when the `x-source-key` header is missing (superseded later:
'"x-source-key": sourceKey, // Direct pass-through')", the line another service's code in a
fenced block). Sessions built here, by shape, with invented content."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

_FINDING = (
    "As expected, it fails with an **Internal Server Error** when the `x-ledger-key` header is "
    "missing or invalid."
)


def _session(later: str, confirm: bool = True) -> Session:
    s = Session()
    s.user("call the ledger endpoint without the key header and see what happens")
    s.bash("curl -s -X POST localhost:8080/ledger", '{"error":"Internal Server Error"}')
    s.say(_FINDING)
    if confirm:
        s.user("Yeah fails if the ledger key is missing, I see it too")
    else:
        s.user("now look at how the gateway sends the header")
    s.bash("grep -rn x-ledger-key gateway/", "gateway/client.go:12: headers")
    s.say(later)
    return s


_FENCED = (
    "The gateway forwards the header as it gets it:\n\n```go\nheaders := map[string]string{\n"
    '    "x-ledger-key": ledgerKey, // Direct pass-through\n}\n```\n\nSo nothing checks it there.'
)
_BARE = (
    'In gateway/client.go the header is set like this: "x-ledger-key": ledgerKey, // pass-through'
)


@pytest.mark.parametrize("later", [_FENCED, _BARE])
@pytest.mark.parametrize("confirm", [True, False])
def test_a_code_line_sharing_the_identifier_supersedes_nothing(
    later: str, confirm: bool, tmp_path: Path
) -> None:
    decisions = " ".join(section(cc_summary(_session(later, confirm), tmp_path), 5).split())
    assert "Internal Server Error" in decisions, decisions
    assert "superseded later" not in decisions, decisions


def test_a_confirmed_finding_is_superseded_only_by_a_fix(tmp_path: Path) -> None:
    works = "The `x-ledger-key` lookup works for a valid key."
    decisions = " ".join(section(cc_summary(_session(works), tmp_path), 5).split())
    assert "superseded later" not in decisions, decisions
    fixed = "The `x-ledger-key` check is fixed in the ledger service."
    decisions = " ".join(section(cc_summary(_session(fixed), tmp_path), 5).split())
    assert "superseded later: 'The `x-ledger-key` check is fixed" in decisions, decisions

"""A search that found nothing is said so in the list of calls: it explains the next call
(blind check 72 N6, apify_docs: two ``Glob`` calls returned "No files found", which is why the
agent ran ``find`` next; the summary listed them as if they had found something). Sessions built
by shape, invented content."""

from __future__ import annotations

from .cc_session import Session, section


def _summary() -> str:
    s = Session()
    s.user("Fix typos in the billing page of the docs")
    s.call("Glob", {"pattern": "**/billing.md"}, "No files found")
    s.call("Grep", {"pattern": "overage", "path": "docs"}, "No matches found")
    s.call("Glob", {"pattern": "**/*.md"}, "/srv/docs/sources/console/billing.md")
    s.call("Read", {"file_path": "/srv/docs/sources/console/billing.md"}, "1\tBilling\n")
    s.say("One typo fixed: 200$ is now $200.")
    return s.summary()


def test_a_search_that_found_nothing_is_marked() -> None:
    solving = section(_summary(), 5)
    assert 'Glob(pattern=**/billing.md) (found nothing: "No files found")' in solving
    assert '(found nothing: "No matches found")' in solving
    assert "Glob(pattern=**/*.md) (found" not in solving
    assert "billing.md) (found nothing" not in solving.replace("**/billing.md) (found", "")

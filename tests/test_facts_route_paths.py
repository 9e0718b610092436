"""Paths of file-system routers (Next.js, SvelteKit, Nuxt) are whole paths, and files named
only in the user's prose are said to be so (issue 28): ``app/[slug]/page.tsx`` was read as its
fragment ``/page.tsx``, a file no one wrote, and files the user only mentioned read as real."""

from __future__ import annotations

import pytest

from compactor.facts import paths
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Edit app/events/[slug]/page.tsx now", ["app/events/[slug]/page.tsx"]),
        ("see app/(marketing)/layout.tsx", ["app/(marketing)/layout.tsx"]),
        ("and src/app/[...slug]/page.tsx", ["src/app/[...slug]/page.tsx"]),
        ("opt app/[[...opt]]/page.tsx", ["app/[[...opt]]/page.tsx"]),
        ("the route app/blog/[id]/[comment]/route.ts.", ["app/blog/[id]/[comment]/route.ts"]),
        ("`src/routes/(app)/+page.svelte`", ["src/routes/(app)/+page.svelte"]),
        ("(see src/a.py) and [docs](docs/x.md)", ["src/a.py", "docs/x.md"]),
        ("tuple (src/a.py, src/b.py)", ["src/a.py", "src/b.py"]),
    ],
)
def test_route_segments_are_part_of_the_path(text: str, expected: list[str]) -> None:
    assert [p for _, p in paths(text)] == expected


def test_a_file_written_under_a_route_segment_is_that_file_not_a_fragment() -> None:
    s = SessionBuilder()
    s.user("Add the event detail page.")
    s.call(
        "Write",
        {"file_path": "app/events/[slug]/page.tsx", "content": "export default function P() {}"},
        "File created successfully at: app/events/[slug]/page.tsx",
    )
    s.call("Bash", {"command": "sed -i 's/P/Page/' app/events/[slug]/page.tsx"}, "")
    s.say("Added app/events/[slug]/page.tsx.")
    files = section(summarize_transcript(s.messages), 3)
    assert "app/events/[slug]/page.tsx" in files
    assert "`/page.tsx`" not in files and " /page.tsx" not in files, files


def test_files_only_in_the_users_words_are_said_to_be_so() -> None:
    s = SessionBuilder()
    s.user("Our Next.js pages app/page.tsx and app/portfolio/page.tsx must show the wallet; "
           "see src/lib/wallet.ts.")  # fmt: skip
    s.call("Read", {"file_path": "src/lib/wallet.ts"}, "export const wallet = 1")
    s.say("The project is Vite + React; there is no app/ directory.")
    files = section(summarize_transcript(s.messages), 3)
    line = next(ln for ln in files.splitlines() if "never by a call" in ln)
    assert "app/page.tsx" in line and "app/portfolio/page.tsx" in line, files
    assert "src/lib/wallet.ts" not in line

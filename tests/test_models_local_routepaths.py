"""Blind check 41 W7 (issue 28): a script in a shell call that rewrites a web framework's route
file (``pages/[id].astro``, ``app/(shop)/page.tsx``, ``routes/$slug.tsx``) changes that file,
and the Edit diff shown before it is then no longer called the file's "latest change"."""

from __future__ import annotations

import pytest

from compactor.facts.shellwrites import script_writes
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section


@pytest.mark.parametrize(
    "path", ["src/pages/[id].astro", "app/(shop)/page.tsx", "app/routes/$slug.tsx", "[...all].ts"]
)
def test_a_route_file_a_script_writes_is_a_write(path: str) -> None:
    script = f"python3 - <<'PY'\np = '{path}'\ns = open(p).read()\nopen(p, 'w').write(s)\nPY"
    assert script_writes(script) == [path]


def test_code_in_quotes_is_still_no_path() -> None:
    assert script_writes("python3 -c \"open(f(x), 'w')\"") == []
    assert script_writes("python3 -c \"p = 'print(x)'; open(p, 'w')\"") == []


def _session(later: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("show the sticky bar on every page except the excluded ones")
    for i in range(3):
        s.call(
            "Edit",
            {
                "file_path": "/repo/src/pages/[id].astro",
                "old_string": f"old line {i}",
                "new_string": f"const showStickyBar = check{i}(page)",
            },
            "The file /repo/src/pages/[id].astro has been updated.",
        )
    s.user("use the helper from the constants file instead of the local list")
    s.call("Bash", {"command": later}, "")
    s.say("Done: the page now uses the helper.")
    return s


def test_a_script_rewriting_a_route_file_after_edits_is_its_latest_change() -> None:
    script = (
        "cd /repo && python3 - <<'PY'\np = 'src/pages/[id].astro'\ns = open(p).read()\n"
        "s = s.replace('const showStickyBar', '// moved')\nopen(p, 'w').write(s)\nPY"
    )
    files = section(summarize_transcript(_session(script).messages), 3)
    assert "[id].astro (edited, then changed by a script in a shell call, Bash" in files, files
    assert "latest change" not in files, files
    assert "an earlier change (the later one, by a script, is not shown)" in files, files


def test_a_later_read_leaves_the_edit_diff_the_latest_change() -> None:
    files = section(summarize_transcript(_session("grep -n sticky src/pages/*.astro").messages), 3)
    assert "[id].astro (edited by Edit, 3 changes)" in files, files
    assert "latest change:" in files and "const showStickyBar = check2(page)" in files, files

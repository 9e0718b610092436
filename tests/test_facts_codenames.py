"""A name used in code is no file, and a folder path is never cut at a hyphen (blind check 36
W3: ``process.env`` of a quoted ``retries: process.env.CI ? 2 : 1`` listed among "Every file
the earlier summary names"; check 35's leftover: ``ls /a/foo-bar/`` read as ``/a/foo``)."""

from __future__ import annotations

from pathlib import Path

from compactor.facts.patterns import paths

from .cc_session import Session, cc_summary
from .test_models_local_session import section


def _found(text: str) -> list[str]:
    return [p for _, p in paths(text)]


def test_a_member_call_or_index_in_code_is_no_file() -> None:
    assert _found("retries: process.env.CI ? 2 : 1,") == []
    assert _found("const url = process.env.NODE_ENV") == []
    assert _found('const key = process.env["API_KEY"]') == []
    assert _found("return res.json();") == []
    assert _found("if (cfg.yaml?.name) {}") == []


def test_real_files_next_to_code_are_still_files() -> None:
    assert _found("copy .env.example to config/.env and app.env.") == ["config/.env", "app.env"]
    assert _found("edit foo.py. Then run it") == ["foo.py"]
    assert _found("src/cli.ts(877,31): error TS2339 and cli.ts(9,1): error") == [
        "src/cli.ts",
        "cli.ts",
    ]
    assert _found("see [README.md](docs/README.md)") == ["README.md", "docs/README.md"]


def test_a_folder_with_a_hyphen_and_its_closing_slash_is_kept_whole() -> None:
    assert _found("ls /a/foo-bar/") == ["/a/foo-bar/"]
    assert _found("ls -la /srv/my-app/ && cat /srv/my-app/run.sh") == [
        "/srv/my-app/",
        "/srv/my-app/run.sh",
    ]
    assert _found("rm -rf ~/tmp/build-cache/ now") == ["~/tmp/build-cache/"]
    assert _found("ls /a/foo.bar/") == ["/a/foo.bar/"]
    assert _found("cd /tmp/") == []  # one folder only: no fact, as without the slash


_EARLIER = """This session is being continued from a previous conversation that ran out of \
context. The conversation is summarized below:
Analysis:
The user asked to make the e2e tests pass.

Summary:
1. Primary Request and Intent:
   Make the Playwright e2e tests pass.

2. Key Technical Concepts:
   - Playwright

3. Files and Code Sections:
   - packages/ui/playwright.config.ts
     ```ts
     export default defineConfig({
       retries: process.env.CI ? 2 : 1,
       use: { baseURL: process.env["BASE_URL"] },
     });
     ```
   - packages/ui/src/components/Tree.tsx

4. Errors and fixes:
   - none
"""


def test_the_earlier_summarys_files_hold_no_code_expression(tmp_path: Path) -> None:
    s = Session()
    s.user("make the e2e tests pass")
    s.compacted(_EARLIER)
    s.user("go on with the e2e tests")
    s.call("Read", {"file_path": "/home/dev/board/e2e/a.spec.ts"}, "test('a', () => {})")
    files = section(cc_summary(s, tmp_path), 3)
    named = next(ln for ln in files.splitlines() if "Every file the earlier summary names" in ln)
    assert "packages/ui/playwright.config.ts" in named, named
    assert "packages/ui/src/components/Tree.tsx" in named, named
    assert "process.env" not in named, named

"""Blind check 26, N2 (row 1185): the assistant's own claim of success that a later result
contradicts. cc-matt §5 listed "Complete frontend successfully built and pushed to GitHub!" among
the results stated by the assistant while the last build after it failed (which §4 listed as
unfixed): the summary contradicted itself."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_BUILT = "✓ Compiled successfully\nRoute (app) Size\n/ 1.2 kB"
_PUSHED = "[main 1a2b3c4] frontend\nTo github.com:u/app.git\n   0a1..1a2  main -> main"
_CLAIM = "Complete frontend successfully built and pushed to GitHub!"


def _session(later: list[tuple[str, str, bool]]) -> str:
    """A build and a push, the assistant's claim that both worked, then ``later`` calls
    (command, output, failed) for the next request; section 5 of the summary."""
    s = SessionBuilder()
    s.user("build the frontend and push it")
    s.call("Bash", {"command": "cd /w/app && pnpm build"}, _BUILT)
    s.call("Bash", {"command": "cd /w && git add -A && git commit -m fe && git push"}, _PUSHED)
    s.say(f"{_CLAIM} The app uses the new SDK on every page.")
    s.user("add the wallet page and publish it")
    s.call("Write", {"file_path": "/w/app/wallet.tsx", "content": "import { sdk } from 'x'\n"},
           "File created")  # fmt: skip
    for command, output, failed in later:
        s.call("Bash", {"command": command}, output, error=failed)
    s.say("The wallet page is written.")
    return section(summarize_transcript(s.messages), 5)


_BUILD_FAILED = "Failed to compile.\n./wallet.tsx\nModule not found: Can't resolve 'x'\nExit code 1"


def test_a_success_claim_a_later_build_failure_contradicts_is_labelled() -> None:
    solving = _session([("cd /w/app && pnpm build", _BUILD_FAILED, True)])
    claim = next(x for x in solving.splitlines() if _CLAIM in x)
    assert "(contradicted later: `Bash: cd /w/app && pnpm build` failed: " in claim, solving
    assert "Module not found" in claim, solving


def test_a_push_claim_a_later_refused_push_contradicts_is_labelled() -> None:
    refused = (
        "remote: error: GH013: Repository rule violations found for refs/heads/main.\n"
        "To github.com:u/app.git\n ! [remote rejected] main -> main (push declined)\n"
        "error: failed to push some refs to 'github.com:u/app.git'\nExit code 1"
    )
    solving = _session([("cd /w && git commit -am wallet && git push origin main", refused, True)])
    claim = next(x for x in solving.splitlines() if _CLAIM in x)
    assert "(contradicted later: `Bash: cd /w && git commit -am wallet && git push" in claim


def test_a_claim_whose_later_failure_was_fixed_or_of_another_kind_stands() -> None:
    fixed = _session(
        [
            ("cd /w/app && pnpm build", _BUILD_FAILED, True),
            ("cd /w/app && pnpm add x", "+ x 1.0.0", False),
            ("cd /w/app && pnpm build", _BUILT, False),  # the latest build succeeded
            ("ls /w/missing", "ls: cannot access '/w/missing': No such file or directory", True),
        ]
    )
    assert _CLAIM in fixed, fixed
    assert "contradicted later" not in fixed, fixed

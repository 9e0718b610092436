"""Blind check 37 (fix37d): which later call settles a failure. An escalated rerun of the same
command that got past the first error (the sandbox's docker.sock denial) and failed with
another (a certificate error) supersedes the first failure; a later rejected call says nothing
about it (W1). A failed patch of one file is fixed only by a later write of that file, not by a
patch of another (W5). A prerequisite script that failed for want of a feature folder is not
open once a later run of the same script succeeded or the missing path was made (W6). Every
session is built here, by shape, with invented content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .test_models_local_session import section

_SESSION = "1a2b3c4d-0000-4000-8000-000000000374"


def _command(
    n: int, command: str, code: int, out: str, escalated: bool = False, cwd: str = "/w/app"
) -> list[Any]:
    """A ``shell_command`` call run in ``cwd`` (escalated: outside the sandbox) and its output."""
    args: dict[str, Any] = {"command": command, "workdir": cwd}
    if escalated:
        args |= {"sandbox_permissions": "require_escalated", "justification": "needs docker"}
    call = {"type": "function_call", "name": "shell_command", "call_id": f"c{n}"}
    call["arguments"] = json.dumps(args)
    text = f"Exit code: {code}\nWall time: 0.2 seconds\nOutput:\n{out}"
    result = {"type": "function_call_output", "call_id": f"c{n}", "output": text}
    return [rec("response_item", call), rec("response_item", result)]


def _rejected(n: int, command: str) -> list[Any]:
    """An escalated ``shell_command`` the user rejected."""
    args = {"command": command, "workdir": "/w/app", "sandbox_permissions": "require_escalated"}
    call = {"type": "function_call", "name": "shell_command", "call_id": f"c{n}"}
    call["arguments"] = json.dumps(args)
    result = {"type": "function_call_output", "call_id": f"c{n}"}
    result["output"] = "exec command rejected by user"
    return [rec("response_item", call), rec("response_item", result)]


def _item(errors: str, head: str) -> str:
    """The section-4 item of the failure whose line starts with ``head``."""
    at = errors.index("   - " + head)
    end = errors.find("\n   - `", at)
    return errors[at : end if end > 0 else len(errors)]


# -- W1: an escalated rerun got past the first error -------------------------------------------

_MIGRATE = "docker compose run --rm api python manage.py migrate"
_SOCK = (
    "permission denied while trying to connect to the Docker daemon socket at "
    'unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.51/containers/json"\n'
)
_CERT = (
    'Traceback (most recent call last):\n  File "/app/settings.py", line 88, in <module>\n'
    "FileNotFoundError: [Errno 2] No such file or directory: '/certs/idp-signing.cer'\n"
)


def _migrations(then: list[Any]) -> list[Any]:
    return [
        codex_user("Run the migrations against the compose stack."),
        *_command(1, _MIGRATE, 1, _SOCK),
        *_command(2, _MIGRATE, 1, _CERT, escalated=True),
        codex_say("The sandbox blocked docker; outside it Django now fails on the IdP cert."),
        *then,
    ]


def test_an_escalated_rerun_with_another_error_supersedes_the_first_failure(
    tmp_path: Path,
) -> None:
    other = "docker compose run --rm -e IDP_CERT_PATH=/dev/null api python manage.py migrate"
    records = _migrations([*_rejected(3, other), codex_say("Waiting for your approval.")])
    errors = section(codex_summary(records, tmp_path, _SESSION, "/w/app"), 4)
    item = _item(errors, "`shell_command: docker compose run --rm api python manage.py migrate`")
    assert "rejected" not in item, errors  # the rejected call of another command says nothing
    assert "Not fixed" not in item, errors
    assert "Got past it" in item and "idp-signing.cer" in item, errors


def test_a_rerun_with_the_same_error_still_leaves_the_failure_open(tmp_path: Path) -> None:
    records = [
        codex_user("Run the migrations against the compose stack."),
        *_command(1, _MIGRATE, 1, _SOCK),
        *_command(2, _MIGRATE, 1, _SOCK.replace("v1.51", "v1.52"), escalated=True),
        codex_say("Docker is still not reachable."),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, "/w/app"), 4)
    item = _item(errors, "`shell_command: docker compose run --rm api python manage.py migrate`")
    assert "Got past" not in item and "Not fixed: a later" in item, errors


# -- W5: a patch failure is fixed by a write of the same file -----------------------------------


def _patch(n: int, path: str, old: str, new: str, applied: bool, custom: bool) -> list[Any]:
    """An ``apply_patch`` of ``path``: Codex's custom tool (``custom``) or the legacy ``shell``
    tool's ``apply_patch <<'PATCH'`` heredoc; applied or not (the verification failed)."""
    body = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch"
    out = (
        f"Success. Updated the following files:\nM {path}\n"
        if applied
        else "apply_patch verification failed: Failed to find expected lines in "
        f"C:\\w\\app\\{path.replace('/', chr(92))}:\n{old}\n"
    )
    if custom:
        call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": f"p{n}"}
        call["input"] = body
        result = {"type": "custom_tool_call_output", "call_id": f"p{n}", "output": out}
        return [rec("response_item", call), rec("response_item", result)]
    script = f"apply_patch <<'PATCH'\n{body}\nPATCH"
    args = json.dumps({"command": ["bash", "-lc", script], "workdir": "/w/app"})
    call = {"type": "function_call", "name": "shell", "call_id": f"p{n}", "arguments": args}
    result = {"type": "function_call_output", "call_id": f"p{n}", "output": out}
    return [rec("response_item", call), rec("response_item", result)]


_HOSTING_OLD = '    "public": "web/public",'
_HOSTING_NEW = '    "public": "web",'
_PAGE_OLD = '<script type="module" src="/public/app.js"></script>'
_PAGE_NEW = '<script type="module" src="/app.js"></script>'
_REWRITE = (
    '@\'\n{\n  "hosting": {\n    "public": "web",\n    "rewrites": [{"source": "**", '
    '"destination": "/index.html"}]\n  }\n}\n\'@ | Set-Content -Path firebase.json -Encoding utf8'
)


def _hosting(custom: bool, rewrite: bool) -> list[Any]:
    records = [
        codex_user("Serve the app from web/ and fix the script path."),
        *_patch(1, "firebase.json", _HOSTING_OLD, _HOSTING_NEW, False, custom),
        *_patch(2, "web/index.html", _PAGE_OLD, _PAGE_NEW, True, custom),
    ]
    if rewrite:
        records += _command(3, _REWRITE, 0, "", cwd="C:\\w\\app")
    return [*records, codex_say("Hosting serves web/ now."), codex_user("thanks")]


def test_a_failed_patch_is_not_fixed_by_a_patch_of_another_file(tmp_path: Path) -> None:
    for custom in (True, False):
        errors = section(codex_summary(_hosting(custom, False), tmp_path, _SESSION, "/w/app"), 4)
        item = _item(errors, "`apply_patch" if custom else "`shell: bash -lc apply_patch")
        assert "firebase.json" in item, errors
        assert "Fixed" not in item and "Worked around" not in item, errors  # only next


def test_a_failed_patch_is_fixed_by_a_shell_rewrite_of_its_file(tmp_path: Path) -> None:
    for custom in (True, False):
        errors = section(codex_summary(_hosting(custom, True), tmp_path, _SESSION, "/w/app"), 4)
        item = _item(errors, "`apply_patch" if custom else "`shell: bash -lc apply_patch")
        assert "Set-Content -Path firebase.json" in item, errors
        assert "web/index.html" not in item, errors


# -- W6: a prerequisite that failed for want of a feature folder, then ran for the named one ----

_ROOT = "C:\\w\\tower"
_CHECK = ".specify/scripts/powershell/check-prerequisites.ps1 -Json"
_NO_FEATURE = (
    f"ERROR: Feature directory not found: {_ROOT}\\specs\\master\n"
    "Run /speckit.specify first to create the feature structure.\n"
)
_MISSING_SPEC = (  # Windows PowerShell in German (blind check 37's cx-jenga)
    f'Get-Content : Der Pfad "{_ROOT}\\specs\\master\\spec.md" kann nicht gefunden werden, da er '
    "nicht vorhanden ist.\n"
)


def _planning(later: list[Any]) -> list[Any]:
    return [
        codex_user("/speckit.plan Build the stacking game with a score board."),
        *_command(1, _CHECK, 1, _NO_FEATURE, cwd=_ROOT),
        *_command(2, f"Get-Content {_ROOT}\\specs\\master\\spec.md", 1, _MISSING_SPEC, cwd=_ROOT),
        codex_say(
            f"Cannot proceed: the expected feature spec is missing at {_ROOT}\\specs\\master."
        ),
        codex_user("/speckit.plan 001-tower"),
        *later,
        codex_say("Plan written: specs/001-tower/plan.md."),
        codex_user("great, thanks"),
    ]


_FEATURE_RUN = [
    *_command(
        3,
        "$env:SPECIFY_FEATURE='001-tower'; " + _CHECK,
        0,
        '{"FEATURE_DIR":"C:\\\\w\\\\tower\\\\specs\\\\001-tower","AVAILABLE_DOCS":[]}\n',
        cwd=_ROOT,
    ),
    *_command(4, f"Get-Content {_ROOT}\\specs\\001-tower\\spec.md", 0, "# Tower\n", cwd=_ROOT),
    *_patch(5, "specs/001-tower/plan.md", "", "# Plan", True, True),
]


def test_a_prerequisite_that_later_ran_for_the_named_feature_is_not_open(tmp_path: Path) -> None:
    text = codex_summary(_planning(_FEATURE_RUN), tmp_path, _SESSION, _ROOT)
    errors = section(text, 4)
    for head in ("`shell_command: .specify/scripts", "`shell_command: Get-Content"):
        item = _item(errors, head)
        assert "Not retried afterwards" not in item and "Not fixed" not in item, errors
        assert "001-tower" in item, errors  # the later run that got it done
    assert "Unresolved failure" not in section(text, 7)


def test_a_prerequisite_never_run_again_stays_open(tmp_path: Path) -> None:
    other = [*_command(3, "git status --short", 0, " M README.md\n", cwd=_ROOT)]
    errors = section(codex_summary(_planning(other), tmp_path, _SESSION, _ROOT), 4)
    item = _item(errors, "`shell_command: .specify/scripts")
    assert "Worked around" not in item and "Fixed" not in item, errors


def test_a_missing_file_made_later_is_not_open(tmp_path: Path) -> None:
    made = [*_patch(3, "specs/master/spec.md", "", "# Tower", True, True)]
    errors = section(codex_summary(_planning(made), tmp_path, _SESSION, _ROOT), 4)
    item = _item(errors, "`shell_command: Get-Content")
    assert "Not retried afterwards" not in item, errors
    assert "Worked around by `apply_patch(" in item and "made after it" in item, errors


def test_a_script_run_again_in_another_form_for_the_named_feature_fixes_it(
    tmp_path: Path,
) -> None:
    check = "& .\\.specify\\scripts\\powershell\\check-prerequisites.ps1 -Json"
    later = [
        *_command(
            3,
            "powershell -NoProfile -File .specify/scripts/powershell/check-prerequisites.ps1 "
            "-Json -RequireTasks",
            0,
            '{"FEATURE_DIR":"C:\\\\w\\\\tower\\\\specs\\\\001-tower"}\n',
            cwd=_ROOT,
        ),
    ]
    records = [
        codex_user("/speckit.tasks"),
        *_command(1, check, 1, _NO_FEATURE, cwd=_ROOT),
        codex_say("Cannot proceed: no feature folder for branch master."),
        codex_user("the feature is 001-tower"),
        *later,
        codex_say("Tasks written."),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, _ROOT), 4)
    item = _item(errors, "`shell_command: & ")
    assert "Not retried afterwards" not in item and "Next call after it" not in item, errors
    assert "check-prerequisites.ps1 -Json -RequireTasks" in item, errors


def test_a_script_of_the_same_name_in_another_folder_is_no_fix(tmp_path: Path) -> None:
    records = [
        codex_user("Build both packages."),
        *_command(1, "& .\\pkg-a\\build.ps1 -Release", 1, "ERROR: missing toolchain\n", cwd=_ROOT),
        *_command(2, "powershell -File pkg-b/build.ps1 -Release", 0, "built\n", cwd=_ROOT),
        codex_say("pkg-b is built; pkg-a needs the toolchain."),
    ]
    errors = section(codex_summary(records, tmp_path, _SESSION, _ROOT), 4)
    item = _item(errors, "`shell_command: & ")
    assert "Worked around" not in item and "Fixed" not in item, errors

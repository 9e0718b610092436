"""Inline scripts of one interpreter on the same files are one chain of attempts (blind check 55,
W2).

A ``python -c "…"`` inspection of two data stores failed, was run again and failed, a
``python << 'EOF'`` heredoc on the same stores failed the same way, and a later heredoc on them
succeeded. Section 4 credited the last call as the fix of the heredoc before it but listed the
``-c`` failure as "Not fixed: a later … failed too": a ``-c`` script is one quoted word, so
nothing tied it to a heredoc. Now the fix check follows the chain whatever the quoting form;
a script on other files is no fix. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts.inlinescript import inline_interpreter, same_inline_script

from .cc_session import Session, cc_summary
from .test_models_local_session import section

MASK = "/srv/lab/run7/segmentation/mask.zarr"
ORIG = "/srv/lab/run7/segmentation/original.zarr"
OTHER = "/srv/lab/run9/tracks.parquet"
ERROR = "AttributeError: 'Array' object has no attribute 'array_keys'"
FAILED = 'Exit code 1\nTraceback (most recent call last):\n  File "<string>", line 3\n' + ERROR


def _dash_c(body: str) -> str:
    return 'python -c "\n' + body + '\n"'


def _heredoc(body: str) -> str:
    return "python << 'EOF'\n" + body + "\nEOF"


def _inspected(last_files: tuple[str, str]) -> Session:
    s = Session()
    s.user("Check the two segmentation stores and tell me their shapes.")
    probe = _dash_c(
        f"import zarr\nz = zarr.open('{MASK}', mode='r')\nfor k in z.array_keys(): print(k)\n"
        f"o = zarr.open('{ORIG}', mode='r')\nprint(o.attrs)"
    )
    s.call("Bash", {"command": probe, "description": "Inspect the stores"}, FAILED, True)
    s.call("Bash", {"command": probe, "description": "Inspect the stores"}, FAILED, True)
    again = _heredoc(
        f"import zarr\no = zarr.open('{ORIG}', mode='r')\nfor k in o.array_keys(): print(k)\n"
        f"m = zarr.open('{MASK}', mode='r')\nprint(type(m))"
    )
    s.call("Bash", {"command": again, "description": "Inspect the stores"}, FAILED, True)
    one, two = last_files
    works = _heredoc(
        f"import zarr\nm = zarr.open('{one}', mode='r')\nprint('type:', type(m))\n"
        f"o = zarr.open('{two}', mode='r')\nprint('shape:', o['0'].shape)"
    )
    s.call(
        "Bash",
        {"command": works, "description": "Inspect the stores"},
        "type: <class 'zarr.Group'>\nshape: (1, 1, 1518, 2320, 2317)",
    )
    s.say("Both stores are groups; the original is (1, 1, 1518, 2320, 2317). Which scope next?")
    return s


def test_a_heredoc_on_the_same_files_fixes_the_failed_dash_c(tmp_path: Path) -> None:
    errors = section(cc_summary(_inspected((MASK, ORIG)), tmp_path), 4)
    assert "Not fixed" not in errors, errors
    assert errors.count("Fixed: a later") == 2, errors  # the -c (run twice) and the heredoc


def test_a_script_on_other_files_fixes_nothing(tmp_path: Path) -> None:
    errors = section(cc_summary(_inspected((OTHER, OTHER)), tmp_path), 4)
    assert "Fixed: a later" not in errors, errors


@pytest.mark.parametrize(
    ("command", "interpreter"),
    [
        ('python -c "import x"', "python"),
        ("python3 - <<'PY'\nimport x\nPY", "python"),
        ("cd /srv && PYTHONPATH=. python3.11 -u <<EOF\nimport x\nEOF", "python"),
        ("bash -lc 'node -e \"require(1)\"'", "node"),
        ("python script.py /srv/a.zarr", ""),
        ("pytest -q tests", ""),
    ],
)
def test_inline_interpreter_by_shape(command: str, interpreter: str) -> None:
    assert inline_interpreter(command) == interpreter


def test_same_inline_script_needs_every_file_of_the_failed_one() -> None:
    files, more = frozenset({MASK}), frozenset({MASK, ORIG})
    assert same_inline_script('python -c "a"', "python <<EOF\nb\nEOF", files, more)
    assert not same_inline_script('python -c "a"', "python <<EOF\nb\nEOF", more, files)
    assert not same_inline_script('python -c "a"', 'node -e "b"', files, files)
    assert not same_inline_script('python -c "a"', 'python -c "b"', frozenset(), files)

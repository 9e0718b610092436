"""Blind check 63 S1: a key the user typed on its own line (and one after "try this") was
printed whole in §6 "All user messages" while §1, §3, §5 and §8 showed it as ``***``: the
summary masked it where a tool call gave it a credential context (``"key": "…"``,
``ANTHROPIC_AUTH_TOKEN=…``), but finalize re-inserts the user's messages from the unmasked
input and masking the finished summary again found no context there. ``compact eval --json``
printed the key too, in its "current request" item. Every section of the written summary now
masks the same values, and so does eval's report."""

from __future__ import annotations

import json
import string
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .cc_session import Session
from .fake_server_cli import invoke

HEX, ALNUM = "0123456789abcdef", string.ascii_letters + string.digits
# an invented key of the shape "32 hex . 16 letters and digits" (no known prefix)
KEY_A = "5c0ffee1d2a94b7e8f3c6a1b0d9e2f47.QwErTy12AsDf34Zx"
KEY_B = "9a8b7c6d5e4f40312a1b2c3d4e5f6a7b.Mn0PqR5tUv8WxY2z"


def _session(key_a: str, key_b: str, where: int) -> Session:
    s = Session()
    s.user(f"the tool says invalid api key, help me get it working\n{key_a}")
    s.call("Read", {"file_path": "/home/dev/.config/tool/auth.json"}, '{"key": "old"}')
    s.call(
        "Edit",
        {
            "file_path": "/home/dev/.config/tool/auth.json",
            "old_string": '"key": "old"',
            "new_string": f'"key": "{key_a}"',
        },
        "The file has been updated.",
    )
    s.bash(f"export TOOL_AUTH_TOKEN={key_a} && tool run test", "Error: invalid api key")
    s.say("The key is rejected by the server.")
    second = [f"try this {key_b}", f"{key_b}", f"try this one:\n{key_b}\nthanks"][where % 3]
    s.user(second)
    s.bash(f"export TOOL_AUTH_TOKEN={key_b} && tool run test", "Error: invalid api key")
    s.say("Still rejected.")
    return s


def _run(tmp_path: Path, s: Session) -> tuple[Path, Path, str]:
    src, out = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    res = invoke(
        ["run", str(src), "--model", "local", "--force", "--no-cache", "-q", "-o", str(out)]
    )
    assert res.returncode == 0, res.stderr
    shown = invoke(["show", str(out)])
    assert shown.returncode == 0, shown.stderr
    return src, out, shown.stdout.decode()


def test_a_key_on_its_own_line_is_masked_in_the_user_messages_too(tmp_path: Path) -> None:
    _, _, summary = _run(tmp_path, _session(KEY_A, KEY_B, 0))
    assert "All user messages" in summary and "help me get it working" in summary
    assert "***" in summary
    assert KEY_A not in summary and KEY_B not in summary
    assert KEY_A[:12] not in summary and KEY_B[:12] not in summary


def test_eval_reports_the_request_as_the_summary_shows_it(tmp_path: Path) -> None:
    src, out, _ = _run(tmp_path, _session(KEY_A, KEY_B, 0))
    res = invoke(["eval", "--json", str(src), str(out)])
    report = res.stdout.decode()
    assert KEY_A not in report and KEY_B not in report
    current = next(c for c in json.loads(report)["categories"] if c["name"] == "current request")
    assert current["items"][0]["text"] == "try this ***"
    assert current["items"][0]["how"] == "verbatim"  # matched as the summary writes it


_KEY = st.tuples(
    st.text(HEX, min_size=32, max_size=32), st.text(ALNUM, min_size=16, max_size=16)
).map(lambda p: f"{p[0]}.{p[1]}")


@settings(
    max_examples=6,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(key_a=_KEY, key_b=_KEY, where=st.integers(0, 2))
def test_a_value_masked_in_one_section_appears_in_no_section(
    tmp_path: Path, key_a: str, key_b: str, where: int
) -> None:
    """Property: for any summary written, a key masked in one section is in no section."""
    if not (any(c.isdigit() for c in key_b[33:]) and any(c.isalpha() for c in key_b[33:])):
        key_b = key_b[:33] + "a1" + key_b[35:]
    _, _, summary = _run(tmp_path, _session(key_a, key_b, where))
    assert "***" in summary
    for key in (key_a, key_b):
        assert key not in summary, key

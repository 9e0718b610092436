"""A credential's value in a JSON body is masked in the summary however the body is quoted
(blind check 34: a curl login body's ``"password":"…"`` was printed in clear): plain JSON,
JSON inside a double-quoted shell string (``\\"password\\":\\"x\\"``), a single-quoted
``-d``/``--data`` body; the value goes, the key stays."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor._util import mask_secret_values

from .cc_session import Session as CcSession
from .test_masking_lists32 import summarize_transcript_of

_KEYS = ("password", "token", "api_key", "secret", "client_secret")
_VALUE = st.builds(
    lambda head, digit, tail: head + digit + tail,
    st.text("abcdefghkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ", min_size=4, max_size=8),
    st.sampled_from("23456789"),
    st.text("abcdefghkmnpqrstuvwxyz23456789!#%@", min_size=2, max_size=6),
)


def _body(key: str, value: str) -> str:
    return '{"email":"demo@example.org","' + key + '":"' + value + '"}'


def _command(key: str, value: str, quoting: str) -> str:
    body = _body(key, value)
    url = "http://localhost:3001/api/auth/login"
    if quoting == "json":
        return f"node scripts/login.js {body}"
    if quoting == "escaped":
        return f'curl -s -X POST {url} -d "{body.replace(chr(34), chr(92) + chr(34))}"'
    if quoting == "escaped_twice":
        inner = body.replace('"', '\\\\\\"')
        return f'bash -lc "curl -s {url} -d \\"{inner}\\""'
    return f"curl -s -X POST {url} -H 'Content-Type: application/json' --data '{body}'"


def _summary(command: str) -> str:
    s = CcSession()
    s.user("Log in with the demo account and check that the asset list is forbidden.")
    s.bash(command, '{"error":"forbidden"}')
    s.bash(command + " -i", "HTTP/1.1 403 Forbidden")
    s.assistant([{"type": "text", "text": "The red line holds: 403 for the employee."}])
    return summarize_transcript_of(s)


def test_the_escaped_json_body_of_a_curl_is_masked_and_its_key_kept() -> None:
    line = 'curl -s -d "{\\"email\\":\\"x@y.z\\",\\"password\\":\\"Hunter2xyz\\"}" http://x'
    assert mask_secret_values(line) == (
        'curl -s -d "{\\"email\\":\\"x@y.z\\",\\"password\\":\\"***\\"}" http://x'
    )
    text = _summary(line)
    assert "Hunter" not in text, text  # also where a cut ends the command mid-value
    assert '\\"password\\":\\"***' in text, text


def test_a_value_cut_before_its_closing_quote_is_masked() -> None:
    assert mask_secret_values('`curl -d \'{"password":"Hunt`') == '`curl -d \'{"password":"***`'
    assert mask_secret_values('"token": "abc12…') == '"token": "***…'
    assert mask_secret_values('"password": ""') == '"password": ""'  # empty: nothing to mask


@settings(max_examples=40, deadline=None)
@given(
    key=st.sampled_from(_KEYS),
    quoting=st.sampled_from(("json", "escaped", "escaped_twice", "single_quoted_body")),
    value=_VALUE,
)
def test_no_credential_value_of_a_json_body_survives_in_the_summary(
    key: str, quoting: str, value: str
) -> None:
    command = _command(key, value, quoting)
    text = _summary(command)
    assert value not in text, (command, text)
    # nor the start of it where a cut ended it: no more often than in the summary of the same
    # session without it (a generated value may start like a word the summary holds anyway:
    # "Reque…" in "Request", a false alarm Hypothesis found)
    control = _summary(_command(key, "Zq9Zq9Zq", quoting))
    assert text.count(value[:5]) <= control.count(value[:5]), (command, text)
    assert key in text, (command, text)  # the key is kept

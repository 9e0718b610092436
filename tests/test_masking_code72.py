"""Blind check 72 (N3): a credential-named key whose value is a short expression of names with
an operator (``hasApiKey: !!apiKey``, ``apiKey: cfg?.apiKey``, ``token: key!==null``) is code,
not a secret: the summary showed the logging line of an Edit as ``hasApiKey: ***``. A literal,
a long token and a value that names no code stay masked, by both maskers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor._util import mask_secret_values
from compactor.models.local_mask import masked_whole
from compactor.secrets.masking import SecretMasker

from .cc_session import Session


@pytest.mark.parametrize(
    "text",
    [
        "hasApiKey: !!apiKey,",
        "  + hasApiKey: !!apiKey,",
        "apiKey: !!config.apiKey",
        "apiKey: cfg?.apiKey,",
        "api_key = !!key",
        "token: key!==null,",
        "token: a.key||b.key",
        "secret: Boolean(key)",
        "token: !!(apiKey)",
        "apiKey: process.env.API_KEY",
        "apiKey: config.apiKey,",
    ],
)
def test_an_expression_of_names_is_code_not_a_secret(text: str) -> None:
    assert mask_secret_values(text) == text
    assert masked_whole(text) == text
    assert SecretMasker().mask_text(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "password: !Passw0rd",
        "password: !Secret",
        "password: !!hunter",
        "password: abc&&def",
        "password=hunter2",
        "apiKey: 'app-Zk3mQ9vXw2LpT8rYc4Hn'",
        "token: !!ghp_Ab3dEf9hIj2kLm5nOp8qRs1tUv4wXy7zAb0c",
    ],
)
def test_a_value_that_names_no_code_stays_masked(text: str) -> None:
    value = text.split(":", 1)[-1].split("=", 1)[-1].strip(" !'")
    assert value not in masked_whole(text), text
    assert value not in SecretMasker().mask_text(text), text


_NAME = st.from_regex(r"[a-z][a-z]{1,5}[A-Z][a-z]{1,5}", fullmatch=True)
_OPERATORS = ("!!", "!", "")
_BINARY = ("", " !== null", " != null", " && other.key", " || fallbackKey", " ?? null")


@settings(max_examples=60)
@given(
    label=st.sampled_from(("apiKey", "hasApiKey", "token", "password", "client_secret")),
    prefix=st.sampled_from(_OPERATORS),
    owner=st.one_of(st.just(""), _NAME.map(lambda n: n + ".")),
    name=_NAME,
    tail=st.sampled_from(_BINARY),
)
def test_an_identifier_expression_with_an_operator_is_never_masked(
    label: str, prefix: str, owner: str, name: str, tail: str
) -> None:
    value = f"{prefix}{owner}{name}{tail.replace(' ', '')}"
    if value == name or len(value) > 40:
        return  # a bare name, or too long to be read as one expression
    text = f"  {label}: {value},"
    assert mask_secret_values(text) == text
    assert masked_whole(text) == text


def test_the_summary_keeps_the_logging_line_and_masks_the_key() -> None:
    s = Session()
    s.user("The MISO API answers 400 on Vercel. Log more details.")
    old = "console.error('MISO API Error:', data);"
    new = (
        "console.error('MISO API Error Details:', {\n"
        "  status: response.status,\n"
        "  hasApiKey: !!apiKey,\n"
        "});"
    )
    s.call("Edit", {"file_path": "/app/api/miso.js", "old_string": old, "new_string": new}, "ok")
    s.call(
        "Write",
        {"file_path": "/app/.env.local", "content": "MISO_API_KEY=app-Zk3mQ9vXw2LpT8rYc4Hn\n"},
        "File created",
    )
    s.say("Added the logging.")
    text = s.summary()
    assert "hasApiKey: !!apiKey" in text, text
    assert "hasApiKey: ***" not in text, text
    assert "app-Zk3mQ9vXw2LpT8rYc4Hn" not in text, text

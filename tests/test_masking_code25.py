"""Blind check 25 (N2): the summary masker judges a credential-named key's value as the
secrets scanner does: code (an attribute access, a name that repeats the key) is no secret and
is kept; a literal stays masked."""

from __future__ import annotations

import pytest

from compactor._util import mask_secret_values
from compactor.models.local_text import masked


@pytest.mark.parametrize(
    "text",
    [
        "    signup_token=signup.signup_token,",
        "auth_token = request.session.auth_token",
        "call(api_key=settings.api_key)",
        "password=password",
        "client_secret: client_secret",
    ],
)
def test_code_values_are_not_masked(text: str) -> None:
    assert mask_secret_values(text) == text
    assert masked(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("signup_token=f3a9c2e18b7d", "signup_token=***"),
        ("password=hunter", "password=***"),
        ('api_key: "settings.api_key"', 'api_key: "***"'),
        ("DB_PASSWORD=correct.horse9", "DB_PASSWORD=***"),
        ("token=abc.def.ghi1", "token=***"),
    ],
)
def test_literal_secrets_stay_masked(text: str, shown: str) -> None:
    assert mask_secret_values(text) == shown
    assert masked(text) == shown

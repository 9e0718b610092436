"""Blind check 59, N1: a Telegram bot token (``<bot id>:AA<33 characters>``) the user pasted and
the agent wrote into ``.env`` reached the embedded summary verbatim three times, while the
database password beside it was masked: no rule knew the shape, and ``TELEGRAM_BOT_TOKEN`` is
no assignment name the generic rules read. The token is now a key shape (integrator row 2850).
The same session set's README gave a default password as ``**Contraseña**: …`` (mis-decoded as
``Contrase�a``): a Markdown-bold or misspelt label now leads to the value too (row 2851)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.models.local_mask import masked_whole
from compactor.secrets.masking import SecretMasker

from .test_cli_run import assistant_steps, local_chat_run

TOKEN = "7412598630:AAHk3vQ9zX_2LmPw8RtYb5NcJd-0sEfUgOi"  # invented, of the real shape


def test_the_token_shape_is_what_the_rule_reads() -> None:
    assert len(TOKEN.split(":")[1]) == 35


@pytest.mark.parametrize(
    "text",
    [
        f"TELEGRAM_BOT_TOKEN={TOKEN}",
        f"use this bot: {TOKEN} for the alerts",
        f"curl https://api.telegram.org/bot{TOKEN}/getMe",
        f'{{"token": "{TOKEN}"}}',
    ],
)
def test_a_telegram_bot_token_is_masked_for_the_summary_and_a_remote_model(text: str) -> None:
    secret = TOKEN.split(":")[1]
    out = masked_whole(text)
    assert secret not in out and secret[:10] not in out, out
    long = ("plain words about the bot and its handlers. " * 800) + text
    assert secret not in masked_whole(long)  # the Rust prefilter of a long text finds it too
    assert secret not in SecretMasker().mask_text(text)


@pytest.mark.parametrize(
    "text",
    ["12:30:AA meeting", "build 20240101:AAB", "ratio 123456789:AAbc", "at 10:00 AA flight 1234"],
)
def test_times_and_short_ids_are_kept(text: str) -> None:
    assert masked_whole(text) == text


def test_a_pasted_bot_token_never_reaches_the_summary(tmp_path: Path) -> None:
    pad = "Checking the handlers, the webhook and the polling loop again. " * 12
    messages = [
        {"role": "user", "content": f"Set up my bot with {TOKEN} and put it in .env"},
        {"role": "assistant", "content": f"I put {TOKEN} into .env for the bot."},
        *assistant_steps(pad),
        {"role": "user", "content": "Great, now make /start reply in Portuguese"},
        {"role": "assistant", "content": "Done: /start replies in Portuguese now."},
    ]
    out = local_chat_run(tmp_path, messages).out.read_text(encoding="utf-8")
    assert TOKEN.split(":")[1][:10] not in out


@pytest.mark.parametrize(
    "text",
    [
        "- **Password**: Arkangel_01",
        "- **Contraseña**: Arkangel_01",
        "# Contrase\ufffda: Arkangel_01",  # a mis-decoded ñ
        "Contrasena: Arkangel_01",
    ],
)
def test_a_password_after_a_bold_or_misspelt_label_is_masked(text: str) -> None:
    assert "Arkangel_01" not in masked_whole(text)
    assert "Arkangel_01" not in masked_whole(("words about the app. " * 2000) + text)
    assert "Arkangel_01" not in SecretMasker().mask_text(text)


def test_a_bold_label_without_a_secret_value_is_kept() -> None:
    for text in ("**Usuario**: Arkangel", "**Password**: the one from the vault"):
        assert masked_whole(text) == text


def test_masking_a_masked_value_again_changes_nothing() -> None:
    # found by the idempotence property of tests/test_secrets_prose52.py (row 2852)
    once = masked_whole("password is password:пароль")
    assert masked_whole(once) == once


@pytest.mark.parametrize(
    "text",
    [
        "**Password:** `Xk9mP2vQ7w`",
        "- **API Key:** `B7F2A9C1E5D8`",
        "**API Key:** 4f8a9c2e7b1d6a3f",
    ],
)
def test_a_value_after_a_label_whose_bold_closes_after_the_colon_is_masked(text: str) -> None:
    # blind check 62 N8: "**Password:** `…`" and "**API Key:** `…`" in an answer (row 2853)
    value = text.rsplit(" ", 1)[1].strip("`")
    assert value not in masked_whole(text)
    assert value not in masked_whole(("words about the stack. " * 2000) + text)
    assert value not in SecretMasker().mask_text(text)
    for kept in ("**Password:** the one in the vault", "**Password:** `${N8N_PASSWORD}`"):
        assert masked_whole(kept) == kept

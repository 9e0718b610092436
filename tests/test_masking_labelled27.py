"""A secret introduced by a credential word, in any language, never reaches the summary or the
masked history (blind check 27, S1: "<team>就是这个，API是wandb_v1_…" printed a W&B key twice)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.models.local import summarize_transcript
from compactor.secrets import secret_scan
from compactor.secrets.masking import SecretMasker
from compactor.secrets.shapes import mask_key_shapes

from .planted_session import SessionBuilder

WANDB = (
    "wandb_v1_" + "Q7mZ2pXk9LfA3sD8gH1jK4lN6bV0cR5tY2uI9oP3aS7dF1gH4jK8lZ0xC6vB2nM5qW9eR3tY7uI1o"
)
HEX40 = "3f2a9c1b7e6d5a4f3e2d1c0b9a8f7e6d5c4b3a29"
KEY = "a7F3kP9qL2mX8vB4nC6dR1tY5wZ0hJ"


def _summary(*user_texts: str) -> str:
    s = SessionBuilder()
    s.user("帮我配置 wandb 日志，把实验记录到我们团队下")
    question = "你的 wandb entity 具体叫什么？或者我先留占位符？"
    s.call(
        "AskUserQuestion",
        {"questions": [{"question": question, "options": [{"label": "留占位符"}]}]},
        f'User has answered your questions: "{question}"="{user_texts[0]}"',
    )
    for text in user_texts:
        s.say("好的，我把它写进配置。")
        s.user(text)
    s.say("配置好了。")
    return summarize_transcript(s.messages)


def test_a_wandb_key_after_api_in_chinese_never_reaches_the_summary() -> None:
    text = _summary(f"myteam就是这个，API是{WANDB}")
    assert WANDB[:24] not in text and WANDB[-24:] not in text
    assert "myteam就是这个" in text  # the answer itself is still there


@pytest.mark.parametrize(
    "said",
    [
        f"myteam就是这个，API是{WANDB}",
        f"the API key is {KEY}",
        f"token: {KEY}",
        f"密钥：{KEY}",
        f"令牌 {KEY}",
        f"APIキーは{KEY}です",
        f"비밀번호는 {KEY}",
        f"la clave es {KEY}",
        f"mot de passe : {KEY}",
        f"mein Schlüssel ist {KEY}",
        f"a senha é {KEY}",
        f"пароль: {KEY}",
        f"Password = `{KEY}`",
        f"wandb login --relogin {HEX40}",
        f"my wandb token is {HEX40}",
        f"here: {WANDB}",
        f"我的APIKey是{KEY}",
        f"apiKey is {KEY}",
        f"API，{KEY}",
    ],
)
def test_a_token_after_a_credential_word_is_masked_everywhere(said: str) -> None:
    secret = next(x for x in (WANDB, KEY, HEX40) if x in said)
    masker = SecretMasker()  # the remote model's input, the explain report's counts
    assert secret not in masker.mask_text(said)
    # "password" in French and Russian before ':' is a password assignment (blind check 71)
    kind = "password" if said.startswith(("mot de passe", "пароль")) else "api_key"
    assert masker.counts == {kind: 1}
    assert secret_scan.scan().may_match(said)  # the fast scan does not clear it
    assert secret not in mask_key_shapes(said)  # the embedded summary
    assert secret not in _summary(said)


@pytest.mark.parametrize(
    "text",
    [
        "The API is documented in docs/api.md",
        "token count 12345 and 67890 tokens left",
        "the password reset flow sends a mail",
        f"commit {HEX40} fixed the key handling",
        "key token_count_2024_total_v2 in the config",
        "API client api_v2_client_handler_x86_64 is used",
        f"token {KEY}/path/to/file and key {KEY}.pem",
        "token https://example.com/abc123def456ghi789jkl012",
        "API key your_api_key_here_1234567890abcdef",
        "the password field is release-2024-01-15-notes-final in the form",
        "密钥文件在 /home/u/.config/keys/id_ed25519_2024_backup 里",
    ],
)
def test_words_paths_urls_and_identifiers_after_a_credential_word_are_kept(text: str) -> None:
    masker = SecretMasker()
    assert masker.mask_text(text) == text
    assert masker.counts == {}
    assert mask_key_shapes(text) == text


WORDS = (
    *("API", "api", "API key", "api key", "token", "Token", "secret", "password", "Passwort"),
    *("passwd", "pwd", "credential", "auth", "bearer", "密钥", "令牌", "密码", "口令", "キー"),
    *("トークン", "パスワード", "키", "토큰", "비밀번호", "clave", "contraseña", "clé"),
    *("mot de passe", "Schlüssel", "chave", "senha", "ключ", "токен", "пароль"),
)
SEPARATORS = ("是", ":", "=", " is ", " es ", " est ", " ", "：", ": ", " = ", "为")
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@st.composite
def random_key(draw: st.DrawFn) -> str:
    body = draw(st.text(ALNUM + "_-", min_size=14, max_size=60))
    head = draw(st.sampled_from(["", "wandb_v1_", "sk_", "tok-", "k"]))
    return head + "a1B2c3D4" + body + "9z"  # random-looking: letters and digits interleaved


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(
    st.sampled_from(WORDS),
    st.sampled_from(SEPARATORS),
    random_key(),
    st.sampled_from(["", "好的，", "Here you go: ", "ok "]),
    st.sampled_from(["", " 谢谢", ", thanks", "."]),
)
def test_property_a_key_after_a_credential_word_never_appears_in_the_summary(
    word: str, sep: str, key: str, before: str, after: str
) -> None:
    said = f"{before}{word}{sep}{key}{after}"
    text = _summary(said)
    assert key not in text, said
    assert SecretMasker().mask_text(said).count("[REDACTED:") == 1, said

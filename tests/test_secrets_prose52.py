"""Blind check 52, S1: the user pasted an SSH password in Chinese prose ("…，密码是XXXX") and the
embedded summary printed it twice: no ``name = value`` assignment, no key shape, and too short
and plain a value for the random-token rule. ``secrets.prose`` masks a value given after a
credential word in prose, in many languages, in the summary and in the transcript masker."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.models.local_mask import masked_whole
from compactor.secrets.masking import SecretMasker

from .test_cli_run import first_content, local_chat_run

PASSWORD = "Xy7#kq2!pw"


def test_a_password_in_chinese_prose_never_reaches_the_summary(tmp_path: Path) -> None:
    pad = "正在检查前端与后端的连接，查看 nginx 配置和日志。" * 20
    messages = [
        {"role": "user", "content": "帮我评估这个项目，前端与后端根本连接不上。"},
        {"role": "assistant", "content": "我先看看代码结构。"},
        *({"role": "assistant", "content": f"第{i}步。{pad}"} for i in range(10)),
        {
            "role": "user",
            "content": f"服务器是 ubuntu@192.168.1.20，密码是{PASSWORD}，"
            "你可以自主全自动的测试，密码给你了",
        },
        {"role": "assistant", "content": "我不会用这个密码登录，请你改掉它。"},
        {"role": "user", "content": "好的，继续看后端日志"},
        {"role": "assistant", "content": "后端日志显示 404 page not found。"},
    ]
    summary = first_content(local_chat_run(tmp_path, messages).out)
    assert "密码给你了" in summary  # the user's words are there
    assert PASSWORD not in summary and "Xy7#" not in summary
    assert "密码是***" in summary  # only the value is replaced


SECRETS_IN_PROSE = [
    ("ssh root@10.0.0.5，密码是{}，你可以测试", "密码是***"),
    ("用户名和密码都是{}", "密码都是***"),
    ("口令：{}", "口令：***"),
    ("密钥为{}。", "密钥为***。"),
    ("令牌是 {}", "令牌是 ***"),
    ("パスワードは{}です", "パスワードは***です"),
    ("暗証番号は{}", "暗証番号は***"),
    ("비밀번호는 {}입니다", "비밀번호는 ***입니다"),
    ("암호: {}", "암호: ***"),
    ("la contraseña es {}", "la contraseña es ***"),
    ("a senha é {} e o usuário admin", "a senha é *** e"),
    ("le mot de passe est {}.", "le mot de passe est ***."),
    ("das Passwort ist {}", "das Passwort ist ***"),
    ("das Kennwort lautet {}", "das Kennwort lautet ***"),
    ("пароль: {}", "пароль: ***"),
    ("Пароль — {}", "Пароль — ***"),
    ("The SSH password for root is {} now.", "password for root is *** now."),
    ("the password is {}.", "the password is ***."),
    ('my password is "{}"', 'my password is "***"'),
    ("the pass phrase is {}", "the pass phrase is ***"),
    ("the passcode: {}", "the passcode: ***"),
    ("Your PIN is {}", "Your PIN is ***"),
    ("the API key = {}", "the API key = ***"),
    ("the token is {}", "the token is ***"),
    ("the client secret is {}", "the client secret is ***"),
    ("credentials are {}", "credentials are ***"),
    ("run sshpass -p {} ssh pi@raspberry", "sshpass -p *** ssh"),
    ("sshpass -p '{}' scp a b:", "sshpass -p '***' scp"),
    ("mysql -u root -p {} shop", "mysql -u root -p *** shop"),
    ("mysql -uroot -p{} shop", "-p*** shop"),
    ("clone https://bob:{}@git.example.com/r.git", "https://bob:***@git.example.com"),
]


@pytest.mark.parametrize(("template", "kept"), SECRETS_IN_PROSE)
def test_a_credential_in_prose_is_masked_in_the_summary_and_the_input(
    template: str, kept: str
) -> None:
    value = "8f3Kq2mZ" if "sshpass -p '" in template else PASSWORD
    text = template.format(value)
    out = masked_whole(text)
    assert value not in out and value[:4] not in out
    assert kept in out  # the words around the value stay
    masker = SecretMasker()
    assert value not in masker.mask_text(text)  # a remote summarizer never sees it either
    assert masked_whole(out) == out


KEPT_AS_WRITTEN = [
    "the password reset flow sends a mail",
    "the password is required and must be long",
    "password: str",
    "password: Optional[str] = None",
    "password=None",
    'password=os.environ["DB_PASSWORD"]',
    "password=getpass()",
    "password=settings.password",
    "the token is expired, log in again",
    "max_tokens: 4096 and 12 tokens",
    "the secret is stored in the vault",
    "mysql -u root -p shop",
    "the password was re-used",
    "the API key is $OPENAI_API_KEY",
    "the password is DB_PASSWORD from the env file",
    "密码给你了",
    "密码是否正确？",
    "パスワードが間違っています",
    "비밀번호를 잊어버렸습니다",
    "la contraseña es incorrecta",
    "the pwd is /home/user/project",
    "the PIN is 12",
    "GPIO pin is 13",
    "the token is src/app/models/config.rs and src/v2/app.py",
    "the token was models.json",
    "the API key is v1.2.3 of the client",
    "the new token is great!",
]


@pytest.mark.parametrize("text", KEPT_AS_WRITTEN)
def test_prose_and_code_without_a_secret_are_kept(text: str) -> None:
    assert masked_whole(text) == text
    assert SecretMasker().mask_text(text) == text


_SAFE = st.text(alphabet="你好的了，。 abcdehlmnoqruvxyz0123456789\n", max_size=40)
_WORDS = st.sampled_from(["密码是", "口令：", "パスワードは", "비밀번호는 ", "password is "])
_VALUES = st.from_regex(r"[A-Z][a-z]{2,6}[0-9]{2,4}[!#@%]", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(before=_SAFE, word=_WORDS, value=_VALUES, after=_SAFE)
def test_property_masking_is_idempotent_and_keeps_every_secret_free_part(
    before: str, word: str, value: str, after: str
) -> None:
    after = "，" + after  # the value ends where the clause does
    text = f"{before} {word}{value}{after}"
    out = masked_whole(text)
    assert out == f"{before} {word}***{after}"  # only the value changed, nothing grew
    assert masked_whole(out) == out  # idempotent
    assert masked_whole(before + after) == before + after  # secret-free text is unchanged


_PIECES = st.sampled_from(
    [
        *("password", "Password", "PASSWORD", "passwd", "pwd", "pass phrase", "passcode", "PIN"),
        *("token", "Token", "secret", "API key", "api_key", "credentials", "mot de passe"),
        *("Passwort", "Kennwort", "senha", "contraseña", "CONTRASEÑA", "пароль", "Пароль"),
        *("密码", "口令", "密钥", "令牌", "パスワード", "暗証番号", "비밀번호", "암호"),
        *(" for root", " of the VM", " für den Server", " to it"),
        *(" is ", " was ", " are ", " es ", " est ", " ist ", " lautet ", " é ", " это ", " — "),
        *(":", ": ", " = ", "=", "：", "是", "都是", "为", "は", "는 ", "이 ", " -> ", " is: "),
        *('"', "'", "`", "“", "”", "「", "」", "«", "»"),
        *("Xy7#kq2!pw", "hunter2", "admin", "S3cr3t", "./src/a.py", "models.json", "***"),
        *("a.b:c", "x?y", "9", "$PW", "re-used", "DB_PASS", "great!", "a!b", "Ab3/x9k"),
        *("src/v2/app.py", "v1.2.3", "/etc/x", "!x", ":?"),
        *("sshpass -p ", "mysql -u root -p ", "mysql -pS3cret", "mariadb ", " -p "),
        *(" ", "\n", "，", "。", ".", ",", " and then ", "ſ", "İ"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=9))
def test_property_the_prose_prefilters_clear_no_text_a_prose_rule_masks(
    pieces: list[str],
) -> None:
    from compactor.secrets import prose
    from compactor.secrets.secret_scan import PREFILTERS, FastScan

    text = "".join(pieces)
    rules = (
        (prose.PROSE_PLAIN_RE, prose.plain_value),
        (prose.PROSE_BARE_RE, prose.secret_looking),
        (prose.MYSQL_SPACED_RE, prose.secret_looking),
    )
    if any(check(m.group("secret")) for rule, check in rules for m in rule.finditer(text)):
        assert FastScan(prose.PROSE_PREFILTERS).may_match(text), text
        assert FastScan(PREFILTERS).may_match(text), text  # the transcript masker's scan


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=12))
def test_property_masking_only_replaces_values_and_is_idempotent(pieces: list[str]) -> None:
    import re

    text = "".join(pieces)
    out = masked_whole(text)
    assert masked_whole(out) == out
    # every character outside a *** is the input's, in order: only values were replaced
    pattern = "(?s)" + ".*?".join(re.escape(part) for part in out.split("***"))
    assert re.fullmatch(pattern, text), (text, out)

"""Secret masking (compactor.secrets.masking): every kind, placeholders, JSON safety, no mutation,
custom patterns, counts, no secret in repr, false positives on the real transcripts, properties."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.errors import ConfigError
from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall
from compactor.secrets.masking import SECRET_KINDS, SecretMasker, mask_messages

from .conftest import shared_transcript_files

PLACEHOLDER = re.compile(r"\[REDACTED:([a-z_]+)#(\d+)\]")

PEM_BODY = (
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw\n"
    "7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFc\n"
    "zGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE\n"
    "8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwx\n"
    "XFg0x/XFw005UWVRIkdgcKWTjpBP2dPwVZ4WWC+9aGVd+Gyn1o0CLelf4rEjGoXbAAEg=="
)
RSA_PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
EC_PEM = f"-----BEGIN EC PRIVATE KEY-----\n{PEM_BODY[:140]}\n-----END EC PRIVATE KEY-----"
PKCS8_PEM = f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY[70:]}\n-----END PRIVATE KEY-----"
OPENSSH_PEM = (
    f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY[::-1]}\n-----END OPENSSH PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

# (kind, text, secret): the secret must disappear, the rest of the text must stay.
EXAMPLES: list[tuple[str, str, str]] = [
    # api_key: provider formats
    (
        "api_key",
        "export OPENAI_KEY=sk-proj-Abc123def456GHI789jkl012MNO345",
        "sk-proj-Abc123def456GHI789jkl012MNO345",
    ),
    (
        "api_key",
        "client = OpenAI(api_key='sk-9fQ2xT7bLm4Kp8Zr1Yv6Wn3Hc5Jd0Ae')",
        "sk-9fQ2xT7bLm4Kp8Zr1Yv6Wn3Hc5Jd0Ae",
    ),
    (
        "api_key",
        "key: sk-ant-api03-AbCdEf0123456789_abcdefGHIJ-xyzKLMN",
        "sk-ant-api03-AbCdEf0123456789_abcdefGHIJ-xyzKLMN",
    ),
    ("api_key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("api_key", "temporary creds ASIAY34FZKBOKMUTVV7A expire soon", "ASIAY34FZKBOKMUTVV7A"),
    (
        "api_key",
        "git clone https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    ),
    (
        "api_key",
        "token gho_aBcDeF0123456789aBcDeF0123456789aBcD used",
        "gho_aBcDeF0123456789aBcDeF0123456789aBcD",
    ),
    (
        "api_key",
        "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzAB",
    ),
    (
        "api_key",
        "SLACK_BOT=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    (
        "api_key",
        "maps key AIzaSyA1234567890abcdefghijklmnopqrstuv in the url",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    ),
    (
        "api_key",
        "stripe.api_key = 'sk_live_51H8abcdefGHIJKLmnop1234'",
        "sk_live_51H8abcdefGHIJKLmnop1234",
    ),
    ("api_key", "restricted rk_live_abcdefgh12345678XYZ ok", "rk_live_abcdefgh12345678XYZ"),
    (
        "api_key",
        "HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    ),
    ("api_key", "gitlab glpat-x7Yz9AbCdEfGh1JkLmNo2 token", "glpat-x7Yz9AbCdEfGh1JkLmNo2"),
    # api_key: generic assignments
    ("api_key", 'settings = {"apiKey": "a1b2c3d4e5f6g7h8"}', "a1b2c3d4e5f6g7h8"),
    (
        "api_key",
        "curl -H 'x-api-key: 9f8e7d6c5b4a3210' https://api.example.com",
        "9f8e7d6c5b4a3210",
    ),
    ("api_key", "MY_SERVICE_API_KEY=Zq81kLp0Wm2\n", "Zq81kLp0Wm2"),
    ("api_key", 'client_secret: "GOCSPX-AbC123dEf456"', "GOCSPX-AbC123dEf456"),
    (
        "api_key",
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("api_key", "run --api-key 7d1f0c9e2b8a43 now", "7d1f0c9e2b8a43"),
    # api_key: Weights & Biases, and a token after a credential word in any language (blind 27)
    (
        "api_key",
        "export KEY_FILE=wandb_v1_Q7mZ2pXk9LfA3sD8gH1jK4lN6bV0cR5tY2uI9oP3 ok",
        "wandb_v1_Q7mZ2pXk9LfA3sD8gH1jK4lN6bV0cR5tY2uI9oP3",
    ),
    (
        "api_key",
        "wandb login 3f2a9c1b7e6d5a4f3e2d1c0b9a8f7e6d5c4b3a29",
        "3f2a9c1b7e6d5a4f3e2d1c0b9a8f7e6d5c4b3a29",
    ),
    ("api_key", "团队就是这个，API是a7F3kP9qL2mX8vB4nC6dR1tY5", "a7F3kP9qL2mX8vB4nC6dR1tY5"),
    ("api_key", "la clave es a7F3kP9qL2mX8vB4nC6dR1tY5 ok", "a7F3kP9qL2mX8vB4nC6dR1tY5"),
    # bearer_token
    (
        "bearer_token",
        "curl -H 'Authorization: Bearer abcDEF123ghiJKL456' https://x",
        "abcDEF123ghiJKL456",
    ),
    (
        "bearer_token",
        '{"headers": {"Authorization": "Bearer 0f9e8d7c6b5a4f3e2d1c"}}',
        "0f9e8d7c6b5a4f3e2d1c",
    ),
    ("bearer_token", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
    (
        "bearer_token",
        "send it with Bearer ya29.a0AfH6SMBx3Yq_token-42 please",
        "ya29.a0AfH6SMBx3Yq_token-42",
    ),
    # private_key
    ("private_key", f"id_rsa:\n{RSA_PEM}\nend", RSA_PEM),
    ("private_key", f"cat key.pem\n{EC_PEM}", EC_PEM),
    ("private_key", f"{PKCS8_PEM}\n", PKCS8_PEM),
    ("private_key", f"ssh key: {OPENSSH_PEM} (copied)", OPENSSH_PEM),
    ("private_key", f"truncated:\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}", PEM_BODY),
    # url_password
    ("url_password", "DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app", "s3cr3t-Pa55"),
    ("url_password", "redis://:r3dis-pw@cache:6379/0", "r3dis-pw"),
    (
        "url_password",
        "pip install -i https://deploy:Tr0ub4dor&3@pypi.corp.example/simple x",
        "Tr0ub4dor&3",
    ),
    ("url_password", "amqp://guest:guest42@rabbit//", "guest42"),
    # jwt
    ("jwt", f"token={JWT}", JWT),
    ("jwt", f'{{"id_token": "{JWT}"}}', JWT),
    ("jwt", f"Authorization: Bearer {JWT}", JWT),
    # password
    ("password", "mysql -u root --password=hunter22 db", "hunter22"),
    (
        "password",
        '{"username": "ana", "password": "correct horse battery"}',
        "correct horse battery",
    ),
    ("password", "DB_PASSWORD: letmein\nDB_HOST: db", "letmein"),
    ("password", "PGPASSWORD='p@ss w0rd' psql", "p@ss w0rd"),
    ("password", "passwd = 'Sup3r!Secret'", "Sup3r!Secret"),
    ("password", "Password: Summer2024!", "Summer2024!"),
    ("password", "login --password Qx7-pLm2", "Qx7-pLm2"),
    ("password", '{"passphrase": "my dog is named rex"}', "my dog is named rex"),
    ("password", 'expect "*assword*"\nsend "Qx7pLm2\\r"', "Qx7pLm2"),
    # password_hash (blind check 71, S1)
    (
        "password_hash",
        "root:$6$sAlt9x$" + "Ab3dEf5gHi7jKl9mNo1pQr3sTu5vWx7yZa9bC" * 2 + "Ab3dEf5gHi7j:19000:0:::",
        "$6$sAlt9x$" + "Ab3dEf5gHi7jKl9mNo1pQr3sTu5vWx7yZa9bC" * 2 + "Ab3dEf5gHi7j",
    ),
]


@pytest.mark.parametrize(
    ("kind", "text", "secret"), EXAMPLES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(EXAMPLES)]
)
def test_every_kind_is_masked(kind: str, text: str, secret: str) -> None:
    masker = SecretMasker()
    out = masker.mask_text(text)
    assert secret not in out
    assert f"[REDACTED:{kind}#1]" in out
    assert masker.counts == {kind: 1}
    # only the secret is replaced: the text around it survives
    before, _, after = text.partition(secret)
    assert out == f"{before}[REDACTED:{kind}#1]{after}" or kind == "private_key"


def test_private_key_masks_the_whole_block() -> None:
    out = SecretMasker().mask_text(f"key:\n{RSA_PEM}\ndone")
    assert out == "key:\n[REDACTED:private_key#1]\ndone"


def test_every_builtin_kind_has_examples() -> None:
    assert {k for k, _, _ in EXAMPLES} == set(SECRET_KINDS)
    assert len(SECRET_KINDS) == len(set(SECRET_KINDS))


NOT_SECRETS = [
    "Please make sure the password is at least 12 characters long.",
    "the password: it must be long and never reused",
    "password is required; reset the password via the admin page",
    "def login(user, password=None): return check(password=password)",
    "conn = connect(password=self.password, api_key=api_key)",
    "password: str\napi_key: str | None = None",
    "api_key = os.environ['OPENAI_API_KEY']\npassword=get_password()",
    "HELIUS_API_KEY=your_key cargo run",
    'curl -H "Authorization: Bearer $COLOSSEUM_COPILOT_PAT" https://x',
    "Send `Authorization: Bearer <COPILOT_PAT>`.",
    "Bearer authentication is described in RFC 6750.",
    "pwd=${DB_PASSWORD} and password: '{{ vault_password }}' and password=********",
    "risk-exposure-screening-concepts and risk-labeled data, sk-some-long-hyphenated-words-here",
    "commit 3f2a9c1b7e6d5a4f3e2d1c0b9a8f7e6d5c4b3a29 and uuid 123e4567-e89b-12d3-a456-426614174000",
    "paths: /etc/hosts, src/app.py, C:\\Users\\ana\\key.txt, ./node_modules/.bin/tsc",
    "class SecretKeyManager: def rotate_api_key(self): ...",
    "https://example.com:8443/path?q=1 and git@github.com:owner/repo.git",
    'if line.startswith("-----BEGIN PRIVATE KEY-----"):',
    "<img src='data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "AKIAIOSFODNN7EXAMPLEsk-proj-Abc123def456GHI789jkl012MNO345+/AAAAAElFTkSuQmCC'>",
    'schema: {"password": {"type": "string"}, "api_key": "string"}',
    "The [REDACTED:api_key#1] placeholder and api_key=[REDACTED:api_key#2] stay as they are.",
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_not_secrets_are_left_alone(text: str) -> None:
    masker = SecretMasker()
    assert masker.mask_text(text) == text
    assert masker.counts == {}


def test_same_value_same_number_different_value_next_number() -> None:
    masker = SecretMasker()
    a, b = "sk-proj-Abc123def456GHI789jkl012MNO345", "sk-proj-Zyx987wvu654TSR321qpo098NML765"
    out = masker.mask_text(f"first {a}, then {b}, again {a} and password=hunter22 then {b}")
    assert out == (
        "first [REDACTED:api_key#1], then [REDACTED:api_key#2], again [REDACTED:api_key#1] "
        "and password=[REDACTED:password#1] then [REDACTED:api_key#2]"
    )
    assert masker.counts == {"api_key": 4, "password": 1}
    # numbering is stable across calls on the same masker (one masker per transcript)
    assert masker.mask_text(f"later {b}") == "later [REDACTED:api_key#2]"
    assert masker.counts == {"api_key": 5, "password": 1}


def test_escaped_and_plain_copies_of_one_key_share_a_number() -> None:
    masker = SecretMasker()
    plain = masker.mask_text(f"here:\n{RSA_PEM}")
    args = masker.mask_arguments(json.dumps({"content": RSA_PEM}))
    assert plain == "here:\n[REDACTED:private_key#1]"
    assert json.loads(args) == {"content": "[REDACTED:private_key#1]"}


def test_placeholders_need_no_json_escaping() -> None:
    masker = SecretMasker([("custom-kind.v2", r"TICKET-\d+")])
    out = masker.mask_text(" ".join(t for _, t, _ in EXAMPLES) + " TICKET-123456")
    placeholders = re.findall(r"\[REDACTED:[^\]]*\]", out)
    assert len(placeholders) >= len(EXAMPLES)
    for p in placeholders:
        assert json.dumps(p) == f'"{p}"'
        assert re.fullmatch(r"\[REDACTED:[A-Za-z0-9_.\-]+#\d+\]", p)


@pytest.mark.parametrize(
    ("kind", "text", "secret"), EXAMPLES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(EXAMPLES)]
)
def test_masked_arguments_stay_valid_json(kind: str, text: str, secret: str) -> None:
    arguments = json.dumps({"command": text, "nested": {"list": [text, 1, None]}})
    masker = SecretMasker()
    out = masker.mask_arguments(arguments)
    value = json.loads(out)
    assert secret not in out
    assert secret not in json.dumps(value, ensure_ascii=False)
    assert f"[REDACTED:{kind}#1]" in value["command"]
    assert value["nested"]["list"][1:] == [1, None]


def test_escaped_pem_in_arguments_keeps_surrounding_json() -> None:
    arguments = json.dumps({"file_path": "/home/ana/.ssh/id_rsa", "content": RSA_PEM + "\n"})
    assert "\\n-----END RSA PRIVATE KEY-----\\n" in arguments  # really escaped newlines
    out = SecretMasker().mask_arguments(arguments)
    assert json.loads(out) == {
        "file_path": "/home/ana/.ssh/id_rsa",
        "content": "[REDACTED:private_key#1]\n",
    }
    # raw masking, not re-serialization: the bytes outside the secret are unchanged
    assert out == arguments.replace(json.dumps(RSA_PEM)[1:-1], "[REDACTED:private_key#1]")


def test_escaped_quotes_inside_json_strings() -> None:
    inner = json.dumps({"password": "Qz8!xv", "api_key": "a1b2c3d4e5f6g7h8"})
    arguments = json.dumps({"body": inner, "cmd": "echo password='it\"s9x'"})
    out = SecretMasker().mask_arguments(arguments)
    outer = json.loads(out)
    assert json.loads(outer["body"]) == {
        "password": "[REDACTED:password#1]",
        "api_key": "[REDACTED:api_key#1]",
    }
    assert outer["cmd"] == "echo password='[REDACTED:password#2]'"


def test_a_match_never_ends_or_starts_inside_an_escape() -> None:
    masker = SecretMasker([("tail", r"SECRET\w*\\?"), ("head", r"[nu]\w*TOKEN\d+")], builtin=False)
    arguments = json.dumps({"a": "SECRETabc\nnext", "b": "x\nTOKEN1 and \u00e9TOKEN2"})
    out = masker.mask_arguments(arguments)
    value = json.loads(out)
    assert value["a"] == "[REDACTED:tail#1]\nnext"
    assert value["b"].startswith("x\n")
    assert masker.mask_text("ab\\") == "ab\\"


def test_pattern_across_json_syntax_falls_back_to_value_masking() -> None:
    masker = SecretMasker([("greedy", r"SECRET.*")], builtin=False)
    out = masker.mask_arguments('{"a": "SECRET1", "b": 2}')
    assert json.loads(out) == {"a": "[REDACTED:greedy#1]", "b": 2}
    assert masker.counts == {"greedy": 1}  # the undone raw attempt is not counted


def test_invalid_json_arguments_are_masked_as_text() -> None:
    masker = SecretMasker()
    assert (
        masker.mask_arguments('{"password": "hunter22"') == '{"password": "[REDACTED:password#1]"'
    )
    assert masker.mask_arguments("") == ""


def _secret_messages() -> tuple[list[Message], list[AgenticMessage]]:
    key = "sk-proj-Abc123def456GHI789jkl012MNO345"
    chat = [
        Message("system", "You are a helpful assistant."),
        Message(
            "user",
            f"use {key}",
            parts=[
                Part("text", "password=hunter22"),
                Part("image_url", url="https://u:pw123456@img.example/a.png"),
            ],
        ),
        Message(
            "assistant",
            "ok",
            tool_calls=[
                ToolCall(
                    "c1", "bash", json.dumps({"command": f"curl -H 'Authorization: Bearer {JWT}'"})
                )
            ],
            reasoning_content=f"the key is {key}",
        ),
        Message("tool", f"-----\n{RSA_PEM}", tool_call_id="c1", tool_name="bash"),
        Message(
            "user",
            "thanks",
            parts=[Part("image_url", url="data:image/png;base64,AKIAIOSFODNN7EXAMPLE")],
        ),
    ]
    agentic = [
        AgenticMessage("user", [Block("user_input_text", f"key {key}")]),
        AgenticMessage(
            "assistant",
            [
                Block("reasoning", "password=hunter22 is in the env"),
                Block("assistant_gen_text", "Reading it."),
                Block(
                    "function_tool_call",
                    call_id="t1",
                    name="Write",
                    arguments=json.dumps({"file_path": "k.pem", "content": RSA_PEM}),
                ),
            ],
        ),
        AgenticMessage(
            "user",
            [
                Block(
                    "function_tool_result",
                    call_id="t1",
                    name="Write",
                    content=[
                        Block("user_input_text", f"wrote {key}"),
                        Block(
                            "function_tool_result",
                            content=[Block("user_input_text", "DB_PASSWORD: letmein")],
                        ),
                    ],
                )
            ],
        ),
    ]
    return chat, agentic


def test_mask_messages_masks_every_field_of_chat_messages() -> None:
    chat, _ = _secret_messages()
    original = copy.deepcopy(chat)
    masker = SecretMasker()
    out = masker.mask_messages(chat)
    assert chat == original  # input untouched
    assert out[1].content == "use [REDACTED:api_key#1]"
    assert out[1].parts[0].text == "password=[REDACTED:password#1]"
    assert out[1].parts[1].url == "https://u:[REDACTED:url_password#1]@img.example/a.png"
    assert json.loads(out[2].tool_calls[0].arguments) == {
        "command": "curl -H 'Authorization: Bearer [REDACTED:jwt#1]'"
    }
    assert out[2].reasoning_content == "the key is [REDACTED:api_key#1]"
    assert out[3].content == "-----\n[REDACTED:private_key#1]"
    assert out[4].parts[0].url == "data:image/png;base64,AKIAIOSFODNN7EXAMPLE"  # media untouched
    assert out[0] == chat[0]
    assert masker.counts == {
        "api_key": 2,
        "jwt": 1,
        "password": 1,
        "private_key": 1,
        "url_password": 1,
    }
    # deep copies: changing the output leaves the input alone
    out[2].tool_calls[0].name = "changed"
    assert chat[2].tool_calls[0].name == "bash"


def test_mask_messages_masks_agentic_blocks_recursively() -> None:
    _, agentic = _secret_messages()
    original = copy.deepcopy(agentic)
    out, counts = mask_messages(agentic)
    assert agentic == original
    assert out[0].blocks[0].text == "key [REDACTED:api_key#1]"
    assert out[1].blocks[0].text == "password=[REDACTED:password#1] is in the env"
    assert json.loads(out[1].blocks[2].arguments or "") == {
        "file_path": "k.pem",
        "content": "[REDACTED:private_key#1]",
    }
    result = out[2].blocks[0]
    assert result.content[0].text == "wrote [REDACTED:api_key#1]"
    assert result.content[1].content[0].text == "DB_PASSWORD: [REDACTED:password#2]"
    assert (result.call_id, result.name) == ("t1", "Write")
    assert counts == {"api_key": 2, "password": 2, "private_key": 1}


def test_custom_patterns() -> None:
    masker = SecretMasker(
        [("ticket", r"TICKET-\d{6}"), ("corp_token", r"corp_token:(?P<secret>\w+)")]
    )
    out = masker.mask_text(
        "see TICKET-123456 and corp_token:abc123 and TICKET-123456 and "
        "sk-proj-Abc123def456GHI789jkl012MNO345"
    )
    assert out == (
        "see [REDACTED:ticket#1] and corp_token:[REDACTED:corp_token#1] and [REDACTED:ticket#1] "
        "and [REDACTED:api_key#1]"
    )
    assert masker.counts == {"api_key": 1, "corp_token": 1, "ticket": 2}
    only = SecretMasker([("ticket", r"TICKET-\d{6}")], builtin=False)
    assert (
        only.mask_text("TICKET-000001 password=hunter22") == "[REDACTED:ticket#1] password=hunter22"
    )
    # an empty match masks nothing
    assert SecretMasker([("empty", r"x*")], builtin=False).mask_text("abc") == "abc"


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        ([("broken", "([a-z")], "secret pattern 'broken': invalid regex"),
        ([("bad name", "x")], "secret pattern name 'bad name'"),
        ([("", "x")], "secret pattern name ''"),
        ([("ok", "")], "secret pattern 'ok': the regex must be a non-empty string"),
        ([("only-one",)], "is not a (name, regex) pair"),
    ],
)
def test_bad_custom_patterns_are_config_errors(patterns: list[Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        SecretMasker(patterns)


def test_repr_and_counts_never_show_a_secret() -> None:
    secrets = [s for _, _, s in EXAMPLES]
    masker = SecretMasker([("ticket", r"TICKET-\d{6}")])
    masker.mask_text("\n".join(t for _, t, _ in EXAMPLES) + " TICKET-123456")
    public = repr(masker) + str(masker) + json.dumps(masker.counts)
    for secret in [*secrets, "TICKET-123456"]:
        assert secret not in public
    assert (
        repr(masker)
        == f"SecretMasker(custom=['ticket'], builtin=True, masked={sum(masker.counts.values())})"
    )
    # counts is a copy
    masker.counts["api_key"] = 0
    assert masker.counts["api_key"] > 0


def test_no_secret_value_is_kept_in_the_masker() -> None:
    secret = "sk-proj-Abc123def456GHI789jkl012MNO345"
    masker = SecretMasker()
    masker.mask_text(f"use {secret}")
    state = [getattr(masker, name) for name in type(masker).__slots__]
    assert secret not in repr(state)
    assert secret.encode() not in repr(state).encode()


# -- the real transcripts: false positives -------------------------------------------------------

FILES = shared_transcript_files()
# None of the shared transcripts contains a real credential, but they do contain near misses:
# "Bearer $COLOSSEUM_COPILOT_PAT", "HELIUS_API_KEY=your_key", "risk-labeled", "sk-screening", ...
REAL_COUNTS: dict[str, dict[str, int]] = {
    "bastion-glm47-skill-lock.jsonl": {},
    "fasthooks-sample-main-compacted.jsonl": {},
    "raze-grant-session.jsonl": {},
    # four Loom share links' ``?sid=<uuid>``: a URL's session id is masked by its shape (row 2610)
    "tokenforge-grant-session.jsonl": {"api_key": 4},
    "empire-of-bits-desktop-rollout.jsonl": {},
    "soul-grant-rollout.jsonl": {},
    "swe-agent-marshmallow-1867-function-calling.jsonl": {},
    "tau-bench-gpt4o-airline-task48-trial1-small.jsonl": {},
}


def _read(path: Path) -> list[Any]:
    return read_transcript(str(path), path.read_bytes()).messages


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_real_transcripts_have_no_false_positives(path: Path) -> None:
    messages = _read(path)
    out, counts = mask_messages(messages)
    assert counts == REAL_COUNTS[path.name]
    assert (out == messages) == (not counts)  # only a masked value changes a message


def test_near_misses_really_are_in_the_real_transcripts(shared_transcripts: Path) -> None:
    # the false-positive test above is only worth something if the tricky strings are there
    raw = b"".join(p.read_bytes() for p in FILES)
    for near_miss in (
        b"Bearer $COLOSSEUM_COPILOT_PAT",
        b"HELIUS_API_KEY=your_key",
        b"risk-labeled",
        b"password",
    ):
        assert near_miss in raw


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_secrets_planted_in_real_transcripts_are_all_found(path: Path) -> None:
    messages = copy.deepcopy(_read(path))
    planted = [t for _, t, _ in EXAMPLES]
    for i, msg in enumerate(messages[: len(planted)]):
        text = "\n" + planted[i] + "\n"
        if isinstance(msg, Message):
            msg.content += text
        else:
            msg.blocks.append(
                Block("user_input_text" if msg.role == "user" else "assistant_gen_text", text)
            )
    n = min(len(planted), len(messages))
    out, counts = mask_messages(messages)
    expected: dict[str, int] = dict(REAL_COUNTS[path.name])
    for kind, _, _ in EXAMPLES[:n]:
        expected[kind] = expected.get(kind, 0) + 1
    assert counts == dict(sorted(expected.items()))
    dump = repr(out)
    for _, _, secret in EXAMPLES[:n]:
        assert secret not in dump


# -- properties ----------------------------------------------------------------------------------

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
B64URL = ALNUM + "-_"


def _token(alphabet: str, size: int) -> st.SearchStrategy[str]:
    # always a lower-case letter, an upper-case letter and a digit: random-looking, like real keys
    return st.text(alphabet, min_size=size, max_size=size).map(lambda s: "aZ7" + s)


@st.composite
def planted_secret(draw: st.DrawFn) -> tuple[str, str]:
    """(snippet to plant, the secret in it)."""
    choice = draw(st.integers(0, 11))
    if choice == 0:
        s = "sk-" + draw(st.sampled_from(["", "proj-", "ant-api03-"])) + draw(_token(B64URL, 30))
        return s, s
    if choice == 1:
        s = "AKIA" + draw(st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16))
        return s, s
    if choice == 2:
        s = draw(st.sampled_from(["ghp_", "gho_", "ghs_"])) + draw(_token(ALNUM, 33))
        return s, s
    if choice == 3:
        s = "xoxb-" + draw(_token(ALNUM + "-", 20))
        return s, s
    if choice == 4:
        s = "AIza" + draw(_token(B64URL, 32))
        return s, s
    if choice == 5:
        s = draw(st.sampled_from(["sk_live_", "rk_live_"])) + draw(_token(ALNUM, 20))
        return s, s
    if choice == 6:
        s = draw(_token(ALNUM, 12))
        name = draw(st.sampled_from(["api_key=", '"apiKey": "', "x-api-key: ", "OPENAI_API_KEY="]))
        return name + s + ('"' if name.endswith('"') else ""), s
    if choice == 7:
        s = draw(_token(ALNUM + "-._~", 16))
        return draw(st.sampled_from(["Authorization: Bearer ", "Bearer "])) + s, s
    if choice == 8:
        lines = draw(
            st.lists(st.text(ALNUM + "+/", min_size=20, max_size=64), min_size=1, max_size=4)
        )
        s = (
            "-----BEGIN RSA PRIVATE KEY-----\n"
            + "\n".join(lines)
            + "\n-----END RSA PRIVATE KEY-----"
        )
        return s, s
    if choice == 9:
        s = draw(_token(ALNUM + "!&*+~-", 10))
        return f"postgres://app:{s}@db.example:5432/x", s
    if choice == 10:
        s = (
            "eyJ"
            + draw(_token(B64URL, 20))
            + "."
            + draw(_token(B64URL, 20))
            + "."
            + draw(_token(B64URL, 20))
        )
        return s, s
    s = draw(_token(ALNUM + "!%+-_.", 10))
    name = draw(st.sampled_from(["password=", '"password": "', "DB_PASSWORD='", "--password "]))
    close = {'"password": "': '"', "DB_PASSWORD='": "'"}.get(name, "")
    return name + s + close, s


prose = st.text("abcdefghijklmnopqrstuvwxyz .,!?\n", max_size=40)
PROSE_WORDS = [
    "password",
    "token",
    "bearer",
    "Bearer",
    "api",
    "key",
    "secret",
    "authorization",
    "the",
    "must",
    "never",
    "is",
    "required",
    "sk",
    "eyJ",
    "AKIA",
    "ghp",
    "src/app.py",
    "3f2a9c1b",
    "user@example.com",
    "https://example.com/x",
    "self.password",
    "(",
    ")",
    ".",
    ",",
    "\n",
]
prose_words = st.lists(st.sampled_from(PROSE_WORDS), max_size=30).map(" ".join)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(prose, planted_secret()), min_size=1, max_size=6), prose)
def test_property_no_planted_secret_survives(
    pieces: list[tuple[str, tuple[str, str]]], tail: str
) -> None:
    text = "".join(f"{filler} {snippet} " for filler, (snippet, _) in pieces) + tail
    masker = SecretMasker()
    out = masker.mask_text(text)
    for _, (_, secret) in pieces:
        assert secret not in out
    assert masker.mask_text(out) == out  # idempotent
    assert sum(masker.counts.values()) == len(PLACEHOLDER.findall(out))


@settings(max_examples=100, deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(prose, planted_secret()), min_size=1, max_size=4))
def test_property_masked_json_arguments_stay_valid(
    pieces: list[tuple[str, tuple[str, str]]],
) -> None:
    arguments = json.dumps(
        {f"k{i}": f"{filler} {snippet} " for i, (filler, (snippet, _)) in enumerate(pieces)}
    )
    out = SecretMasker().mask_arguments(arguments)
    value = json.loads(out)
    assert list(value) == list(json.loads(arguments))  # the same keys, in order
    for _, (_, secret) in pieces:
        assert secret not in json.dumps(value, ensure_ascii=False)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.one_of(prose, prose_words))
def test_property_text_without_secrets_is_unchanged(text: str) -> None:
    masker = SecretMasker()
    assert masker.mask_text(text) == text
    assert masker.counts == {}


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=200))
def test_property_masking_is_idempotent_on_any_text(text: str) -> None:
    once = SecretMasker().mask_text(text)
    assert SecretMasker().mask_text(once) == once


# -- rule hints (a substring prefilter) change no result -------------------------------------------


def _unhinted() -> SecretMasker:
    from compactor.secrets import rules

    masker = SecretMasker()
    masker._rules = tuple(rules.UNHINTED_RULES)  # the same rules without their prefilter
    return masker


def test_every_rule_has_a_hint_and_every_example_needs_its_rule() -> None:
    from compactor.secrets import rules

    assert len(rules.HINTS) == len(rules.UNHINTED_RULES)
    assert all(rule.hints for rule in rules.BUILTIN_RULES)
    for kind, text, _ in EXAMPLES:
        assert SecretMasker().mask_text(text) == _unhinted().mask_text(text), (kind, text)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(prose, planted_secret()), min_size=1, max_size=6), prose)
def test_property_hints_change_no_result(
    pieces: list[tuple[str, tuple[str, str]]], tail: str
) -> None:
    text = "".join(f"{filler} {snippet} " for filler, (snippet, _) in pieces) + tail
    hinted, plain = SecretMasker(), _unhinted()
    assert hinted.mask_text(text) == plain.mask_text(text)
    assert hinted.counts == plain.counts


# -- no process-wide state: every masker scans what it is given -----------------------------------

LONG_CLEAN = "The summarizer keeps every file path and every decision the user made. " * 20


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts SecretMasker._find scans."""
    seen: list[str] = []
    find = SecretMasker._find

    def spy(self: SecretMasker, text: str) -> list[tuple[int, int, str]]:
        seen.append(text)
        return find(self, text)

    monkeypatch.setattr(SecretMasker, "_find", spy)
    return seen


def test_a_long_clean_text_is_scanned_by_every_masker(scans: list[str]) -> None:
    """No module-global memo of clean texts (it saved 0.3 ms per file of a batch)."""
    for _ in range(3):
        masker = SecretMasker()
        assert masker.mask_text(LONG_CLEAN) == LONG_CLEAN
        assert masker.counts == {}
    assert scans == [LONG_CLEAN] * 3


def test_a_long_text_with_a_secret_is_masked_and_counted_every_time(scans: list[str]) -> None:
    text = LONG_CLEAN + " OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
    outs = []
    for _ in range(2):
        masker = SecretMasker()
        outs.append(masker.mask_text(text))
        assert sum(masker.counts.values()) == 1
    assert outs[0] == outs[1] and "sk-proj-" not in outs[0]
    assert scans == [text, text]


def test_clean_under_builtin_rules_is_not_clean_under_custom_ones(scans: list[str]) -> None:
    assert SecretMasker().mask_text(LONG_CLEAN) == LONG_CLEAN
    custom = SecretMasker([("decision", r"decision")])
    out = custom.mask_text(LONG_CLEAN)
    assert "every decision" not in out and custom.counts == {"decision": 20}


# -- linear in the number of secrets (issue 16) --------------------------------------------------


def test_forty_thousand_bearer_tokens_in_one_text_mask_in_linear_time() -> None:
    """One pass per text: 40,000 bearer tokens in one 2.4 MB tool output took 52 s when every
    match was compared with every span found before."""
    import secrets as rnd
    import time

    text = "\n".join(f"Authorization: Bearer {rnd.token_hex(20)}" for _ in range(40_000))
    assert len(text) > 2_400_000
    masker = SecretMasker()
    start = time.perf_counter()
    masked = masker.mask_text(text)
    elapsed = time.perf_counter() - start
    assert masker.counts == {"bearer_token": 40_000}
    assert masked.count("[REDACTED:bearer_token#") == 40_000
    assert elapsed < 20, elapsed  # 0.5 s here; quadratic, it was 52 s


def _reference_spans(masker: SecretMasker, text: str) -> list[tuple[int, int, str]]:
    """The rule the linear scan must keep: rules in order, a span that overlaps anything taken
    before (an earlier rule's span, a placeholder, a data URL) is dropped."""
    from compactor.secrets.masking import _DATA_URI_RE, _PLACEHOLDER_RE, _escape_safe

    taken = [m.span() for m in _PLACEHOLDER_RE.finditer(text)]
    taken += [m.span() for m in _DATA_URI_RE.finditer(text)]
    found = []
    for rule in masker._rules:
        for match in rule.regex.finditer(text):
            span = masker._secret_span(rule, match, text)
            if span is None:
                continue
            start, end = _escape_safe(text, *span)
            if start >= end or any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            found.append((start, end, rule.kind))
    return sorted(found)


_PIECES = st.sampled_from(
    [
        "Authorization: Bearer abcdef0123456789XYZ",
        "Bearer abcdef0123456789XYZ",
        "sk-abcdefghijklmnop0123456789",
        "api_key=sk-abcdefghijklmnop0123456789",
        "password=hunter2x9",
        "postgres://app:s3cret99@db",
        "https://user:sk-abcdefghijklmnop0123456789@host",
        "[REDACTED:api_key#1]",
        "data:image/png;base64,QmVhcmVyIGFiY2RlZjAxMjM0NTY3ODlYWVo=",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
        "--token abc123def456",
        " ",
        "\n",
        '"',
        "\\n",
        "x",
    ]
)


@given(st.lists(_PIECES, max_size=30).map("".join))
@settings(max_examples=300, deadline=None)
def test_linear_scan_finds_exactly_what_the_pairwise_rule_finds(text: str) -> None:
    masker = SecretMasker([("custom", r"abc\d+")])
    assert masker._find(text) == _reference_spans(masker, text)


def test_a_password_passed_to_a_call_behind_a_hash_arrow_is_masked() -> None:
    """Blind check 24 (cc-cmmc): a seeder's ``'password' => Hash::make('…')`` kept its literal;
    a variable's name passed to ``env()``/``getenv()`` is no secret and stays."""
    masker = SecretMasker()
    seeder = (
        "'password' => Hash::make('Adm1n@Seeded2026!'),\n"
        "'passwd' => bcrypt( \"Sh0rt&Sweet9\" ),\n"
        "'db_password' => env('DB_PASSWORD'),\n"
    )
    out = masker.mask_text(seeder)
    assert "Adm1n@Seeded2026!" not in out and "Sh0rt&Sweet9" not in out, out
    assert "'password' => Hash::make('[REDACTED:password#1]')," in out, out
    assert "env('DB_PASSWORD')" in out, out

"""perf47 (issue 28 point 7, row 1690's cost): the embedded summary is masked once more as a
whole (``models.local_mask.masked_whole``); on a summary of 225 KB whose paths name ``key`` and
``token`` every rule ran (the text holds ``…``, and a non-ASCII text skipped no hint). The
prefilters that now skip rules (hints read as ``(?i)`` reads the text, the Rust scans of a long
text) must change no output: masking with them equals masking with every rule, on generated
text holding keys of every shape the maskers know."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor._util import mask_secret_values
from compactor.models import local_mask
from compactor.secrets import shapes
from compactor.secrets.rules import SHAPE_RULES

from .test_masking import EXAMPLES, planted_secret

SNIPPETS = [
    *(text for _, text, _ in EXAMPLES),
    "CREATE USER app WITH PASSWORD 'Zq7!mKp2vRw';",
    "GRANT ALL ON db.* TO 'u'@'%' IDENTIFIED BY\n'hunter2x9';",
    "password: process.env.DB_PASSWORD || 'f4llb4ck!pw'",
    "token = os.environ['T'] or \"tok_9f8e7d6c\"",
    'token = cfg.tok or "tok_9f8e7d6c"',
    "run -p'pw-99x' now",
    "apiKey: cfg.key ?? 'k3y-v4lu3-123'",
    'os.getenv("DB_PASSWORD", "s3cr3t-pw")',
    "env.get('API_TOKEN', 'abc123xyz')",
    "PGPASSWORD='pg-pass-77' psql -h db",
    "MYSQL_PWD=my5ql-pw mysql -u root",
    "DB_PWD=qq-77-zz run",
    "mysql -u root -p'r00t-pw' app",
    "mariadb -h db -pS3cretPw9 app",
    "admin_password: Zq7!mKp2vRw",
    '"client_secret": "cs-0a1b2c3d4e5f"',
    "API_KEY=abc123def456ghi789",
    "비밀번호: 8h7g6f5e4d",
    "密码：p4ssw0rd-cn",
    "パスワード=jp-pw-1234",
    "пароль: ru-pw-5678",
    "contraseña = es-pw-9012",
    "senha: pt-pw-3456",
    "Passwort: de-pw-7890",
    "API是wandb_v1_" + "Ab3dEf9h" * 10,
    "mot\x1cde passe : Xy7Zk2Lm9Pq4Rs8Tv3Wn6",
    "Schlüssel: Xy7Zk2Lm9Pq4Rs8Tv3Wn6Ab",
    "КЛЮЧ это Xy7Zk2Lm9Pq4Rs8Tv3Wn6Ab",
    "токен: Xy7Zk2Lm9Pq4Rs8Tv3Wn6Ab",
    "the token\x1c=\x1cAb3dEf9h2Jk4Lm6Np8Qr0St",
    "src/api/token_store.py and keys/secret_key.md",
    "see https://user:pa55w0rd@example.com/x",
    "curl --token gh-tok-123456 -H 'Authorization: Bearer Xy7Zk2Lm9Pq4Rs8Tv3W'",
]
SEPARATORS = [" ", "\n", "\x1c", "…", "：", "=", " || ", " or ", "'", '"', "\\n", "\t", "é"]
FOLDS = str.maketrans({"i": "\u0131", "s": "\u017f", "k": "\u212a", "I": "\u0130"})


@st.composite
def _piece(draw: st.DrawFn) -> str:
    text = draw(st.one_of(st.sampled_from(SNIPPETS), planted_secret().map(lambda p: p[0])))
    if draw(st.integers(0, 5)) == 0:  # İ ı ſ K, which Python's (?i) reads as ASCII letters
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + text[cut:].translate(FOLDS)
    if draw(st.integers(0, 5)) == 0:
        text = text.upper()
    return text


texts = st.lists(
    st.tuples(_piece(), st.sampled_from(SEPARATORS), st.text(" abc.:/-\n", max_size=8)),
    min_size=1,
    max_size=8,
).map(lambda parts: "".join(p + sep + pad for p, sep, pad in parts))


@pytest.fixture
def always_scan() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shapes, "_SCAN_FROM", 0)
        mp.setattr(local_mask, "_SCAN_FROM", 0)
        yield


def _every_rule(text: str, found: set[str]) -> str:
    """The summary's masking without any prefilter: every rule on the text."""
    return mask_secret_values(shapes._mask(text, found, shapes._RULES, scan=False), found)


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(texts)
def test_property_the_prefilters_change_no_masking(text: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shapes, "_SCAN_FROM", 0)
        mp.setattr(local_mask, "_SCAN_FROM", 0)
        with local_mask.collecting() as found:
            filtered = local_mask.masked(text)
        short = shapes.mask_key_shapes(text)  # the hints alone (no scan below the length)
    plain: set[str] = set()
    assert filtered == _every_rule(text, plain)
    assert found == plain
    assert short == shapes._mask(text, None, shapes._RULES, scan=False)


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_each_shape_alone_is_masked_as_every_rule_masks_it(snippet: str) -> None:
    for text in (snippet, snippet.upper(), snippet.translate(FOLDS), f"…{snippet}…"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(shapes, "_SCAN_FROM", 0)
            mp.setattr(local_mask, "_SCAN_FROM", 0)
            with local_mask.collecting() as found:
                filtered = local_mask.masked(text)
        plain: set[str] = set()
        assert filtered == _every_rule(text, plain), text
        assert found == plain


def test_a_non_ascii_text_skips_the_rules_none_of_whose_words_it_holds() -> None:
    text = "Moved src/api/token_store.py to keys/ … done; the user said “ok”.\n" * 3
    assert not text.isascii()
    names = {rule[0].pattern[:40] for rule in shapes._hinted(text)}
    # the labelled and two password rules (api, key, token), the two prose rules (api, token)
    assert len(names) <= 5
    assert shapes._hinted("paſſword 'x'")  # ſ is read as s: the rule still runs


class _Spy:
    """A rule's regex that records each text it scans."""

    def __init__(self, regex: re.Pattern[str], calls: list[str]) -> None:
        self.regex, self.calls = regex, calls

    def sub(self, repl: Callable[[re.Match[str]], str], text: str) -> str:
        self.calls.append(self.regex.pattern)
        return self.regex.sub(repl, text)


def test_a_long_summary_naming_keys_in_paths_runs_no_rule(always_scan: None) -> None:
    line = "- edited src/api/token_store.py, keys/rotate_key.py and auth/token_cache.py …\n"
    text = line * 3000  # 237 KB, like the paths shape's summary (its hints do not clear it)
    assert shapes._hinted(text)
    calls: list[str] = []
    spies = [(_Spy(regex, calls), hints, check) for regex, hints, check in shapes._RULES]
    values: list[str] = []

    def values_masked(text: str, found: set[str] | None = None) -> str:
        values.append(text)
        return text

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shapes, "_RULES", tuple(spies))
        mp.setattr(shapes, "_SHAPE_REGEXES", frozenset(s for s, _, _ in spies[: len(SHAPE_RULES)]))
        mp.setattr(local_mask, "mask_secret_values", values_masked)
        assert local_mask.masked_whole(text) == text
    assert calls == [] and values == []  # before: three rules and the values' regex scanned it


def test_a_secret_in_a_long_summary_is_still_masked(always_scan: None) -> None:
    key = "AIzaSyD" + "x9Qk2LmN4pR7sT1vW3yZ5aB8cE0fG6hJ"
    pad = "- edited src/api/token_store.py …\n" * 2000
    text = pad + f'apiKey: "{key}",\nadmin_password: Zq7!mKp2vRw\nagain {key}\n' + pad
    out = local_mask.masked_whole(text)
    assert key not in out and "Zq7!mKp2vRw" not in out
    assert out.count("***") == 3


def test_the_fold_table_holds_every_character_ignorecase_reads_as_an_ascii_letter() -> None:
    letter = re.compile("(?i)[a-z]")
    folded = {ch for ch in map(chr, range(128, 0x110000)) if letter.fullmatch(ch)}
    assert folded == {chr(c) for c in shapes._FOLD}
    for ch in folded:  # each to the letter (?i) reads
        assert re.fullmatch(f"(?i){shapes._FOLD[ord(ch)]}", ch)

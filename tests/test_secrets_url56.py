"""Blind check 56, N6: the user pasted a VPN subscription link whose key was a URL query
parameter, ``https://host/Path?k=<long hex>``, and the embedded summary kept it (no rule read
``k``, and a query string is no assignment). ``secrets.url_query`` masks the value of a
credential parameter in a URL's query or fragment, and a subscription link's path token."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from compactor.models.local_mask import masked_whole
from compactor.secrets import url_query
from compactor.secrets.masking import SecretMasker
from compactor.secrets.secret_scan import PREFILTERS, FastScan

from .test_cli_run import assistant_steps, first_content, local_chat_run

HEX = "839c5e0f4a7b21d96c3e8f50a1b2c3d4"
B64 = "Zq8_kL3-xW9vTb2RmN7pYc4H"


def test_a_subscription_key_in_a_pasted_url_never_reaches_the_summary(tmp_path: Path) -> None:
    pad = "Checking the client config, the routing table and the DNS settings again. " * 12
    url = f"https://vpn.example.net/Subscribe?k={HEX}"
    messages = [
        {"role": "user", "content": "My VPN client stopped connecting after the update."},
        {"role": "assistant", "content": "Let me look at the client's configuration first."},
        *assistant_steps(pad),
        {"role": "user", "content": f"Here is my subscription link: {url} import it and test"},
        {"role": "assistant", "content": f"I imported {url} and the nodes list loads now."},
        {"role": "user", "content": "Great, now check why the Tokyo node times out"},
        {"role": "assistant", "content": "The Tokyo node answers on port 443 only."},
    ]
    summary = first_content(local_chat_run(tmp_path, messages).out)
    assert "vpn.example.net/Subscribe?k=***" in summary  # the link's words stay
    for start in range(0, len(HEX) - 8 + 1):
        assert HEX[start : start + 8] not in summary  # no part of the value


MASKED = [
    (f"https://host.example/Path?k={HEX}", "https://host.example/Path?k=***"),
    (f"see https://h.example/api?user=bob&key={B64}&page=2", "&key=***&page=2"),
    (f"GET /v1/x?apikey={HEX} HTTP/1.1", "?apikey=*** HTTP"),
    (f"https://h.example/cb#access_token={B64}&expires_in=3600", "#access_token=***&expires"),
    (f"https://h.example/x?a=1&amp;token={HEX}", "&amp;token=***"),
    (f"https://s3.example/o?X=1&Signature={B64}%2Bq", "&Signature=***"),
    (f"https://h.example/s?sig={HEX}", "?sig=***"),
    (f"https://h.example/l?auth={HEX}", "?auth=***"),
    (f"https://h.example/l?secret={B64}", "?secret=***"),
    (f"https://h.example/l?password={B64}", "?password=***"),
    (f"https://h.example/l?pwd={B64}&x=1", "?pwd=***&x=1"),
    (f"https://h.example/l?pass={B64}", "?pass=***"),
    (f"https://h.example/l?subscription={HEX}", "?subscription=***"),
    (f"https://h.example/l?sub={HEX}", "?sub=***"),
    (f"https://h.example/l?SID={HEX}", "?SID=***"),
    (f"https://h.example/l?session={B64}", "?session=***"),
    (f"https://h.example/l?api_key={HEX}", "?api_key=***"),
    ("https://acc.example/cb?code=4/0AX4XfWh7kq2Lm9PzR3sT8vYw1&scope=email", "?code=***&scope"),
    (f"https://sub.example.org/sub/{B64}", "https://sub.example.org/sub/***"),
    (f"import https://a.example/api/v1/subscribe/{HEX}.", "/subscribe/***."),
    (f"https://a.example/link/{HEX}?target=clash", "/link/***?target=clash"),
    (f"https://a.example/token/{B64}", "/token/***"),
]


@pytest.mark.parametrize(("text", "kept"), MASKED)
def test_a_credential_in_a_url_is_masked_in_the_summary_and_the_input(text: str, kept: str) -> None:
    value = next(v for v in (HEX, B64, "4/0AX4XfWh7kq2Lm9PzR3sT8vYw1") if v in text)
    out = masked_whole(text)
    assert value not in out and value[:8] not in out and value[-8:] not in out
    assert kept in out  # the URL around the value stays
    assert masked_whole(out) == out
    masked = SecretMasker().mask_text(text)
    assert value not in masked and "[REDACTED:" in masked  # a remote summarizer never sees it
    long = ("plain words about the VPN client and its routes. " * 800) + text
    assert value not in masked_whole(long)  # the Rust scan of a long text finds it too


KEPT = [
    "https://h.example/search?key=name&page=2",
    "https://h.example/x?page=2",
    "https://h.example/x?token=true",
    "https://h.example/x?session=user_profile_settings",
    "https://h.example/x?session=release-notes-v2-final",
    "https://h.example/x?code=123456",
    "https://h.example/x?code=ABCD1234EFGH5678",  # short: a confirmation code
    "https://h.example/x?k=abcdefghijklmnopqrstuvwxyz",  # letters only
    "https://h.example/x?next=/a/b/c&k=v",
    f"https://h.example/x?commit={HEX}",  # not a credential's name
    f"https://h.example/blob/{HEX}/src/app.py",
    f"the file tests/sub/{HEX}.json",
    "https://h.example/sub/settings",
    "https://h.example/x?k=$TOKEN&sig={{ vault }}",
    "a ?key= b",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_url_without_a_credential_value_is_kept(text: str) -> None:
    assert masked_whole(text) == text
    assert SecretMasker().mask_text(text) == text


_NAMES = st.sampled_from(
    [
        *("k", "key", "apikey", "api_key", "token", "access_token", "auth", "sig", "signature"),
        *("secret", "password", "pwd", "pass", "code", "subscription", "sub", "sid", "session"),
        *("Key", "TOKEN", "Sig"),
    ]
)
_OTHER = st.sampled_from(["page", "q", "lang", "id", "ref", "utm_source", "next", "v", "sort"])
_VALUE = st.from_regex(r"[a-f0-9]{4}[0-9][a-f][a-zA-Z0-9_\-]{14,40}", fullmatch=True)
_PLAIN = st.from_regex(r"[A-Za-z0-9_\-.~%]{0,40}", fullmatch=True)
_HOST = st.sampled_from(["https://h.example/p", "http://v.example:8080/a/b", "/api/x"])


@settings(max_examples=300, deadline=None)
@given(host=_HOST, name=_NAMES, value=_VALUE, other=_OTHER, plain=_PLAIN, frag=st.booleans())
def test_property_masking_is_idempotent_and_only_replaces_the_value(
    host: str, name: str, value: str, other: str, plain: str, frag: bool
) -> None:
    # a 16-character run of the value elsewhere is the value's part: masked too (68 S1)
    assume(not any(value[i : i + 16] in plain for i in range(len(value) - 15)))
    text = f"open {host}?{other}={plain}{'#' if frag else '&'}{name}={value} now"
    out = masked_whole(text)
    assert out == f"open {host}?{other}={plain}{'#' if frag else '&'}{name}=*** now", text
    assert masked_whole(out) == out  # idempotent
    assert value not in SecretMasker().mask_text(text)


@settings(max_examples=300, deadline=None)
@given(
    host=_HOST,
    params=st.lists(st.tuples(_OTHER, _PLAIN), min_size=1, max_size=5),
    frag=_PLAIN,
)
def test_property_a_url_without_a_credential_parameter_is_never_touched(
    host: str, params: list[tuple[str, str]], frag: str
) -> None:
    url = host + "?" + "&".join(f"{k}={v}" for k, v in params) + ("#" + frag if frag else "")
    text = f"see {url} here"
    assert masked_whole(text) == text
    assert SecretMasker().mask_text(text) == text


_PIECES = st.sampled_from(
    [
        *("?", "&", "#", "&amp;", "=", "/", "https://h.example", " ", "\n", "."),
        *("k", "key", "Key", "token", "code", "sig", "sub", "session", "page"),
        *("/sub/", "/subscribe/", "/link/", "/token/", "/Sub/", "ſ", "K"),
        *(HEX, B64, "4/0AX4XfWh7kq2Lm9PzR3sT8vYw1", "name", "2", "true", "x.html"),
    ]
)


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_PIECES, min_size=1, max_size=10))
@example(pieces=["https://h.example", "/sub/", B64, "=", HEX, "/sub/", HEX])  # masked twice: same
@example(pieces=["k", "/sub/", B64, HEX, "x.html", "/sub/", HEX])
def test_property_the_url_prefilters_clear_no_text_a_url_rule_masks(pieces: list[str]) -> None:
    text = "".join(pieces)
    if any(
        check(m.group("secret"))
        for rule, check in url_query.URL_SHAPES
        for m in rule.finditer(text)
    ):
        assert FastScan(url_query.URL_PREFILTERS).may_match(text), text
        assert FastScan(PREFILTERS).may_match(text), text  # the transcript masker's scan
    out = masked_whole(text)
    assert masked_whole(out) == out
    pattern = "(?s)" + ".*?".join(re.escape(part) for part in out.split("***"))
    assert re.fullmatch(pattern, text), (text, out)


def test_a_link_token_in_bold_is_masked_and_a_masked_value_after_one_stops_it() -> None:
    """Row 3350: ``=***`` after a segment stops the link rule (masking twice changes nothing),
    markdown bold after the token does not."""
    bold = f"see **https://vpn.example.com/sub/{B64}** now"
    assert B64 not in masked_whole(bold)
    for text in (
        f"https://h.example/sub/{B64}={HEX}/sub/{HEX}",
        f"k/sub/{B64}{HEX}x.html/sub/{HEX}",
    ):
        once = masked_whole(text)
        assert masked_whole(once) == once, once

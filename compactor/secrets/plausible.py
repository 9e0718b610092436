"""Whether a value assigned to a credential-named key is a secret or code, a placeholder or
prose (moved out of :mod:`.masking` to keep it under the module size limit)."""

from __future__ import annotations

import re

from compactor._util import code_reference

from .logins import CRYPT_HASH_RE

__all__ = ["NOT_SECRET_RE", "plausible_value"]

# Values that are obviously not secrets: references, templates, masks, placeholders, literals.
NOT_SECRET_RE = re.compile(
    r"""(?!(?-x:"""  # a crypt hash starts with ``$`` but is no variable (blind check 71, S1)
    + CRYPT_HASH_RE.pattern
    + r"""))[$<{%*\[#]|\.{3}|…
    |x{4,}|X{4,}
    |(?:your|my|the|an?|some|example|sample|dummy|fake|placeholder|insert|enter|redacted)(?:[_\-.]|$)
    |(?:none|null|nil|true|false|undefined|required|optional|empty|changeme|string|str|bytes|int
       |number|boolean|bool|any|secret|password|text|env|getenv|os|process|settings|config
       |self|this|args|kwargs|options|opts|params|request|req|input|value|values)$
    """,
    re.IGNORECASE | re.VERBOSE,
)


def plausible_value(value: str, name: str, text: str, end: int, bare: bool) -> bool:
    """False for an assigned value that is code, a placeholder or prose rather than a secret."""
    if len(value) < (4 if bare else 3) or NOT_SECRET_RE.match(value):
        return False
    if value.lower() == name.lower():
        return False  # api_key=api_key, "password": "password"
    if not bare:
        return True
    if text[end : end + 1] in ("(", "["):
        return False  # password=get_password(), key=os.environ["KEY"]
    # password=self.password, api_key=settings.service_key, pwd=user_pwd
    return not code_reference(value)

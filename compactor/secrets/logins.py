"""Two credential shapes of logging in to a machine (blind check 71, S1 and S2: a summary printed
the root password hash of a built image, an ``/etc/shadow`` line a ``grep`` printed, and the
device's login password six times inside the expect scripts that typed it, ``send "…\\r"``,
while it masked the build configuration's ``ROOT_PASSWD="…"``).

* :data:`CRYPT_HASH_RE`: a password hash in crypt format, ``$id$[params$]salt$hash`` (MD5
  ``$1$``, bcrypt ``$2a$``/``$2b$``/``$2x$``/``$2y$``, SHA-crypt ``$5$``/``$6$`` with or without
  ``rounds=N$``, scrypt ``$7$``, yescrypt ``$y$``/``$gy$``, ``$argon2id$``/``$argon2i$``/
  ``$argon2d$``, passlib's ``$pbkdf2-sha256$``), wherever it stands: a shadow entry
  ``root:$5$…:19000:0:…`` keeps the user name and its fields, only the hash is replaced (it is
  crackable offline). A hash field is 16 characters or more, so ``$1$`` in a shell line
  (``$1$SUFFIX``) is no hash.
* :data:`PROMPT_ANSWER_RE`: the text an expect/pexpect script sends to a password prompt:
  a prompt word (``password``, ``assword``, ``passphrase``, ``密碼``, ``パスワード``,
  ``пароль`` …) and, on the same line or the next, ``send "VALUE\\r"``, ``exp_send``,
  ``sendline("VALUE")`` or ``child.sendline('VALUE')``; raw or inside a JSON string (a tool
  call's arguments: ``\\"``, ``\\\\r``, ``\\n``). Only a literal is a value (``sendline(pw)`` is
  code); the next ``send`` after a line that is not the prompt's is not read.
"""

from __future__ import annotations

import re

__all__ = [
    "CRYPT_HASH_RE",
    "CRYPT_HINTS",
    "CRYPT_PREFILTER",
    "PROMPT_ANSWER_RE",
    "PROMPT_HINTS",
    "PROMPT_PREFILTER",
]

_CRYPT_IDS = r"(?:1|2[abxy]|5|6|7|y|gy|argon2(?:id|i|d)|pbkdf2(?:-sha\d{1,3})?)"
CRYPT_HASH_RE = re.compile(
    rf"(?<![\w$])\${_CRYPT_IDS}\$"  # $id$
    r"(?:[^\s$:'\"\\]{0,100}\$){0,4}"  # rounds=N$, v=19$, m=…,t=…,p=…$, the salt$
    r"[./A-Za-z0-9+=]{16,}(?![./A-Za-z0-9+=$])"  # the hash
)
"""A password hash in crypt format (see the module doc): the whole match is the secret."""
CRYPT_HINTS: tuple[str, ...] = (
    *(f"${i}$" for i in ("1", "2a", "2b", "2x", "2y", "5", "6", "7", "y", "gy")),
    *("$argon2", "$pbkdf2"),
)
CRYPT_PREFILTER = r"\$(?:1|2[abxy]|5|6|7|y|gy|argon2|pbkdf2)"
"""What every match of :data:`CRYPT_HASH_RE` holds, in Rust's ``regex`` syntax."""

_PROMPT = (
    r"(?:(?i:pass(?:word|wd|phrase|code)|assword|passwort|senha|contrase[ñn]a|mot[ \t]de[ \t]passe"
    r"|пароль)|密碼|密码|口令|パスワード|비밀번호|암호)"
)
_PATTERN_END = r"[^\"'{}\n\\;,]{0,16}\\?[\"'}]"
"""The end of the prompt's pattern: a quote or brace closes it soon (``"*assword*"``,
``{[Pp]assword:}``, ``'Password for root:'``), which prose ("send a password reset email;
send "…"") does not do."""
_SAME_LINE = r"(?:[^\n\\]|\\[^nr\n]){0,80}?"
"""The rest of the prompt's line: no line break, raw or JSON-escaped (``\\n``)."""
_NEXT_LINE = r"(?:(?:\r?\n|\\r\\n|\\n)(?:[ \t]|\\t)*(?:[A-Za-z_][\w.]{0,40}\.)?)?"
"""At most one line break, then the start of the next line (``child.``)."""
PROMPT_ANSWER_RE = re.compile(
    rf"{_PROMPT}{_PATTERN_END}{_SAME_LINE}{_NEXT_LINE}"
    r"(?:(?<!\w)|(?<=\\[nt]))(?:exp_)?send(?:line)?[ \t]*\(?[ \t]*"
    r"(?:-(?:-|raw|s)[ \t]+)*(?P<q>\\?[\"'])(?P<secret>[^\"'\\\n\r]{1,100})(?:\\{1,2}[rn])?(?P=q)"
)
"""A literal sent to a password prompt (see the module doc); the value is ``secret``."""
PROMPT_HINTS: tuple[str, ...] = ("send",)
PROMPT_PREFILTER = r"(?i-u:send)(?i-u:line)?[ \t]*\(?[ \t]*(?:-(?:-|raw|s)[ \t]+)*\\?[\"']"
"""What every match of :data:`PROMPT_ANSWER_RE` holds, in Rust's ``regex`` syntax."""

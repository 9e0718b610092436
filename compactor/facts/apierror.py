"""An HTTP client that exited 0 but printed an API error (blind check 28, W1: three ``curl``
calls to an auth server exited 0 and returned ``{"code":"23505","message":"duplicate key value
violates unique constraint …"}``; each was reported as the call that "worked around" an earlier
failure, though no user was created).

:func:`api_error` judges by shape: a call that runs ``curl``, ``wget``, HTTPie (``http`` /
``https``) or ``xh`` failed when its output ends on a JSON object whose top-level keys say so
(a non-empty ``error`` or ``errors``, a ``code`` with a ``message``/``msg`` and no success
code, a ``status``/``statusCode`` of 400 or more), or when the last HTTP status line it printed
(``-i``, ``-v``, HTTPie's headers) is 400 or more."""

from __future__ import annotations

import json
import re

from compactor._util import lazy_pattern

__all__ = ["api_error"]

_CLIENT_RE = re.compile(r"(?:^|[\s|;&(`])(?:curl|wget|xh|https?)\s+[-'\"\w$:/]")
_STATUS_RE = lazy_pattern(r"(?m)^(?:< )?HTTP/\d(?:\.\d)? ([1-5]\d\d)\b[^\n]*")
_SUCCESS_CODES = frozenset({"0", "ok", "success", "200", "201", "202", "204"})


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) == 3 else None


def _error_object(body: str) -> dict[str, object] | None:
    """The JSON object the output ends on, if it is an API error (see the module doc)."""
    text = body.rstrip()
    if not text.endswith("}"):
        return None
    start = text.find("{") if text.lstrip().startswith("{") else text.rfind("\n{") + 1
    try:
        data = json.loads(text[start:])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    keys = {str(k).lower(): v for k, v in data.items()}
    status = _int(keys.get("status", keys.get("statuscode", keys.get("status_code"))))
    code = keys.get("code")
    said = keys.get("message", keys.get("msg"))
    if (
        keys.get("error") not in (None, False, "", [], {})
        or keys.get("errors") not in (None, False, "", [], {})
        or (status is not None and status >= 400)
        or (code is not None and isinstance(said, str) and str(code).lower() not in _SUCCESS_CODES)
    ) and keys.get("success") is not True:
        return data
    return None


def api_error(command: str | None, output: str) -> str:
    """The line that says an HTTP client's call failed at the API (see the module doc), or ''."""
    if not command or _CLIENT_RE.search(command) is None:  # the command first: it is short
        return ""
    if "{" not in output and "HTTP/" not in output:
        return ""
    statuses = list(_STATUS_RE.finditer(output[:20_000]))
    if statuses and int(statuses[-1].group(1)) >= 400:
        return statuses[-1].group(0).strip().lstrip("< ")
    found = _error_object(output[-20_000:])
    if found is None:
        return ""
    line = " ".join(json.dumps(found, ensure_ascii=False).split())
    return line if len(line) <= 300 else line[:297] + "…"

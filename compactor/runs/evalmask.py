"""The secrets of an evaluated transcript, masked in ``compact eval``'s report (blind check 63
S1: ``compact eval --json`` printed an API key the user typed, in its "current request" item).

An item quotes the original; a key-like token the summary's maskers mask where the original
holds it (:func:`compactor.models.local_maskinput.input_values`) is shown as ``***``, as the
summary shows it, and the item is matched in that form: the summary's ``tente essa ***`` keeps
the request ``tente essa <key>`` verbatim."""

from __future__ import annotations

from collections.abc import Sequence

from compactor.models.local_mask import mask_repeats
from compactor.models.local_maskinput import candidates, input_values
from compactor.secrets.secret_scan import message_texts

__all__ = ["SecretValues"]


class SecretValues:
    """A text with the secrets ``messages`` hold masked (each token checked once)."""

    def __init__(self, messages: Sequence[object]) -> None:
        self._messages = messages
        self._texts: list[str] | None = None
        self._secret: dict[str, bool] = {}

    def __call__(self, text: str) -> str:
        tokens = candidates(text)
        if not tokens:
            return text
        new = {t for t in tokens if t not in self._secret}
        if new:
            if self._texts is None:
                self._texts = [t for m in self._messages for t in message_texts(m) if t]
            found = input_values(new, self._texts)
            self._secret.update((t, t in found) for t in new)
        values = {t for t in tokens if self._secret[t]}
        return mask_repeats(text, values) if values else text

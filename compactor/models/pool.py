"""Share SDK clients (and their connection pools) between model calls inside one event loop.

By default every :meth:`OpenAIModel.generate <compactor.models.openai.OpenAIModel.generate>` call
opens its own client and closes it again: safe in any event loop, but each call pays for a new
client, SSL context and TCP connection. A batch (``compact run DIR --jobs N``) runs every file
in one loop inside :func:`shared_clients`; there, calls with the same settings (base URL, API
key, timeout) share one client, and the clients are closed when the block ends::

    async with shared_clients():
        await asyncio.gather(*(mw.summarize(s) for s in states))

This module imports no SDK: ``compact check`` and the local model never load ``openai``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from contextvars import ContextVar
from typing import Any

__all__ = ["pooled_client", "shared_clients"]

_POOL: ContextVar[dict[Hashable, Any] | None] = ContextVar("compactor_shared_clients", default=None)


@contextlib.asynccontextmanager
async def shared_clients() -> AsyncIterator[dict[Hashable, Any]]:
    """Within this block (and the tasks it starts), equal client settings share one client.

    Yields the pool (settings → client), mainly for tests. On exit every client is closed
    (``await client.close()``), also when the block fails.
    """
    pool: dict[Hashable, Any] = {}
    token = _POOL.set(pool)
    try:
        yield pool
    finally:
        _POOL.reset(token)
        clients = list(pool.values())
        pool.clear()
        for client in clients:
            with contextlib.suppress(Exception):  # a failed close must not hide the block's outcome
                await client.close()


def pooled_client(key: Hashable, make: Callable[[], Any]) -> Any | None:
    """The shared client for ``key`` (made with ``make()`` on first use), or None outside
    :func:`shared_clients` (the caller then opens and closes a client of its own)."""
    pool = _POOL.get()
    if pool is None:
        return None
    client = pool.get(key)
    if client is None:
        client = pool[key] = make()
    return client

"""Share SDK clients (and their connection pools) between model calls inside one event loop.

By default every :meth:`OpenAIModel.generate <compactor.models.openai.OpenAIModel.generate>` call
opens its own client and closes it again: safe in any event loop, but each call pays for a new
client, SSL context and TCP connection. A batch (``compact run DIR --jobs N``) runs every file
in one loop inside :func:`shared_clients`; there, calls with the same settings (base URL, API
key, timeout) share one client, and the clients are closed when the block ends::

    async with shared_clients():
        await asyncio.gather(*(mw.summarize(s) for s in states))

``shared_clients(requests=N)`` also bounds the model requests in flight: a remote model holds a
:func:`request_slot` for each HTTP request only, so a batch can read, mask and write other
files (and back off between retries) while N requests wait on the network. The summarizer
knows nothing of it.

This module imports no SDK: ``compact check`` and the local model never load ``openai``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from contextvars import ContextVar
from types import TracebackType
from typing import Protocol, Self, TypeVar, cast

__all__ = ["PooledClient", "pooled_client", "request_slot", "shared_clients"]


class PooledClient(Protocol):
    """An SDK's async client (``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``): an async
    context manager that closes it, its ``close()`` and ``is_closed()``."""

    async def close(self) -> None: ...

    def is_closed(self) -> bool: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        exc_tb: TracebackType | None,
        /,
    ) -> None: ...


C = TypeVar("C", bound=PooledClient)

_POOL: ContextVar[dict[Hashable, PooledClient] | None] = ContextVar(
    "compactor_shared_clients", default=None
)
_SLOTS: ContextVar[asyncio.Semaphore | None] = ContextVar("compactor_request_slots", default=None)


@contextlib.asynccontextmanager
async def shared_clients(
    requests: int | None = None,
) -> AsyncIterator[dict[Hashable, PooledClient]]:
    """Within this block (and the tasks it starts), equal client settings share one client.

    With ``requests``, at most that many :func:`request_slot` blocks run at once inside it.
    Yields the pool (settings → client), mainly for tests. On exit every client is closed
    (``await client.close()``), also when the block fails.
    """
    pool: dict[Hashable, PooledClient] = {}
    pool_token = _POOL.set(pool)
    slots_token = _SLOTS.set(asyncio.Semaphore(requests) if requests else None)
    try:
        yield pool
    finally:
        _SLOTS.reset(slots_token)
        _POOL.reset(pool_token)
        clients = list(pool.values())
        pool.clear()
        for client in clients:
            with contextlib.suppress(Exception):  # a failed close must not hide the block's outcome
                await client.close()


def pooled_client(key: Hashable, make: Callable[[], C]) -> C | None:
    """The shared client for ``key`` (made with ``make()`` on first use), or None outside
    :func:`shared_clients` (the caller then opens and closes a client of its own)."""
    pool = _POOL.get()
    if pool is None:
        return None
    client = pool.get(key)
    if client is None:
        client = pool[key] = make()
    return cast("C", client)  # what make() made for this key: the same settings, the same SDK


@contextlib.asynccontextmanager
async def request_slot() -> AsyncIterator[None]:
    """Hold one of :func:`shared_clients`' ``requests`` slots (no bound outside one).

    After the release it yields to the loop once, so the task that the release woke sends its
    request before this one goes on finishing its file.
    """
    slots = _SLOTS.get()
    if slots is None:
        yield
        return
    async with slots:
        yield
    await asyncio.sleep(0)  # let the task woken by the release send its request first

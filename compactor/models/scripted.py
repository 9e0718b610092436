"""A scripted model for tests and demos: replies, errors and delays taken from a list.

Like openai-agents' ``ScriptedModel``: a call with no step left raises
:class:`UnexpectedModelCall`, and :meth:`ScriptedModel.assert_complete` fails when steps are left
over, so a test sees both too many and too few calls.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from compactor._json import JsonObject, JsonValue
from compactor.errors import CompactorError
from compactor.schema import AgenticMessage, M, Message, Usage, make_assistant, message_kind

__all__ = ["ScriptedModel", "Step", "UnexpectedModelCall"]


class UnexpectedModelCall(CompactorError):
    """The scripted model was called more often than it has steps."""


@dataclass(slots=True)
class Step:
    """One call: reply with ``text`` (or ``message``) or raise ``error``, after ``delay``."""

    text: str | None = None
    error: BaseException | None = None
    delay: float = 0.0
    message: Message | AgenticMessage | None = None
    usage: Usage | None = None


@dataclass
class ScriptedModel:
    """Returns its steps in order; records every input it was given in ``calls``."""

    steps: list[Step | str | BaseException] = field(default_factory=list)
    name: str = "scripted"
    calls: list[list[Message] | list[AgenticMessage]] = field(default_factory=list)
    """The inputs, read back by a test as the message type it sent."""
    options: list[JsonObject] = field(default_factory=list)
    input_mode: str = "messages"
    """How the summarizer sends it the input: ``messages``, ``transcript`` or ``auto`` (see
    :mod:`compactor.pipeline.rendering`); a step raising ``ModelError(kind="validation")`` plays a
    server that refuses structured messages."""
    readonly_input: ClassVar[bool] = True
    """It copies what it records and never changes its input (see ``ChatModel``)."""

    @classmethod
    def replying(cls, *texts: str, name: str = "scripted") -> ScriptedModel:
        return cls(list(texts), name=name)

    def extend(self, steps: Iterable[Step | str | BaseException]) -> None:
        self.steps.extend(steps)

    async def generate(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> Message | AgenticMessage:
        self.calls.append(copy.deepcopy(messages))
        self.options.append(dict(options))
        if not self.steps:
            raise UnexpectedModelCall(f"scripted model {self.name!r} has no step left")
        raw = self.steps.pop(0)
        step = Step(text=raw) if isinstance(raw, str) else raw
        if isinstance(step, BaseException):
            raise step
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.error is not None:
            raise step.error
        if step.message is not None:
            return copy.deepcopy(step.message)
        reply: Message | AgenticMessage = make_assistant(
            message_kind(messages), step.text or "", usage=step.usage
        )
        return reply

    def sent(self, kind: type[M]) -> list[list[M]]:
        """:attr:`calls`, each input checked to be of ``kind`` (the type the test sent)."""
        calls = [[m for m in call if isinstance(m, kind)] for call in self.calls]
        if any(len(mine) != len(call) for mine, call in zip(calls, self.calls, strict=True)):
            raise TypeError(f"a call was not given {kind.__name__} messages")
        return calls

    def assert_complete(self) -> None:
        """Fail when steps are left over."""
        if self.steps:
            raise AssertionError(f"scripted model {self.name!r} has {len(self.steps)} unused steps")

"""Planning the summarizer input for a model's window: chunk budgets, a learned token scale,
and how terse the instruction must be.

compact counts with its estimate (UTF-8 bytes / 4,
:func:`compactor.counting.tokens.estimate_message`); servers count with their own tokenizer, up to
2.5x more on some text for a small-vocabulary model (SmolLM2 counted 127,587 tokens where the
estimate said 51,947). So every count here is the estimate times a ``scale`` the run learns from the
server (:mod:`compactor.pipeline.summarize`: the count a context-length error reports, or
``usage.prompt_tokens``), kept within :data:`SCALE_RANGE`, and a call fills at most
:data:`PLANNING_MARGIN` (80 %) of the window left after the reply reserve: an estimate up to a fifth
too low still fits, and the reply keeps its room (llama.cpp cuts a reply at the window:
``finish_reason: "length"``).

The instruction has levels (:func:`instruction_text`): 0 is the configured one; 1 and 2 are
stricter, with a word budget (:func:`brevity_words`). A window where the built-in instruction
would take more than a quarter of what a call may fill starts at level 1
(:func:`initial_brevity`): ``context_tokens: 1000`` was refused outright when the nine-section
instruction alone took about 600 tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from compactor.counting.config import Config
from compactor.counting.tokens import estimate_message, estimate_text
from compactor.errors import SummarizationError
from compactor.prompts import (
    BREVITY_NOTE,
    CHUNK_NOTE,
    CONCISE_INSTRUCTION,
    FOCUS_HEADER,
    USER_INSTRUCTION,
)
from compactor.schema import AgenticMessage, M, Message, make_user, split_system, user_text

if TYPE_CHECKING:
    from .planning import Chunk

__all__ = [
    "MAX_CHUNKS",
    "MIN_CHUNK_BUDGET",
    "PLANNING_MARGIN",
    "SCALE_RANGE",
    "SCALE_SAMPLE_MIN",
    "ChunkPlan",
    "brevity_words",
    "clamp_scale",
    "initial_brevity",
    "input_tokens",
    "instruction_text",
    "message_budget",
    "needs_chunks",
    "plan_summarizer_chunks",
    "running_allowance",
    "usable_tokens",
]


PLANNING_MARGIN = 0.8
"""Chunks fill at most this share of the window left after the reply reserve."""
SCALE_RANGE = (0.5, 8.0)
"""The learned ratio (provider's count / estimate) is kept within these bounds: a server that
reports absurd counts can make chunks smaller (slower), never unbounded."""
SCALE_SAMPLE_MIN = 200
"""A reply's ``usage.prompt_tokens`` teaches the scale only for inputs of at least this many
estimated tokens (a short input's count is mostly chat-template overhead)."""
MIN_CHUNK_BUDGET = 128
"""Fewer tokens than this left for the messages of a chunk: the window is too small."""
MAX_CHUNKS = 500
"""A plan needing more chunks than this is refused (raise the window or summarize less)."""


def brevity_words(config: Config[M], level: int) -> int:
    """The word budget of the stricter instruction at ``level`` (1 or 2): about 0.6 words per
    token of the reply reserve, 60 to 600 words, halved at level 2."""
    words = min(max(int(config.reply_reserve_tokens * 0.6), 60), 600)
    return max(words >> max(level - 1, 0), 30)


def instruction_text(config: Config[M], brevity: int = 0) -> str:
    """The user instruction at ``brevity`` 0 (as configured), 1 or 2 (stricter: the built-in
    one becomes :data:`~compactor.prompts.CONCISE_INSTRUCTION`; a user's own gets
    :data:`~compactor.prompts.BREVITY_NOTE` appended), then the focus instructions, if any,
    after :data:`~compactor.prompts.FOCUS_HEADER`."""
    text = _base_instruction(config, brevity)
    focus = (config.focus_instructions or "").strip()
    return f"{text}\n\n{FOCUS_HEADER}\n{focus}" if focus else text


def _base_instruction(config: Config[M], brevity: int) -> str:
    if brevity <= 0:
        return config.user_instruction or USER_INSTRUCTION
    words = brevity_words(config, brevity)
    if config.user_instruction is None:
        return CONCISE_INSTRUCTION.format(words=words)
    return f"{config.user_instruction}\n\n{BREVITY_NOTE.format(words=words)}"


def input_tokens(model_input: Sequence[Message | AgenticMessage], scale: float = 1.0) -> int:
    """The summarizer input's size as the chunk planner counts it: the default estimate, times
    ``scale`` (the provider's count per estimated token, when learned)."""
    tokens = sum(map(estimate_message, model_input))
    return tokens if scale == 1.0 else math.ceil(tokens * scale)


def usable_tokens(config: Config[M]) -> int:
    """Input tokens a call may fill: :data:`PLANNING_MARGIN` of the window minus the reserve."""
    window = config.summarizer_context_tokens
    assert window is not None
    return math.floor(max(window - config.reply_reserve_tokens, 0) * PLANNING_MARGIN)


def running_allowance(config: Config[M]) -> int:
    """Tokens kept for the running summary handed from chunk to chunk: a quarter of what a call
    may fill, at most the reply reserve (the running summary is a reply)."""
    window = config.summarizer_context_tokens
    assert window is not None
    reserve = config.reply_reserve_tokens
    quarter = min(window, max(usable_tokens(config), 4)) // 4
    return min(quarter, reserve) if reserve > 0 else quarter


def initial_brevity(config: Config[M], scale: float = 1.0) -> int:
    """1 when the built-in instruction would take more than a quarter of the usable window
    (a small summarizer: the concise instruction from the start), else 0."""
    if config.user_instruction is not None or not config.summarizer_context_tokens:
        return 0
    instruction = math.ceil(estimate_text(USER_INSTRUCTION) * scale)
    return 1 if instruction > usable_tokens(config) // 4 else 0


def needs_chunks(
    config: Config[M], model_input: list[M], scale: float = 1.0, shrink: float = 1.0
) -> bool:
    """Whether ``model_input`` must be summarized in chunks: a summarizer window is set, the
    input is the built-in layout, and its scaled estimate exceeds the usable window (or replies
    were cut at the limit and the chunks shrunk)."""
    if not config.summarizer_context_tokens or config.gen_model_input is not None:
        return False
    return shrink < 1.0 or input_tokens(model_input, scale) > usable_tokens(config)


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """How a too-long summarizer input would be split (for the run and for ``--explain``)."""

    budget: int
    """Tokens of context messages per chunk."""
    chunks: list[Chunk]
    """``compactor.pipeline.planning.Chunk`` objects, indices into the context (system run
    excluded)."""
    offset: int
    """Number of leading system messages: add it to a chunk's indices for history indices."""


def message_budget(
    config: Config[M], system_instruction: M, instruction: str, scale: float, shrink: float
) -> int:
    """Tokens (scaled) left for a chunk's messages; refuses a window too small for any."""
    limit = config.summarizer_context_tokens
    assert limit is not None
    kind = type(system_instruction)
    fixed = math.ceil(
        (
            estimate_message(system_instruction)
            + estimate_message(make_user(kind, instruction))
            + estimate_text(CHUNK_NOTE) * 2
        )
        * scale
    )
    usable = usable_tokens(config)
    running = running_allowance(config)
    budget = math.floor((usable - fixed - running) * shrink)
    if budget < MIN_CHUNK_BUDGET:
        scaled = f" (estimates x{scale:.2f}, learned from the server)" if scale != 1.0 else ""
        raise SummarizationError(
            f"summarizer_context_tokens={limit:,} leaves no room for messages: of the "
            f"{usable:,} tokens a call may fill ({PLANNING_MARGIN:.0%} of the window after the "
            f"reply reserve of {config.reply_reserve_tokens:,}), the instructions take "
            f"{fixed:,}{scaled} and the running summary {running:,}, leaving {max(budget, 0):,} "
            f"for messages (at least {MIN_CHUNK_BUDGET} needed)"
        )
    return budget


def plan_summarizer_chunks(
    config: Config[M],
    messages: list[M],
    system_instruction: M,
    user_instruction: M,
    *,
    scale: float = 1.0,
    shrink: float = 1.0,
) -> ChunkPlan:
    """Split the context of ``messages`` into chunks that fit ``summarizer_context_tokens``.

    Each chunk's input is the system instruction, the running summary, the chunk's messages and
    the user instruction with a short note, all counted with the estimate times ``scale``; it
    fills at most :data:`PLANNING_MARGIN` of the window left after the reply reserve
    (``shrink`` < 1 takes that share of the message budget only). More than
    :data:`MAX_CHUNKS` chunks, or fewer than :data:`MIN_CHUNK_BUDGET` tokens for messages, is
    refused with a :class:`SummarizationError` that says why.
    """
    from .planning import plan_chunks

    system_messages, context = split_system(messages)
    budget = message_budget(config, system_instruction, user_text(user_instruction), scale, shrink)

    def count(msg: Message | AgenticMessage) -> int:
        return math.ceil(estimate_message(msg) * scale)

    chunks = plan_chunks(context, budget, count)
    if len(chunks) > MAX_CHUNKS:
        raise SummarizationError(
            f"the input would need {len(chunks):,} chunks of at most {budget:,} tokens for a "
            f"{config.summarizer_context_tokens:,}-token summarizer window (at most "
            f"{MAX_CHUNKS} allowed): use a summarizer with a larger window"
        )
    return ChunkPlan(budget=budget, chunks=chunks, offset=len(system_messages))


def clamp_scale(value: float) -> float:
    low, high = SCALE_RANGE
    return min(max(value, low), high)

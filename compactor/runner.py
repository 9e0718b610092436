"""``compactor.runner``: the name the README documents for :mod:`compactor.runs.runner`.

Kept for library users only; code inside the package imports ``compactor.runs.runner``.
"""

from compactor.runs.runner import (
    Run,
    RunOptions,
    RunResult,
    arun_file,
    plan,
    run_file,
)

__all__ = [
    "Run",
    "RunOptions",
    "RunResult",
    "arun_file",
    "plan",
    "run_file",
]

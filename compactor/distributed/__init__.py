"""Object-store paths and batches beyond one machine (``s3://``, ``gs://``, ``az://``,
``memory://`` through fsspec; a Dask cluster with ``--dask``).

Kept light: importing this package imports neither fsspec nor dask; each module imports them
inside the functions that need them. :mod:`.objects` reads and writes objects whole and runs one
file through the ordinary :class:`~compactor.runs.runner.Run` (:func:`.objects.run_url`);
:mod:`.many` runs many of them, in this process or as one task per file on a Dask cluster
(:func:`compact_many`), resuming from a manifest beside the outputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .many import ManyOutcome, compact_many

__all__ = ["ManyOutcome", "compact_many"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import many

        return getattr(many, name)
    raise AttributeError(name)

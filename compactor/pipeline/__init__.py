"""Pipeline layer (ARCHITECTURE.md): where to cut, the summarizer input and its chunks, the
ladder of models with retries, the summary cache and spend guards, finalize and the
retention check, and ``middleware.new()``, the library's entry point."""

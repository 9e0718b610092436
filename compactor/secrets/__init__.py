"""Text facts layer, secrets (ARCHITECTURE.md): the fast scan for texts that may hold a
secret (``secret_scan``) and the masking applied before a summarizer sees them
(``masking``). Apart from ``facts/`` so a remote run masks secrets without importing
the fact extractors."""

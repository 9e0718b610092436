"""Summarization models: the protocol, the registry and the built-in backends."""

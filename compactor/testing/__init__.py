"""Test helpers shipped with the package (a fake OpenAI-compatible server)."""

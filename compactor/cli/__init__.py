"""The ``compact`` command line (typer + rich). The core never imports this package."""

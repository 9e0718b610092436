"""``python -m compactor`` runs the command line."""

from compactor.cli.app import main

main()

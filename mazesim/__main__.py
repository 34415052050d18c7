"""`python -m mazesim` runs the CLI."""

from mazesim.cli import main

main()

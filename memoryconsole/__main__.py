"""`python -m memoryconsole …`: the same as the `memory-console` command."""

from memoryconsole.cli import main

main()

"""The commands, one module each (registered in ``termsprawl_context.cli.COMMANDS``)."""

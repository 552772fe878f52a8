"""The commands, one module each: its summary is its row of ``termsprawl_context.cli.COMMANDS``, its help its Spec."""

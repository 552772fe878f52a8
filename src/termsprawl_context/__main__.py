"""``python -m termsprawl_context``: the same command as the console script."""

from termsprawl_context.cli import main


raise SystemExit(main())

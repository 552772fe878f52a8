"""``python -m termsprawl_context``: the same command as the console script."""

import sys

from termsprawl_context.cli import main

__all__ = []

sys.exit(main())

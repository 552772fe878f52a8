"""``python -m termsprawl_context``: the same command as the console script."""

import sys

from termsprawl_context.cli import main


sys.exit(main())

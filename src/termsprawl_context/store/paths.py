"""Where the seed's store is (the default provider's: ``--projects-dir``, else its own
store root) and the variable that moves it, asked of the provider. The store is only
ever read."""

from termsprawl_context.harness import DEFAULT_HARNESS, get

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Mapping, Optional


_SEED = get(DEFAULT_HARNESS)
CONFIG_DIR_ENV = _SEED.config_dir_env


def projects_dir(explicit: "Optional[str]" = None, environ: "Optional[Mapping[str, str]]" = None) -> str:
    """The store to read: ``explicit`` if given, else the provider's own; absolute, so every
    path printed from it can be opened from anywhere ("" when no home can be found)."""
    import os

    if explicit:
        return os.path.abspath(explicit)
    roots = _SEED.store_roots(environ)
    return roots[0] if roots else ""

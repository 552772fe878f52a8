"""Where the walked store is (``--projects-dir``, else its provider's own store root) and
the variable that moves it, asked of the provider that declares ``--projects-dir`` as its
``root_option``. The store is only ever read."""

from termsprawl_context.harness import KNOWN_HARNESSES, get

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Mapping, Optional


# The provider whose root ``--projects-dir`` names, asked in registry order: only the modules
# up to the one that declares it are imported.
ROOTED = next(h for h in map(get, KNOWN_HARNESSES) if h is not None and h.root_option == "projects-dir")


def projects_dir(explicit: "Optional[str]" = None, environ: "Optional[Mapping[str, str]]" = None) -> str:
    """The store to read: ``explicit`` if given, else the provider's own; absolute, so every
    path printed from it can be opened from anywhere ("" when no home can be found)."""
    import os

    if explicit:
        return os.path.abspath(explicit)
    roots = ROOTED.store_roots(environ)
    return roots[0] if roots else ""

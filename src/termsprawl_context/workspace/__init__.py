"""Project-local state under ``<project>/.termsprawl/``: ids, index, links, discovery."""


def lazy_errors(module: str, *names: str):
    """A module ``__getattr__`` answering errors.py's ``names``: errors.py loads only when one
    is raised or asked for (the dump, which raises none, never pays for it)."""

    def __getattr__(name: str) -> type:
        if name not in names:
            raise AttributeError("module %r has no attribute %r" % (module, name))
        from termsprawl_context import errors

        return getattr(errors, name)  # type: ignore[no-any-return]

    return __getattr__

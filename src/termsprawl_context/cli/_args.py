"""What a command's arguments name, checked: a node id, the project directory, a count. The dump
imports it for its hand-off options, so it imports nothing at load (errors.py only to refuse)."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Optional


def positive_int(value: str) -> "Optional[int]":
    """``value`` as a whole number of at least 1 in ASCII digits (no sign, no other script's), else None."""
    return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None


def require_ids(command: str, *values: str) -> None:
    """Refuse a value that is not a safe node id (``BadNodeId``, exit 2)."""
    from termsprawl_context.errors import BadNodeId
    from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id, shown_id

    for value in values:
        if not is_safe_id(value):
            raise BadNodeId(
                "%s: invalid node id: %s (a node id matches %s)" % (command, shown_id(value), SAFE_ID_SHOWN)
            )


def project_dir(cwd: "Optional[str]", command: str, writing: bool = False) -> str:
    """``--cwd``, else the project found (the installed command's own, else the nearest at or above here),
    else ``.``; a writing command refuses one inside another project: it would start a nested one."""
    from termsprawl_context.workspace.project import default_project, enclosing_project

    chosen = cwd if cwd is not None else (default_project() or ".")
    if writing:
        outer = enclosing_project(chosen)
        if outer:
            from termsprawl_context.errors import InsideProject

            raise InsideProject(command, chosen, outer)
    return chosen

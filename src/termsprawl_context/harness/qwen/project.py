"""The permission rule ``init`` merges into Qwen Code's project settings (0.24.4).

Qwen matches ``run_shell_command(<pattern>)`` against the whole command (leading variable
assignments stripped): a pattern without ``*`` admits the command itself or the command
followed by a space and anything (its ``matchesCommandPattern``). So the rule for the read
command's words up to ``--format markdown`` admits every read of this project's peers
(``--cwd``/``--self`` follow) and no other subcommand (``links add …`` starts differently).
"""

from __future__ import annotations

from termsprawl_context.harness.qwen.facts import PERMISSION_ALLOW, PERMISSIONS_KEY, SHELL_RULE

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Dict, List, Optional, Tuple


def merge_permission(settings: "Dict[str, Any]", read_prefix: str) -> "Tuple[Optional[Dict[str, Any]], List[str]]":
    """``(settings with the allow rule appended, or None when it is there, notes)``; a
    ``permissions`` or ``permissions.allow`` of the person's that is not an object / a
    list is kept, with a note (the read then asks, or headless Qwen offers no shell)."""
    rule = SHELL_RULE % read_prefix
    permissions = settings.get(PERMISSIONS_KEY, {})
    if not isinstance(permissions, dict):
        return None, ["%s is not an object: kept as it is (no rule for the read command)" % PERMISSIONS_KEY]
    allow = permissions.get(PERMISSION_ALLOW, [])
    if not isinstance(allow, list):
        return None, ["%s.%s is not a list: kept as it is" % (PERMISSIONS_KEY, PERMISSION_ALLOW)]
    if rule in allow:
        return None, []
    merged_permissions = dict(permissions)
    merged_permissions[PERMISSION_ALLOW] = list(allow) + [rule]
    merged = dict(settings)
    merged[PERMISSIONS_KEY] = merged_permissions
    return merged, []

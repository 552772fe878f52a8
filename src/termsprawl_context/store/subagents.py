"""Sub-agents as the store's features read them (``root``, ``parent``, ``subagents``,
citations' pools): the seed's provider's reader (``harness/claude/subagents.py``), under
its old name for cli/ and cite/; the lead points them at the provider and deletes this
(issue 28)."""

from termsprawl_context.harness.claude.subagents import (  # noqa: F401
    child_records,
    find_parent,
    harness_root_of,
    is_subagent_record,
    parent_of,
    read_agent_meta,
    session_dir_of_subagent,
    session_root_of,
    subagent_transcript_path,
    subagent_tree,
)

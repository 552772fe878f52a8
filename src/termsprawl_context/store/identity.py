"""Whose record is this file, and which conversation it belongs to: one import for four jobs.

- ``belongs``: the belongs-to checks, by session id and by working tree, and the running
  session's own record;
- ``relocation``: where a resumed session's record really is;
- ``continuation``: the stable session id, walked back through restarts;
- ``timestamps``: record timestamps as Go orders them.

Each job lives in its own module; their public names are re-exported here so callers
name ``store.identity`` alone.
"""

from termsprawl_context.harness.claude.belongs import (  # noqa: F401 (the tests name these here too)
    SESSION_ID_FIELD,
    SessionEvidence,
    TreeEvidence,
    belongs_to_session,
    belongs_to_tree,
    carries_session,
    check_belongs_to_session,
    check_belongs_to_tree,
    check_harness_belongs_to_session,
    check_harness_belongs_to_tree,
    current_session_path,
    session_evidence,
    start_cwd,
    tree_evidence,
    within,
)
from termsprawl_context.harness.claude.continuation import (  # noqa: F401 (the tests name these here too)
    MAX_RESTART_HOPS,
    MAX_WALK_VISITS,
    ByteSearchSiblings,
    Identity,
    Origin,
    origin_record,
    project_dir_of_record,
    resolve_stable_session_id,
    scan_bytes,
    stable_session_id,
)
from termsprawl_context.harness.claude.relocation import (  # noqa: F401 (the tests name these here too)
    STARTUP_SOURCE,
    SUBAGENT_DIR,
    SUBAGENT_PREFIX,
    TRANSCRIPT_SUFFIX,
    relocate_record,
)
from termsprawl_context.transcript.timestamps import parse_timestamp, start_time  # noqa: F401

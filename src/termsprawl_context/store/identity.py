"""Whose record is this file, and which conversation it belongs to: one import for four jobs.

- ``belongs``: the belongs-to checks, by session id and by working tree, and the running
  session's own record;
- ``relocation``: where a resumed session's record really is;
- ``continuation``: the stable session id, walked back through restarts;
- ``timestamps``: record timestamps as Go orders them.

Each job lives in its own module; their public names are re-exported here so callers
name ``store.identity`` alone.
"""

from termsprawl_context.store.belongs import (
    _CWD_KEY,
    _SESSION_ID_KEY,
    SESSION_ID_FIELD,
    SessionEvidence,
    TreeEvidence,
    WrongSession,
    WrongTree,
    _decoded,
    belongs_to_session,
    belongs_to_tree,
    carries_session,
    check_belongs_to_session,
    check_belongs_to_tree,
    current_session_path,
    session_evidence,
    start_cwd,
    tree_evidence,
    within,
)
from termsprawl_context.store.continuation import (
    _CHUNK,
    CHAIN_RUNAWAY,
    CONTINUATION_MISSING,
    MAX_RESTART_HOPS,
    MAX_WALK_VISITS,
    NO_ORIGIN_RECORD,
    NO_PROJECT_DIR,
    ByteSearchSiblings,
    ChainRunaway,
    ContinuationMissing,
    Degraded,
    Identity,
    NoOriginRecord,
    NoProjectDir,
    Origin,
    origin_record,
    project_dir_of_record,
    resolve_stable_session_id,
    scan_bytes,
    stable_session_id,
)
from termsprawl_context.store.relocation import (
    STARTUP_SOURCE,
    SUBAGENT_DIR,
    SUBAGENT_PREFIX,
    TRANSCRIPT_SUFFIX,
    relocate_record,
)
from termsprawl_context.store.timestamps import parse_timestamp, start_time

__all__ = [
    "SESSION_ID_FIELD",
    "SessionEvidence",
    "TreeEvidence",
    "WrongSession",
    "WrongTree",
    "belongs_to_session",
    "belongs_to_tree",
    "carries_session",
    "check_belongs_to_session",
    "check_belongs_to_tree",
    "current_session_path",
    "session_evidence",
    "start_cwd",
    "tree_evidence",
    "within",
    "CHAIN_RUNAWAY",
    "CONTINUATION_MISSING",
    "MAX_RESTART_HOPS",
    "MAX_WALK_VISITS",
    "NO_ORIGIN_RECORD",
    "NO_PROJECT_DIR",
    "ByteSearchSiblings",
    "ChainRunaway",
    "ContinuationMissing",
    "Degraded",
    "Identity",
    "NoOriginRecord",
    "NoProjectDir",
    "Origin",
    "origin_record",
    "project_dir_of_record",
    "resolve_stable_session_id",
    "scan_bytes",
    "stable_session_id",
    "STARTUP_SOURCE",
    "SUBAGENT_DIR",
    "SUBAGENT_PREFIX",
    "TRANSCRIPT_SUFFIX",
    "relocate_record",
    "parse_timestamp",
    "start_time",
    # read by the tests (bytescan's property test, the chunk-edge tests): not API
    "_CHUNK",
    "_CWD_KEY",
    "_SESSION_ID_KEY",
    "_decoded",
]

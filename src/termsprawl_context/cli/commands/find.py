"""``find``: print one session's id and transcript path."""

from termsprawl_context._output import encode_path, encode_text, error_line, warn
from termsprawl_context.cli.command import (
    JSON_ONE,
    SESSION,
    Spec,
    command,
    print_one,
)
from termsprawl_context.cli.store_options import native_store, resolve_session
from termsprawl_context.errors import AmbiguousSession
from termsprawl_context.store import catalog
from termsprawl_context.store import sessions as store_sessions


FIND = Spec(
    "find",
    "Print the id and transcript path of the one session whose id is or starts with SESSION.",
    (SESSION,),
    ("projects-dir", "harness"),
    JSON_ONE,
)


def _id_and_path(session_id: str, path: str) -> bytes:
    # The path is the answer: it keeps its bytes, so it names the real file.
    return encode_text(session_id + "\t") + encode_path(path) + b"\n"


def _find_other(args, found, provider) -> int:
    """``find`` of a session whose provider's records are not the seed's: the same two
    columns, or one JSON line."""
    session_id, path = found.session_id, found.path

    def data():
        mtime, size = provider.session_stat(path) or (0.0, 0)
        return provider.describe(path, mtime, size, session_id).to_dict()

    print_one(args.json, data, _id_and_path(session_id, path))
    return 0


@command(FIND)
def run_find(args) -> int:
    try:
        found = resolve_session(args, args.session)
    except AmbiguousSession as refusal:
        error_line(str(refusal))  # the refusal, then every candidate file, one a line
        for line in catalog.candidates_message(refusal.candidates):
            warn(line)
        return refusal.exit_code
    from termsprawl_context.harness import get

    provider = get(found.harness)
    if not provider.native_records:
        return _find_other(args, found, provider)
    info, copies = store_sessions.describe_resolved(found, native_store(args))
    for line in catalog.copies_message(info.session_id, copies):
        warn(line)
    print_one(
        args.json,
        lambda: store_sessions.with_session_title(info).to_dict(),
        _id_and_path(info.session_id, info.transcript_path),
    )
    return 0

from termsprawl_context._output import encode_path, encode_text, error_line, warn
from termsprawl_context.cli.command import JSON_ONE, SESSION, Spec, command, print_one, resolve_session, store_of
from termsprawl_context.errors import AmbiguousSession
from termsprawl_context.harness import get
from termsprawl_context.store import catalog
from termsprawl_context.store import sessions as store_sessions


FIND = Spec(
    "find",
    "Print the id and transcript path of the one session whose id is or starts with SESSION.",
    (SESSION,),
    ("projects-dir", "harness"),
    JSON_ONE,
)


@command(FIND)
def run_find(args) -> int:
    try:
        found = resolve_session(args, args.session)
    except AmbiguousSession as refusal:
        error_line(str(refusal))  # the refusal, then every candidate file, one a line
        for line in catalog.candidates_message(refusal.candidates):
            warn(line)
        return refusal.exit_code
    store = store_of(args, get(found.harness))
    info, copies = store_sessions.describe_resolved(found, store)
    for line in catalog.copies_message(info.session_id, copies):
        warn(line)
    # The path is the answer: it keeps its bytes, so it names the real file.
    text = encode_text(info.session_id + "\t") + encode_path(info.transcript_path) + b"\n"
    print_one(args.json, lambda: store_sessions.with_session_title(info).to_dict(), text)
    return 0

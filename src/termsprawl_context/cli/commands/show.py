from termsprawl_context import handoff, handoff_render
from termsprawl_context._output import write_out, write_transcript_text
from termsprawl_context.cli.command import JSON_ONE, SESSION, Spec, add_count, command, json_line
from termsprawl_context.cli.command import STORE_OPTIONS, resolve_session
from termsprawl_context.errors import NotFound
from termsprawl_context.store.sessions import session_title


def _show_options(parser) -> None:
    add_count(parser, "--turns", "the last N turns", handoff.DEFAULT_TURNS)
    add_count(parser, "--max-chars", "characters of turn text in all", handoff.DEFAULT_MAX_CHARS)
    parser.add_argument("--format", choices=handoff_render.FORMATS, default=handoff_render.FORMAT_MARKDOWN)
    parser.add_argument("--all", action="store_true", help="add tool calls and results as one-line summaries")


_HELP = (
    "Print one session's own conversation as the hand-off does: the person's prompts and the assistant's text "
    "(sidechain, meta, compaction and injected turns left out), the last --turns turns plus the person's last "
    "prompts and the last answer, within --max-chars. --json is --format json."
)
SHOW = Spec("show", _HELP, (SESSION,), STORE_OPTIONS, JSON_ONE, _show_options)


@command(SHOW)
def run_show(args) -> None:
    found = resolve_session(args, args.session)
    session_id, path, harness = found.session_id, found.path, found.harness
    json_out = args.json or args.format == handoff_render.FORMAT_JSON
    try:
        turns = handoff.read_harness_turns(path, harness, args.turns, tools=args.all, lines=json_out)
    except OSError as exc:
        raise NotFound("cannot read %s: %s" % (path, exc.strerror or exc))
    title = session_title(path, session_id, harness=harness).text or session_id  # as `sessions` titles it
    peer = handoff_render.apply_budget([handoff.PeerHandoff(session_id, title, path, turns)], args.max_chars)[0]
    if json_out:
        write_out(json_line(handoff_render.handoff_data([peer])["peers"][0]))
    else:
        write_transcript_text(handoff_render.format_peer_markdown(peer, handoff_render.SESSION_HEADING) + "\n")

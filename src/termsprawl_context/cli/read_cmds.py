"""``show`` and ``search``: read one session as an agent or a person would, and search
across sessions. Argv in, one library call, output out."""

import json
import sys
from typing import List

from termsprawl_context.cli._args import add_projects_dir, command_parser, parse, positive_int
from termsprawl_context._output import (
    error_line,
    terminal_safe,
    terminal_safe_json,
    write_out,
    write_transcript_text,
)
from termsprawl_context.errors import NotFound, UsageError



def _store(args):
    from termsprawl_context.store import paths
    from termsprawl_context.store.resolve import require_store

    return require_store(paths.projects_dir(args.projects_dir), args.projects_dir)


def _store_options(parser) -> None:
    add_projects_dir(parser)
    parser.add_argument("--project", metavar="DIR", help="only the sessions run in this working directory")


def run_show(argv: List[str]) -> int:
    from termsprawl_context import handoff

    parser = command_parser(
        "show",
        "Print one session's own conversation as the hand-off does: the person's prompts and the "
        "assistant's text (sidechain, meta, compaction and injected turns left out), the last "
        "--turns turns plus the person's last prompts and the last answer, within --max-chars.",
    )
    parser.add_argument("session", metavar="SESSION", help="a session id, a unique prefix of one, a path, or 'latest'")
    _store_options(parser)
    parser.add_argument("--turns", type=positive_int, default=handoff.DEFAULT_TURNS, metavar="N",
                        help="the last N turns (default %d)" % handoff.DEFAULT_TURNS)
    parser.add_argument("--max-chars", type=positive_int, default=handoff.DEFAULT_MAX_CHARS, metavar="N",
                        help="characters of turn text in all (default %d)" % handoff.DEFAULT_MAX_CHARS)
    parser.add_argument("--format", choices=handoff.FORMATS, default=handoff.FORMAT_MARKDOWN)
    parser.add_argument("--all", action="store_true", help="add tool calls and results as one-line summaries")
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store.resolve import resolve_session
    from termsprawl_context.store.session_titles import session_title

    if not args.session:
        raise UsageError("show: session must not be empty")
    session_id, path = resolve_session(args.session, _store(args), args.project)
    try:
        turns = handoff.read_turns_backward(path, args.turns, tools=args.all)
    except OSError as exc:
        raise NotFound("cannot read %s: %s" % (path, exc.strerror or exc))
    json_out = args.format == handoff.FORMAT_JSON
    if json_out:
        turns = handoff.number_lines(path, turns)
    # Named as `sessions` and `find --json` name it (summaries of its folder included).
    title = session_title(path, session_id).text or session_id
    peer = handoff.apply_budget([handoff.PeerHandoff(session_id, title, path, turns)], args.max_chars)[0]
    if json_out:
        write_out(terminal_safe_json(json.dumps(handoff.handoff_data([peer])["peers"][0], ensure_ascii=False)) + "\n")
    else:
        write_transcript_text(handoff.format_peer_markdown(peer, handoff.SESSION_HEADING) + "\n")
    return 0


def _cell(text: str) -> str:
    """A result's field on its one line: anything that would break the line or drive a
    terminal becomes a space."""
    return terminal_safe(text, stand_in=" ", line_breaks=True)


def run_search(argv: List[str]) -> int:
    from termsprawl_context.store import search

    parser = command_parser(
        "search",
        "Print the lines of the store's sessions whose text holds TEXT (case-insensitively), newest "
        "session first: <path>:<line>, which text matched, the session's title, a snippet. Exit 1 "
        "when nothing matches.",
    )
    parser.add_argument("text", metavar="TEXT")
    _store_options(parser)
    parser.add_argument("--in", dest="kinds", default=",".join(search.DEFAULT_KINDS), metavar="KINDS",
                        help="texts searched, a subset of human,assistant,tool (default: %s)"
                        % ",".join(search.DEFAULT_KINDS))
    parser.add_argument("--limit", type=positive_int, default=search.DEFAULT_LIMIT, metavar="N",
                        help="at most N results (default %d)" % search.DEFAULT_LIMIT)
    parser.add_argument("--regex", action="store_true", help="TEXT is a regular expression (Python's, case-insensitive)")
    parser.add_argument("--json", action="store_true", help="one JSON object per result")
    args = parse(parser, argv)
    if args is None:
        return 0
    if not args.text:
        raise UsageError("search: text must not be empty")
    kinds = search.parse_kinds(args.kinds)
    hits = search.search_store(args.text, _store(args), args.project, kinds, args.limit, args.regex)
    count = 0
    for hit in hits:
        count += 1
        if args.json:
            line = json.dumps(hit._asdict(), ensure_ascii=False)
        else:
            line = "%s:%d\t%s\t%s\t%s" % (hit.path, hit.line, hit.kind, _cell(hit.title), _cell(hit.snippet))
        write_out(line + "\n")
    if not count:
        error_line("no match for %s" % _cell(args.text))
        return 1
    sys.stdout.flush()
    return 0

"""``show`` and ``search``: read one session as an agent or a person would, and search
across sessions. Argv in, one library call, output out."""

from typing import Any

from termsprawl_context._output import error_line, write_transcript_text
from termsprawl_context.cli.command import JSON_LIST, JSON_ONE, SESSION, Arg, Spec, add_count, cell, json_line, command
from termsprawl_context.cli.command import print_list
from termsprawl_context.cli.store_options import (
    claude_store,
    other_harnesses,
    resolve_session,
    wants_claude,
)
from termsprawl_context.errors import NotFound
from termsprawl_context.harness import CLAUDE_CODE

__all__ = ["SEARCH", "SHOW", "run_search", "run_show"]

STORE_OPTIONS = ("projects-dir", "project", "harness")


def _show_options(parser) -> None:
    from termsprawl_context import handoff

    add_count(parser, "--turns", "the last N turns", handoff.DEFAULT_TURNS)
    add_count(parser, "--max-chars", "characters of turn text in all", handoff.DEFAULT_MAX_CHARS)
    parser.add_argument("--format", choices=handoff.FORMATS, default=handoff.FORMAT_MARKDOWN)
    parser.add_argument("--all", action="store_true", help="add tool calls and results as one-line summaries")


SHOW = Spec(
    "show",
    "Print one session's own conversation as the hand-off does: the person's prompts and the assistant's text "
    "(sidechain, meta, compaction and injected turns left out), the last --turns turns plus the person's last "
    "prompts and the last answer, within --max-chars. --json is --format json.",
    (SESSION,),
    STORE_OPTIONS,
    JSON_ONE,
    _show_options,
)


def _search_options(parser) -> None:
    from termsprawl_context.store import search

    parser.add_argument(
        "--in",
        dest="kinds",
        default=None,
        metavar="KINDS",
        help="texts searched, a subset of %s (default: %s)" % (",".join(search.KINDS), ",".join(search.DEFAULT_KINDS)),
    )
    add_count(parser, "--limit", "at most N results", search.DEFAULT_LIMIT)
    parser.add_argument(
        "--regex", action="store_true", help="TEXT is a regular expression (Python's, case-insensitive)"
    )
    parser.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        help="leave out the sessions' sub-agent records (searched by default, after each session)",
    )


SEARCH = Spec(
    "search",
    "Print the lines of the store's sessions whose text holds TEXT (case-insensitively), newest session first: "
    "<path>:<line>, which text matched, the session's title, a snippet. No match prints nothing (exit 0).",
    (Arg("text", "TEXT", "the text to find"),),
    STORE_OPTIONS,
    JSON_LIST,
    _search_options,
)


@command(SHOW)
def run_show(args) -> int:
    from termsprawl_context import handoff

    session_id, path, harness = _resolve_any(args)
    json_out = args.json or args.format == handoff.FORMAT_JSON
    try:
        if harness != CLAUDE_CODE:
            turns = handoff.read_harness_turns(path, harness, args.turns, tools=args.all)
        else:
            turns = handoff.read_turns_backward(path, args.turns, tools=args.all)
            if json_out:
                turns = handoff.number_lines(path, turns)
    except OSError as exc:
        raise NotFound("cannot read %s: %s" % (path, exc.strerror or exc))
    title = _title(session_id, path, harness)
    peer = handoff.apply_budget([handoff.PeerHandoff(session_id, title, path, turns)], args.max_chars)[0]
    if json_out:
        from termsprawl_context._output import write_out

        write_out(json_line(handoff.handoff_data([peer])["peers"][0]))
    else:
        write_transcript_text(handoff.format_peer_markdown(peer, handoff.SESSION_HEADING) + "\n")
    return 0


def _title(session_id: str, path: str, harness: str) -> str:
    """The session's title as ``sessions``, ``find --json`` and ``search`` name it."""
    from termsprawl_context.store.session_titles import session_title

    return session_title(path, session_id, harness=harness).text or session_id  # summaries of its folder included


def _resolve_any(args):
    """``(session id, path, harness)`` of the session named (``store.catalog.resolve``)."""
    found = resolve_session(args, args.session)
    return found.session_id, found.path, found.harness


def _and_others(hits, args, others, kinds):
    """Claude Code's hits, then the other stores' (newest session first), within --limit."""
    from termsprawl_context.store import search

    count = 0
    for hit in hits:
        count += 1
        yield hit
    if not others or count >= args.limit:
        return
    from termsprawl_context.store.harness_store import search_other

    matcher = search.Matcher(args.text, args.regex)
    for session, title, entry, kind, snip in search_other(matcher, others, kinds, args.limit - count):
        yield search.Hit(
            session.path,
            entry.line,
            entry.offset,
            entry.session_id or session.session_id,
            title,
            kind,
            snip,
            entry.timestamp,
            entry.uuid,
            "",
        )


def _hit_row(hit) -> str:
    return "%s:%d\t%s\t%s\t%s\n" % (hit.path, hit.line, hit.kind, cell(hit.title), cell(hit.snippet))


@command(SEARCH)
def run_search(args) -> int:
    from termsprawl_context.store import search

    # No --in: the default kinds, and every kind in a sub-agent's record (search.py says why).
    kinds = search.parse_kinds(args.kinds) if args.kinds is not None else search.DEFAULT_KINDS
    sub_kinds = kinds if args.kinds is not None else search.SUBAGENT_DEFAULT_KINDS
    others = other_harnesses(args)
    hits: Any = iter(())
    if wants_claude(args):
        try:
            hits = search.search_store(
                args.text, claude_store(args), args.project, kinds, args.limit, args.regex, args.subagents, sub_kinds
            )
        except NotFound:
            if not others:
                raise
    found = _and_others(hits, args, others, kinds)
    if not print_list(args.json, found, lambda hit: hit._asdict(), _hit_row):
        error_line("no match for %s" % cell(args.text))  # no results: exit 0, nothing on stdout
    return 0

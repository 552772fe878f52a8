"""``show`` and ``search``: read one session as an agent or a person would, and search
across sessions. Argv in, one library call, output out."""

import json
import sys
from typing import Any, List

from termsprawl_context.cli._args import add_harness, add_projects_dir, command_parser, parse, positive_int
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
    from termsprawl_context.store.catalog import require_store

    return require_store(paths.projects_dir(args.projects_dir), args.projects_dir)


def _store_options(parser) -> None:
    add_projects_dir(parser)
    parser.add_argument("--project", metavar="DIR", help="only the sessions run in this working directory")
    add_harness(parser)


CLAUDE_CODE = "claude-code"


def _wants_claude(args) -> bool:
    return args.harness in (None, "all", CLAUDE_CODE)


def _others(args) -> list:
    """The non-Claude harnesses to read: those --harness names, else (without
    --projects-dir, which names Claude Code's store) every one this build reads. A
    --project limits listings to Claude Code's folder for it, so it reads none."""
    from termsprawl_context.store.harness_store import chosen_harnesses

    if args.harness in (None, "all") and (args.projects_dir or getattr(args, "project", None)):
        return [] if args.harness is None else chosen_harnesses("all", include_claude=False)
    return chosen_harnesses(args.harness, include_claude=False)


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
    parser.add_argument(
        "--turns",
        type=positive_int,
        default=handoff.DEFAULT_TURNS,
        metavar="N",
        help="the last N turns (default %d)" % handoff.DEFAULT_TURNS,
    )
    parser.add_argument(
        "--max-chars",
        type=positive_int,
        default=handoff.DEFAULT_MAX_CHARS,
        metavar="N",
        help="characters of turn text in all (default %d)" % handoff.DEFAULT_MAX_CHARS,
    )
    parser.add_argument("--format", choices=handoff.FORMATS, default=handoff.FORMAT_MARKDOWN)
    parser.add_argument("--all", action="store_true", help="add tool calls and results as one-line summaries")
    args = parse(parser, argv)
    if args is None:
        return 0
    from termsprawl_context.store.session_titles import session_title

    if not args.session:
        raise UsageError("show: session must not be empty")
    session_id, path, harness = _resolve_any(args)
    json_out = args.format == handoff.FORMAT_JSON
    if harness != CLAUDE_CODE:
        try:
            turns = handoff.read_harness_turns(path, harness, args.turns, tools=args.all)
        except OSError as exc:
            raise NotFound("cannot read %s: %s" % (path, exc.strerror or exc))
    else:
        try:
            turns = handoff.read_turns_backward(path, args.turns, tools=args.all)
        except OSError as exc:
            raise NotFound("cannot read %s: %s" % (path, exc.strerror or exc))
        if json_out:
            turns = handoff.number_lines(path, turns)
    # Named as `sessions`, `find --json` and `search` name it (summaries of its folder included).
    title = session_title(path, session_id, harness=harness).text or session_id
    peer = handoff.apply_budget([handoff.PeerHandoff(session_id, title, path, turns)], args.max_chars)[0]
    if json_out:
        write_out(terminal_safe_json(json.dumps(handoff.handoff_data([peer])["peers"][0], ensure_ascii=False)) + "\n")
    else:
        write_transcript_text(handoff.format_peer_markdown(peer, handoff.SESSION_HEADING) + "\n")
    return 0


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


def _resolve_any(args):
    """``(session id, path, harness)`` of the session named (``store.catalog.resolve``)."""
    from termsprawl_context.store import catalog, paths

    others = [] if catalog.is_path(args.session) else _others(args)
    found = catalog.resolve(
        args.session, paths.projects_dir(args.projects_dir), args.project, args.harness, others, args.projects_dir
    )
    return found.session_id, found.path, found.harness


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
    parser.add_argument(
        "--in",
        dest="kinds",
        default=None,
        metavar="KINDS",
        help="texts searched, a subset of human,assistant,tool (default: %s)" % ",".join(search.DEFAULT_KINDS),
    )
    parser.add_argument(
        "--limit",
        type=positive_int,
        default=search.DEFAULT_LIMIT,
        metavar="N",
        help="at most N results (default %d)" % search.DEFAULT_LIMIT,
    )
    parser.add_argument(
        "--regex", action="store_true", help="TEXT is a regular expression (Python's, case-insensitive)"
    )
    parser.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        help="leave out the sessions' sub-agent records (searched by default, after each session)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per result")
    args = parse(parser, argv)
    if args is None:
        return 0
    if not args.text:
        raise UsageError("search: text must not be empty")
    # No --in: the default kinds, and every kind in a sub-agent's record (search.py says why).
    kinds = search.parse_kinds(args.kinds) if args.kinds is not None else search.DEFAULT_KINDS
    sub_kinds = kinds if args.kinds is not None else search.SUBAGENT_DEFAULT_KINDS
    others = _others(args)
    hits: Any = iter(())
    if _wants_claude(args):
        try:
            hits = search.search_store(
                args.text, _store(args), args.project, kinds, args.limit, args.regex, args.subagents, sub_kinds
            )
        except NotFound:
            if not others:
                raise
    count = 0
    for hit in _and_others(hits, args, others, kinds):
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

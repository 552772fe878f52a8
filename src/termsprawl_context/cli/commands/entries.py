import json

from termsprawl_context._output import Spool, terminal_safe_json
from termsprawl_context.cli.command import JSON_LIST, PATH, Spec, cell, command, json_line, provider_of
from termsprawl_context.transcript import entry, record, tool_blocks


NO_RESULT = "no-result"  # a call no tool_result answers (interrupted, or still pending)


def _entries_options(parser) -> None:
    parser.add_argument(
        "--since", metavar="UUID", default="", help="only the entries after this one (an unknown uuid keeps them all)"
    )
    parser.add_argument("--calls", action="store_true", help="the tool calls instead of the entries")
    parser.add_argument("--ran", action="store_true", help="only the calls that ran (implies --calls)")


_HELP = (
    "Print the entries of the transcript at PATH (line, uuid, type, speaker), or with --calls their tool calls "
    "(line, id, name, outcome, input); --ran keeps the calls that ran."
)
ENTRIES = Spec("entries", _HELP, (PATH,), json=JSON_LIST, options=_entries_options)


@command(ENTRIES)
def run_entries(args) -> None:
    # Streamed: one entry held at a time, rows printed as they are made, after the
    # reading's first pass (the mark's place, the calls' outcomes), so a refusal still
    # comes before the first row.
    calls = args.calls or args.ran
    outcomes, chosen = provider_of(args.path).record_entries(args.path, args.since, calls)
    out = Spool()
    for item in chosen:
        if calls:
            _print_calls(out, item, outcomes, args.ran, args.json)
        else:
            _print_entry(out, item, args.json)
    out.flush()


def _print_calls(out, item, outcomes, ran_only: bool, as_json: bool) -> None:
    for call in tool_blocks.tool_calls(item):
        outcome = outcomes.get(call.id, NO_RESULT) if call.id else NO_RESULT
        if ran_only and outcome != record.RAN:
            continue
        if as_json:
            fields = {"line": item.line, "uuid": item.uuid, "id": call.id, "name": call.name, "outcome": outcome}
            out.add(json_line(dict(fields, input=call.input)))
        else:
            shown = terminal_safe_json(json.dumps(call.input, ensure_ascii=False, separators=(",", ":")))
            out.add("%d\t%s\t%s\t%s\t%s\n" % (item.line, cell(call.id), cell(call.name), outcome, shown))


def _print_entry(out, item, as_json: bool) -> None:
    who = entry.speaker(item)
    if as_json:
        fields = {"line": item.line, "offset": item.offset, "uuid": item.uuid, "parent_uuid": item.parent_uuid}
        more = {"type": item.type, "speaker": who, "timestamp": item.timestamp, "is_sidechain": item.is_sidechain}
        out.add(json_line(dict(fields, **more)))
    else:
        out.add("%d\t%s\t%s\t%s\n" % (item.line, cell(item.uuid), cell(item.type), who))

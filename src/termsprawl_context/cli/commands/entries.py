"""``entries``: print a transcript's entries or tool calls with their lines."""

import json
from typing import Any

from termsprawl_context._output import terminal_safe_json
from termsprawl_context.cli.command import JSON_LIST, PATH, Spec, cell, command, json_line
from termsprawl_context.cli.store_options import provider_of
from termsprawl_context.errors import EXIT_OK, RecordUnreadable


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
def run_entries(args) -> int:
    from termsprawl_context._output import Spool
    from termsprawl_context.transcript import record

    path = args.path
    harness = provider_of(path)
    # Streamed, one entry held at a time, rows printed as they are made. A first pass (the
    # mark's place; with --calls every call's outcome, which may follow the mark) reads the
    # whole record, so a refusal comes before the first row: another harness's entries (a
    # fork's parent's too) are read twice for it.
    calls = args.calls or args.ran
    if not harness.native_records:
        outcomes, after = _first_pass(_harness_entries(harness, path), calls, args.since)
        chosen: Any = (item for i, item in enumerate(_harness_entries(harness, path)) if i > after)
    else:
        outcomes = record.call_outcomes(record.iter_entries(path)) if calls else {}
        chosen = record.iter_since(path, args.since, checked=calls)
    out = Spool()
    for item in chosen:
        if calls:
            _print_calls(out, item, outcomes, args.ran, args.json)
        else:
            _print_entry(out, item, args.json)
    out.close()
    return EXIT_OK


def _harness_entries(harness, path: str):
    try:
        yield from harness.entries(path)
    except OSError as exc:
        raise RecordUnreadable.opening(path, exc) from None


def _first_pass(entries, calls: bool, mark: str) -> tuple:
    """``(every call's outcome, the index of the mark's entry)``: -1 when there is no mark
    or it names no entry (``record.since``: then everything is shown)."""
    from termsprawl_context.transcript import record

    if not calls:  # the mark's place is all this pass is for: read up to it
        return {}, next((i for i, item in enumerate(entries) if item.uuid == mark), -1) if mark else -1
    found = [-1]

    def watched():
        for index, item in enumerate(entries):
            if mark and found[0] < 0 and item.uuid == mark:
                found[0] = index
            yield item

    return record.call_outcomes(watched()), found[0]


def _print_calls(out, item, outcomes, ran_only: bool, as_json: bool) -> None:
    from termsprawl_context.transcript import entry as model
    from termsprawl_context.transcript import record

    for call in model.tool_calls(item):
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
    from termsprawl_context.transcript import entry as model

    who = model.speaker(item)
    if as_json:
        fields = {"line": item.line, "offset": item.offset, "uuid": item.uuid, "parent_uuid": item.parent_uuid}
        more = {"type": item.type, "speaker": who, "timestamp": item.timestamp, "is_sidechain": item.is_sidechain}
        out.add(json_line(dict(fields, **more)))
    else:
        out.add("%d\t%s\t%s\t%s\n" % (item.line, cell(item.uuid), cell(item.type), who))

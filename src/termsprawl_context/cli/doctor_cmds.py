"""``doctor``: explain, peer by peer, what the dump sees (``termsprawl_context.doctor``
walks and renders; this parses and prints)."""

import os
from typing import List

from termsprawl_context._output import write_out
from termsprawl_context.cli._args import add_cwd, command_parser, parse, print_json, project_dir
from termsprawl_context.errors import EXIT_OK, UsageError


def run_doctor(argv: List[str]) -> int:
    from termsprawl_context.doctor import diagnose, format_doctor, report_json, setup_notes
    from termsprawl_context.workspace.project import NODE_ID_ENV, default_self

    parser = command_parser(
        "doctor",
        "Explain, peer by peer, what `termsprawl-context --cwd DIR --self NODE` "
        "sees and why it prints what it prints. Exit 0 whatever the verdict.",
    )
    add_cwd(parser)
    parser.add_argument(
        "--self", dest="self_id", metavar="NODE", help="the node whose dump to explain (default: $%s)" % NODE_ID_ENV
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parse(parser, argv)
    if args is None:
        return EXIT_OK
    args.cwd = project_dir(args.cwd, "doctor")
    self_id = default_self(args.self_id, os.environ, "doctor")
    if self_id is None:
        raise UsageError("doctor: give --self NODE (or set $%s)" % NODE_ID_ENV)
    report = diagnose(args.cwd, self_id)
    notes = setup_notes(args.cwd, self_id)
    if args.json:
        print_json(dict(report_json(report), notes=notes))
    else:
        # The notes go just above the verdict, which stays the last line.
        head, _, last = format_doctor(report).rstrip("\n").rpartition("\n")
        write_out("".join(line + "\n" for line in [head] + ["note: " + n for n in notes] + [last]))
    return EXIT_OK

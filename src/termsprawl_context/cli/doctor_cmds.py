"""``doctor``: explain, peer by peer, what the dump sees (``termsprawl_context.doctor``
walks and renders; this parses and prints)."""

import os
from typing import List

from termsprawl_context._output import write_out
from termsprawl_context.cli._args import add_cwd, command_parser, parse, print_json
from termsprawl_context.errors import EXIT_OK, UsageError


def run_doctor(argv: List[str]) -> int:
    from termsprawl_context.doctor import diagnose, format_doctor, report_json
    from termsprawl_context.hooks import NODE_ID_ENV

    parser = command_parser("doctor", "Explain, peer by peer, what `termsprawl-context --cwd DIR --self NODE` "
                                       "sees and why it prints what it prints. Exit 0 whatever the verdict.")
    add_cwd(parser)
    parser.add_argument("--self", dest="self_id", metavar="NODE",
                        help="the node whose dump to explain (default: $%s)" % NODE_ID_ENV)
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parse(parser, argv)
    if args is None:
        return EXIT_OK
    self_id = args.self_id if args.self_id is not None else os.environ.get(NODE_ID_ENV)
    if self_id is None:
        raise UsageError("doctor: give --self NODE (or set $%s)" % NODE_ID_ENV)
    report = diagnose(args.cwd, self_id)
    if args.json:
        print_json(report_json(report))
    else:
        write_out(format_doctor(report))
    return EXIT_OK

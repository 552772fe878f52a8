from termsprawl_context import cite
from termsprawl_context.cli.command import JSON_LIST, LINE, PATH, Spec, at_line, command, print_list, print_text


_HELP = (
    "Print the whole AskUserQuestion answer envelopes (questions, answers and trailer, uncut) on the entry at LINE "
    "of PATH, in order, separated by a blank line; nothing when it carries none. Exit 1 when LINE names no entry."
)
ENVELOPE_AT = Spec("envelope-at", _HELP, (PATH, LINE), json=JSON_LIST)


@command(ENVELOPE_AT)
def run_envelope_at(args) -> None:
    args.line = at_line(args, "envelope-at")
    envelopes = cite.envelope_at(args.path, args.line)
    if args.json:
        print_list(True, envelopes, lambda text: {"path": args.path, "line": args.line, "envelope": text}, str)
    elif envelopes:
        print_text("\n\n".join(envelopes))

from termsprawl_context import cite
from termsprawl_context.cli.command import LINE, PATH, Spec, at_line, command, print_text
from termsprawl_context.errors import NotFound


_HELP = (
    "Print the genuine tool output on the entry at LINE (1-based physical line) of PATH: the result of a call in "
    "the same record, not an answer envelope, a hook refusal, a sub-agent's reply or an echo of the record. Exit 1 "
    "when the entry is not one."
)
RESULT_AT = Spec("result-at", _HELP, (PATH, LINE))


@command(RESULT_AT)
def run_result_at(args) -> None:
    args.line = at_line(args, "result-at")
    text, is_result = cite.tool_result_at(args.path, args.line)
    if not is_result:
        raise NotFound("%s:%d is not a tool result the session produced" % (args.path, args.line))
    print_text(text)

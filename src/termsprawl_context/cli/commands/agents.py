from termsprawl_context.cli.command import JSON_ONE, PATH, Spec, cell, command, print_one
from termsprawl_context.harness import require_native_records
from termsprawl_context.store import background


_HELP = (
    "Print the ids of the background sub-agents the record at PATH shows as still running (launched, with no later "
    "terminal <task-notification>), one per line, sorted. Exit 1 when a line will not parse: what runs is then "
    "unknown."
)
AGENTS = Spec("agents", _HELP, (PATH,), json=JSON_ONE)


@command(AGENTS)
def run_agents(args) -> None:
    require_native_records(args.path, "agents")
    signals = background.background_agent_signals(args.path)
    alive = sorted(background.running(signals))
    data = {"running": alive, "signals": [s.to_json() for s in signals]}
    print_one(args.json, data, "".join(cell(agent) + "\n" for agent in alive))

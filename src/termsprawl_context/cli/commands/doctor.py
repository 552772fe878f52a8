"""``doctor``: explain, peer by peer, what the dump sees (``termsprawl_context.doctor`` walks, renders)."""

from termsprawl_context import doctor
from termsprawl_context.cli.command import JSON_ONE, Spec, command, option, print_one, project_dir
from termsprawl_context.errors import UsageError
from termsprawl_context.workspace.project import NODE_ID_ENV, default_self


_HELP = (
    "Explain, peer by peer, what `termsprawl-context --cwd DIR --self NODE` sees and why it prints what it prints. "
    "Exit 0 whatever the verdict."
)
_SELF = option(
    "--self", dest="self_id", metavar="NODE", help="the node whose dump to explain (default: $%s)" % NODE_ID_ENV
)
DOCTOR = Spec("doctor", _HELP, common=("cwd",), json=JSON_ONE, options=_SELF)


@command(DOCTOR)
def run_doctor(args) -> None:
    args.cwd = project_dir(args.cwd, "doctor")
    self_id = default_self(args.self_id, command="doctor")
    if self_id is None:
        raise UsageError("doctor: give --self NODE (or set $%s)" % NODE_ID_ENV)
    report = doctor.diagnose(args.cwd, self_id)
    notes = doctor.notes(args.cwd, self_id, [p.peer for p in report.peers])
    # The notes go just above the verdict, which stays the last line.
    head, _, last = doctor.format_doctor(report).rstrip("\n").rpartition("\n")
    text = "".join(line + "\n" for line in [head] + ["note: " + n for n in notes] + [last])
    print_one(args.json, lambda: dict(doctor.report_json(report), notes=notes), text)

"""Why the dump printed what it printed: ``diagnose`` runs the dump's own peer walk and
says, peer by peer, where it stopped (the dump fails open: an empty dump says nothing of
its cause); the other checks of the set-up (skill, allow rules, holders, unrecorded
sessions) are its ``notes``."""

import os
import stat
from typing import List, NamedTuple, Optional

from termsprawl_context import handoff
from termsprawl_context.dump import PeerVisit, ProjectIO, walk_peers
from termsprawl_context.harness import available, get
from termsprawl_context.hooks import process_alive, read_holder
from termsprawl_context.jsonl import try_open_regular
from termsprawl_context.transcript.turns import MAX_LINKED_TURNS
from termsprawl_context.workspace import discovery
from termsprawl_context.workspace.files import read_small_file
from termsprawl_context.workspace.hook_settings import allow_rules, over_grants
from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id, shown_id
from termsprawl_context.workspace.index import (
    index_file_path,
    read_transcript_path,
    read_transcript_source,
    resolve_transcript_path,
)
from termsprawl_context.workspace.layout import STATE_DIR, TRANSCRIPTS_DIR, state_path
from termsprawl_context.workspace.project import start_command


# Where a peer's walk ends; PRINTED means the dump prints it.
PRINTED = "printed"
NO_INDEX_ENTRY = "no-index-entry"
INVALID_INDEX_ENTRY = "invalid-index-entry"
MISSING_FILE = "missing-file"
NOT_A_FILE = "not-a-regular-file"
UNREADABLE = "unreadable"
NO_TURNS = "no-printable-turns"
NO_TURNS_YET = "no-turns-yet"

REASONS = {
    PRINTED: "printed",
    NO_INDEX_ENTRY: "skipped: no transcript path is recorded for it",
    INVALID_INDEX_ENTRY: "skipped: its index file is not a valid entry (junk, wrong version, empty path or a harness this build cannot read)",
    MISSING_FILE: "skipped: the recorded transcript does not exist",
    NOT_A_FILE: "skipped: the recorded transcript is not a regular file",
    UNREADABLE: "skipped: the recorded transcript cannot be read",
    NO_TURNS: "skipped: the transcript holds no printable user/assistant turns",
    NO_TURNS_YET: "skipped: no turns yet (its session has started; its CLI writes the transcript at the first prompt)",
}


class PeerReport(NamedTuple):
    peer: str
    link_file: str  # the name of the link file that made it a peer
    index_file: str  # relative to the project
    recorded: Optional[str]  # the path as the index holds it
    path: Optional[str] = None  # where that points (relative paths are from the project)
    exists: bool = False
    regular: bool = False
    readable: bool = False
    turns: int = 0  # how many turns the dump prints (at most MAX_LINKED_TURNS)
    more_turns: bool = False  # the transcript holds older printable turns the cap leaves out
    title: str = ""  # the title the dump's header uses
    title_from_project: bool = False  # False: project.json had none, the id stands in
    outcome: str = PRINTED  # or the reason it is skipped
    # The hand-off's (--format) turns before the character budget, and how many of the dump's
    # are the harness's, not the person's or the assistant's (slash commands, task notifications).
    handoff_turns: int = 0
    harness_turns: int = 0

    @property
    def printed(self) -> bool:
        return self.outcome == PRINTED


class DoctorReport(NamedTuple):
    cwd: str
    self_id: str
    self_safe: bool
    state_dir: bool  # <cwd>/.termsprawl is a directory
    self_recorded: Optional[str]  # self's own index entry (not needed by the dump)
    link_files: int  # valid link files, all pairs
    invalid_link_files: List[str]  # names of *.json files in links/ that are ignored
    peers: List[PeerReport]  # in the order the dump visits them

    @property
    def printed(self) -> List[PeerReport]:
        return [p for p in self.peers if p.printed]


def _file_facts(path: str, harness: Optional[str] = None):
    """(exists, regular, readable) as the dump's reader finds them (``session_stat`` for a session that is no file)."""
    found = get(harness) if harness is not None else None
    if found is not None and not os.path.lexists(path) and found.session_stat(path) is not None:
        return True, True, True  # a session that is no file (a database row)
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False, False, False
    f = try_open_regular(path) if regular else None
    if f is not None:
        f.close()
    return True, regular, f is not None


def _peer_report(io: ProjectIO, visit: PeerVisit) -> PeerReport:
    """What one step of the dump's walk found, and where it stopped."""
    cwd, peer = io.cwd, visit.peer
    index_file = index_file_path(cwd, peer)
    title = io.node_title(peer)
    base = dict(
        peer=peer,
        link_file=visit.link_file,
        index_file=os.path.relpath(index_file, cwd),
        recorded=visit.recorded,
        title=peer if title is None else title,
        title_from_project=title is not None,
    )
    if visit.recorded is None:
        outcome = INVALID_INDEX_ENTRY if os.path.lexists(index_file) else NO_INDEX_ENTRY
        return PeerReport(outcome=outcome, **base)
    harness = io.harness_of(peer)
    exists, regular, readable = _file_facts(visit.path, harness)
    base.update(path=visit.path, exists=exists, regular=regular, readable=readable)
    if not exists:  # the node's holder names this very file: a session nobody has typed in yet
        holder = read_holder(cwd, peer)[0]
        outcome = NO_TURNS_YET if holder is not None and holder.path == visit.recorded else MISSING_FILE
    elif not regular or not readable:
        outcome = NOT_A_FILE if not regular else UNREADABLE
    else:
        turns = visit.turns
        base.update(turns=min(len(turns), MAX_LINKED_TURNS), more_turns=len(turns) > MAX_LINKED_TURNS)
        # What the hand-off prints of it, and how many of the dump's turns are harness text:
        # 0 each when it cannot be read (ValueError: a harness this build cannot read).
        try:
            shown, provider = len(handoff.read_harness_turns(visit.path, harness)), get(harness)
            text = provider.harness_text_turns(visit.path, MAX_LINKED_TURNS) if provider is not None else 0
            base.update(handoff_turns=shown, harness_turns=text)
        except (OSError, ValueError):
            pass
        outcome = PRINTED if turns else NO_TURNS
    return PeerReport(outcome=outcome, **base)


def diagnose(cwd: str, self_id: str) -> DoctorReport:
    """What ``termsprawl-context --cwd CWD --self SELF_ID`` sees, peer by peer."""
    io = ProjectIO(cwd)
    safe = is_safe_id(self_id)
    files = io.link_files()
    # One turn past the cap tells whether the cap cuts anything, at the cost of one turn.
    peers = [_peer_report(io, visit) for visit in walk_peers(self_id, io, MAX_LINKED_TURNS + 1)]
    return DoctorReport(
        cwd=cwd,
        self_id=self_id,
        self_safe=safe,
        state_dir=os.path.isdir(state_path(cwd)),
        self_recorded=io.recorded_path(self_id) if safe else None,
        link_files=sum(1 for f in files if f.pair is not None),
        invalid_link_files=[f.name for f in files if f.pair is None],
        peers=peers,
    )


def verdict(report: DoctorReport) -> str:
    """One sentence: what the dump prints, or why it prints nothing."""
    printed = report.printed
    if printed:
        turns = sum(p.turns for p in printed)
        counts = (len(printed), "" if len(printed) == 1 else "s", turns, "" if turns == 1 else "s")
        return "the dump prints %d peer%s (%d turn%s): " % counts + ", ".join(p.peer for p in printed)
    if not report.self_safe:
        why = "%r is not a safe node id (%s)" % (report.self_id, SAFE_ID_SHOWN)
    elif not report.state_dir:
        why = "%s has no %s folder (run `termsprawl-context init`)" % (report.cwd, STATE_DIR)
    elif not report.peers:
        why = "no link names {0} (add one with `termsprawl-context links add {0} OTHER`)".format(report.self_id)
    else:
        why = "every linked peer is skipped"
    return "the dump prints nothing: " + why


def report_json(report: DoctorReport) -> dict:
    """The report as one JSON-ready object (the NamedTuples' fields; ``self_id`` is ``self``)."""
    fields = {("self" if name == "self_id" else name): value for name, value in report._asdict().items()}
    peers = [dict(p._asdict(), printed=p.printed, reason=REASONS[p.outcome]) for p in report.peers]
    return dict(fields, peers=peers, printed_peers=len(report.printed), verdict=verdict(report))


# How the text report says each of a transcript's file facts, true and false.
_FILE_FACT_WORDS = (("exists", "does not exist"), ("regular file", "not a regular file"), ("readable", "not readable"))


def format_doctor(report: DoctorReport) -> str:
    """The report as text a person reads, one line per fact."""
    safe = "a safe node id" if report.self_safe else "NOT a safe node id"
    lines = ["project: %s%s" % (os.path.abspath(report.cwd), "" if report.state_dir else " (no .termsprawl folder)")]
    lines.append("self: %s (%s)" % (shown_id(report.self_id), safe))
    if report.self_safe:
        recorded = report.self_recorded or "not recorded (peers' dumps cannot show this node)"
        lines.append("self's own transcript: %s" % recorded)
    lines.append(
        "links: %d valid link file%s, %d naming self"
        % (report.link_files, "" if report.link_files == 1 else "s", len(report.peers))
    )
    if report.invalid_link_files:
        lines.append("ignored link files (not valid links): %s" % ", ".join(report.invalid_link_files))
    for p in report.peers:
        title = "title %s%s" % (shown_id(p.title), "" if p.title_from_project else " (none in project.json; the id)")
        lines.append("peer %s (via %s), %s" % (p.peer, p.link_file, title))
        if p.recorded is None:
            lines.append("  index: %s: %s" % (p.index_file, "invalid" if p.outcome != NO_INDEX_ENTRY else "absent"))
        else:
            shown = p.recorded if p.recorded == p.path else "%s -> %s" % (p.recorded, p.path)
            lines.append("  index: %s: %s" % (p.index_file, shown))
            facts = zip((p.exists, p.regular, p.readable), _FILE_FACT_WORDS)
            lines.append("  file: " + ", ".join(yes if fact else no for fact, (yes, no) in facts))
            if p.readable:
                count = "%d (the cap: older turns are not printed)" % MAX_LINKED_TURNS if p.more_turns else str(p.turns)
                lines.append("  printable turns: %s" % count)
                lines.append("  of which harness text (not the person's or the assistant's): %d" % p.harness_turns)
                lines.append("  hand-off turns (--format): %d" % p.handoff_turns)
        lines.append("  => %s" % REASONS[p.outcome])
    lines.append("verdict: %s" % verdict(report))
    return "\n".join(lines) + "\n"


def _harness_notes(cwd: str):
    """Per CLI: each allow rule letting the model run ``links``, ``index`` or ``init`` unasked;
    a session started below the root while its instruction file imports the block (which its
    CLI may refuse from there). The two lists."""
    over, below_root = [], []
    root = os.path.realpath(cwd)
    for harness in available():
        found = over_grants(cwd, harness)
        tight = ", ".join("`%s`" % rule for rule in allow_rules(cwd, harness)) if found else ""
        option = "--" + harness.init_options[0].replace("_", "-") if found else ""
        over.extend(
            "the allow rule `%s` in %s lets the agent run `links`, `index` and `init` with no prompt, so text in a "
            "peer's transcript could make it rewire who reads whom: remove it and keep only the reads, the rules "
            "`termsprawl-context init %s` writes: %s" % (rule, relative, option, tight)
            for relative, rule in found
        )
        if not harness.subdir_import_note:
            continue
        data = read_small_file(os.path.join(cwd, harness.instruction_file))
        text = data.decode("utf-8", "replace") if data is not None else ""
        if not discovery.imports_agents_file(text, discovery.import_line(harness)):
            continue
        below = [s.cwd for s in harness.project_sessions(cwd) if os.path.realpath(s.cwd) != root]
        if below:
            below_root.append(harness.subdir_import_note % {"dir": below[0]})
    return over, below_root


def notes(cwd: str, self_id: str, peers: List[str]) -> List[str]:
    """What else stands between the agents and the dump, a sentence each (skill file, allow
    rules, gone transcripts, a displaced node, unrecorded sessions, a CLI below the root)."""
    unfound = "is %%s: %s cannot discover the command (run `termsprawl-context init`)" % get(None).label
    said = {
        discovery.SKILL_EDITED: "was edited by its user: it is left alone, never refreshed (delete it and run "
        "`termsprawl-context init` for the current text)",
        discovery.SKILL_OLDER: "holds an older text of ours: it is refreshed at the next session start or "
        "`termsprawl-context init`",
    }
    if os.path.isdir(state_path(cwd)):  # no skill where there is no project is no news
        said.update({discovery.SKILL_ABSENT: unfound % "missing", discovery.SKILL_UNREADABLE: unfound % "unreadable"})
    state = discovery.skill_state(cwd)
    notes = ["the skill file %s %s" % (discovery.SKILL_FILE, said[state])] if state in said else []
    notes.extend(filter(None, [discovery.agents_block_refusal(cwd)]))
    over, below_root = _harness_notes(cwd)
    notes.extend(over)
    if is_safe_id(self_id):
        notes.extend(handoff.gone_notes(cwd, list(handoff.linked_sources(self_id, ProjectIO(cwd)))))
        current, displaced = read_holder(cwd, self_id)
        if current is not None and displaced is not None:
            if process_alive(displaced.pid):
                notes.append(
                    "node %s is displaced: session %s (process %d) took it from session %s (process %d, "
                    "transcript %s), which is still running; peers read only the newer one. Give each "
                    "terminal its own $TERMSPRAWL_NODE_ID"
                    % (self_id, current.session_id, current.pid, displaced.session_id, displaced.pid, displaced.path)
                )
            else:
                notes.append(
                    "node %s was taken from session %s (process %d), which has since ended"
                    % (self_id, displaced.session_id, displaced.pid)
                )
    return notes + _unrecorded_notes(cwd, [self_id] + peers) + below_root


def _recorded_everywhere(cwd: str) -> set:
    """Every transcript path the project's index records, resolved, for any node."""
    try:
        names = os.listdir(state_path(cwd, TRANSCRIPTS_DIR))
    except OSError:
        return set()
    found = set()
    for name in names:  # a holder's name (<node>.holder) is no safe id: never read as an entry
        recorded = read_transcript_path(cwd, name[: -len(".json")]) if name.endswith(".json") else None
        if recorded:
            found.add(os.path.realpath(resolve_transcript_path(cwd, recorded)))
    return found


def _unrecorded_notes(cwd: str, nodes: List[str]) -> List[str]:
    """Each node whose CLI holds a newer session of this project recorded for no node: why, and the fix."""
    recorded_all = None  # type: Optional[set]
    notes = []
    for node in dict.fromkeys(nodes):
        source = read_transcript_source(cwd, node)  # (None for an unsafe id)
        harness = get(source[1]) if source else None
        if source is None or harness is None:
            continue
        path = resolve_transcript_path(cwd, source[0])
        try:
            since = os.stat(path).st_mtime
        except (OSError, ValueError):
            continue  # no file yet: nothing is newer than a session not typed in
        if recorded_all is None:
            recorded_all = _recorded_everywhere(cwd)
        newer = [
            c
            for c in harness.project_sessions(cwd, since=since)
            if os.path.realpath(c.session.path) not in recorded_all
        ]
        if newer:
            cause = harness.unrecorded_cause(cwd, newer[0].cwd, "`%s`" % start_command(harness.command, node))
            notes.append(
                "node %s: %s holds a newer session of this project than the one recorded (%s), recorded for no "
                "node: %s; if it is %s's, likely cause: %s"
                % (node, harness.label, path, newer[0].session.path, node, cause)
            )
    return notes

"""Why the dump printed what it printed: the same walk, with every step written down.

The dump fails open, so an empty answer says nothing about its cause. ``diagnose`` goes
through the project exactly as the dump does (links, index, transcript, turns, title)
and returns plain data: for each peer, what was found and where the walk stopped. It
reads only, with the dump's own readers, so its verdict is the dump's. It joins the
project's state and the transcript reader, as the dump does, so it sits beside them
rather than inside either layer.
"""

import os
import stat
from typing import List, NamedTuple, Optional

from termsprawl_context.workspace.files import STATE_DIR, state_path
from termsprawl_context.workspace.ids import SAFE_ID_SHOWN, is_safe_id

# Where a peer's walk ends; PRINTED means the dump prints it.
PRINTED = "printed"
NO_INDEX_ENTRY = "no-index-entry"
INVALID_INDEX_ENTRY = "invalid-index-entry"
MISSING_FILE = "missing-file"
NOT_A_FILE = "not-a-regular-file"
UNREADABLE = "unreadable"
NO_TURNS = "no-printable-turns"

REASONS = {
    PRINTED: "printed",
    NO_INDEX_ENTRY: "skipped: no transcript path is recorded for it",
    INVALID_INDEX_ENTRY: "skipped: its index file is not a valid entry (junk, wrong version or empty path)",
    MISSING_FILE: "skipped: the recorded transcript does not exist",
    NOT_A_FILE: "skipped: the recorded transcript is not a regular file",
    UNREADABLE: "skipped: the recorded transcript cannot be read",
    NO_TURNS: "skipped: the transcript holds no printable user/assistant turns",
}


class PeerReport(NamedTuple):
    peer: str
    link_file: str  # the name of the link file that made it a peer
    index_file: str  # relative to the project
    recorded: Optional[str]  # the path as the index holds it
    path: Optional[str]  # where that points (relative paths are from the project)
    exists: bool
    regular: bool
    readable: bool
    turns: int  # how many turns the dump prints (at most MAX_LINKED_TURNS)
    more_turns: bool  # the transcript holds older printable turns the cap leaves out
    title: str  # the title the dump's header uses
    title_from_project: bool  # False: project.json had none, the id stands in
    outcome: str  # PRINTED or the reason it is skipped

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


def _file_facts(path: str):
    """(exists, regular, readable) as the dump's reader would find them."""
    from termsprawl_context.jsonl import try_open_regular

    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False, False, False
    f = try_open_regular(path) if regular else None
    if f is None:
        return True, regular, False
    f.close()
    return True, True, True


def diagnose_peer(cwd: str, peer: str, link_file: str) -> PeerReport:
    from termsprawl_context.transcript.turns import MAX_LINKED_TURNS, read_turns
    from termsprawl_context.workspace.index import index_file_path, read_transcript_path, resolve_transcript_path
    from termsprawl_context.workspace.titles import node_title

    index_file = index_file_path(cwd, peer)
    title = node_title(cwd, peer)
    recorded = read_transcript_path(cwd, peer)
    base = dict(peer=peer, link_file=link_file, index_file=os.path.relpath(index_file, cwd), recorded=recorded,
                path=None, exists=False, regular=False, readable=False, turns=0, more_turns=False,
                title=peer if title is None else title, title_from_project=title is not None)
    if recorded is None:
        outcome = INVALID_INDEX_ENTRY if os.path.lexists(index_file) else NO_INDEX_ENTRY
        return PeerReport(outcome=outcome, **base)
    path = resolve_transcript_path(cwd, recorded)
    exists, regular, readable = _file_facts(path)
    base.update(path=path, exists=exists, regular=regular, readable=readable)
    if not exists:
        return PeerReport(outcome=MISSING_FILE, **base)
    if not regular:
        return PeerReport(outcome=NOT_A_FILE, **base)
    if not readable:
        return PeerReport(outcome=UNREADABLE, **base)
    # One turn past the cap tells whether the cap cuts anything, at the cost of one turn.
    turns = read_turns(path, MAX_LINKED_TURNS + 1)
    base.update(turns=min(len(turns), MAX_LINKED_TURNS), more_turns=len(turns) > MAX_LINKED_TURNS)
    return PeerReport(outcome=PRINTED if turns else NO_TURNS, **base)


def diagnose(cwd: str, self_id: str) -> DoctorReport:
    """What ``termsprawl-context --cwd CWD --self SELF_ID`` sees, peer by peer."""
    from termsprawl_context.workspace.index import read_transcript_path
    from termsprawl_context.workspace.links import scan_link_files

    safe = is_safe_id(self_id)
    files = scan_link_files(cwd)
    invalid = [f.name for f in files if f.pair is None]
    valid = [f for f in files if f.pair is not None]
    peers = []
    if safe:
        # peers_of's order and duplicates: every valid link naming self, in file order.
        for f in valid:
            if f.pair.a == self_id:
                peers.append(diagnose_peer(cwd, f.pair.b, f.name))
            elif f.pair.b == self_id:
                peers.append(diagnose_peer(cwd, f.pair.a, f.name))
    return DoctorReport(
        cwd=cwd,
        self_id=self_id,
        self_safe=safe,
        state_dir=os.path.isdir(state_path(cwd)),
        self_recorded=read_transcript_path(cwd, self_id) if safe else None,
        link_files=len(valid),
        invalid_link_files=invalid,
        peers=peers,
    )


def verdict(report: DoctorReport) -> str:
    """One sentence: what the dump prints, or why it prints nothing."""
    printed = report.printed
    if printed:
        turns = sum(p.turns for p in printed)
        return "the dump prints %d peer%s (%d turn%s): %s" % (
            len(printed), "" if len(printed) == 1 else "s", turns, "" if turns == 1 else "s",
            ", ".join(p.peer for p in printed))
    if not report.self_safe:
        return "the dump prints nothing: %r is not a safe node id (%s)" % (report.self_id, SAFE_ID_SHOWN)
    if not report.state_dir:
        return "the dump prints nothing: %s has no %s folder (run `termsprawl-context init`)" % (report.cwd, STATE_DIR)
    if not report.peers:
        return "the dump prints nothing: no link names %s (add one with `termsprawl-context links add %s OTHER`)" % (
            report.self_id, report.self_id)
    return "the dump prints nothing: every linked peer is skipped"


def report_json(report: DoctorReport) -> dict:
    """The report as one JSON-ready object (field names as in the NamedTuples)."""
    peers = []
    for p in report.peers:
        entry = p._asdict()
        entry["printed"] = p.printed
        entry["reason"] = REASONS[p.outcome]
        peers.append(entry)
    return {
        "cwd": report.cwd,
        "self": report.self_id,
        "self_safe": report.self_safe,
        "state_dir": report.state_dir,
        "self_recorded": report.self_recorded,
        "link_files": report.link_files,
        "invalid_link_files": report.invalid_link_files,
        "peers": peers,
        "printed_peers": len(report.printed),
        "verdict": verdict(report),
    }


def setup_notes(cwd: str, self_id: str, alive=None) -> List[str]:
    """What else stands between the agents and the dump, one sentence each: a skill file
    its user edited (left alone) or that is missing, and a node taken from a session
    that is still running (two terminals with one id)."""
    from termsprawl_context.hooks import process_alive, read_holder
    from termsprawl_context.workspace import discovery

    alive = process_alive if alive is None else alive
    notes = []
    state = discovery.skill_state(cwd)
    if state == discovery.SKILL_EDITED:
        notes.append("the skill file %s was edited by its user: it is left alone, never refreshed (delete it and "
                     "run `termsprawl-context init` for the current text)" % discovery.SKILL_FILE)
    elif state in (discovery.SKILL_ABSENT, discovery.SKILL_UNREADABLE) and os.path.isdir(state_path(cwd)):
        notes.append("the skill file %s is %s: Claude Code cannot discover the command (run `termsprawl-context "
                     "init`)" % (discovery.SKILL_FILE, "missing" if state == discovery.SKILL_ABSENT else "unreadable"))
    elif state == discovery.SKILL_OLDER:
        notes.append("the skill file %s holds an older text of ours: it is refreshed at the next session start or "
                     "`termsprawl-context init`" % discovery.SKILL_FILE)
    if is_safe_id(self_id):
        current, displaced = read_holder(cwd, self_id)
        if current is not None and displaced is not None:
            if alive(displaced.pid):
                notes.append("node %s is displaced: session %s (process %d) took it from session %s (process %d, "
                             "transcript %s), which is still running; peers read only the newer one. Give each "
                             "terminal its own $TERMSPRAWL_NODE_ID" % (self_id, current.session_id, current.pid,
                                                                      displaced.session_id, displaced.pid,
                                                                      displaced.path))
            else:
                notes.append("node %s was taken from session %s (process %d), which has since ended"
                             % (self_id, displaced.session_id, displaced.pid))
    return notes

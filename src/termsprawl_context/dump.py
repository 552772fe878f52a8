"""The peer walk, once: from a node to its linked peers' transcripts, printable turns and
titles, over an injected ``ContextIO`` (``ProjectIO``: the project's files). The dump prints
what it collects; ``doctor`` writes each step down. It never fails: a peer without an index
entry, a readable file or printable turns is skipped. No ``typing``, ``re`` or ``json`` at
import; each module is imported when a step needs it (no peers: no transcript reader).
"""

import os

from termsprawl_context import plain_tuple


TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, Iterator, List, NamedTuple, Optional

    from termsprawl_context.transcript.turns import Turn
    from termsprawl_context.workspace.links import LinkFile

    # A peer of the asking node and the link file that makes it one.
    LinkedPeer = NamedTuple("LinkedPeer", [("peer", str), ("link_file", str)])
    # One step of the walk: ``recorded`` (the index entry as written) and ``path`` (where it
    # points) are None together without one, which a type cannot say (the doctor relies on it).
    PeerVisit = NamedTuple(
        "PeerVisit", [("peer", str), ("link_file", str), ("recorded", Any), ("path", Any), ("turns", List[Turn])]
    )
    # A peer the dump prints: its id, the title its header shows, its turns.
    PeerContext = NamedTuple("PeerContext", [("peer", str), ("title", str), ("turns", List[Turn])])
else:
    LinkedPeer = plain_tuple("LinkedPeer", "peer link_file")
    PeerVisit = plain_tuple("PeerVisit", "peer link_file recorded path turns")
    PeerContext = plain_tuple("PeerContext", "peer title turns")


class ContextIO(object):
    """What the walk needs from the world; tests pass their own."""

    def linked_peers(self, self_id: str) -> "List[LinkedPeer]":
        """In link-file-name order."""
        raise NotImplementedError

    def recorded_path(self, peer_id: str) -> "Optional[str]":
        raise NotImplementedError

    def resolve(self, recorded: str) -> str:
        """Where a recorded path points (relative paths are from the project)."""
        return recorded

    def turns(self, path: str, limit: "Optional[int]" = None) -> "List[Turn]":
        """The last ``limit`` printable turns (None: the dump's cap), oldest first."""
        raise NotImplementedError

    def node_title(self, peer_id: str) -> "Optional[str]":
        raise NotImplementedError

    def harness_of(self, peer_id: str) -> "Optional[str]":
        """The harness the peer's entry names, after ``recorded_path`` (None: the default, read as the seed does)."""
        return None


def _peer_turns(io: ContextIO, peer: str, path: str, limit: "Optional[int]") -> "List[Turn]":
    from termsprawl_context.harness import UNNAMED, get  # the registry: already loaded by the index

    harness = io.harness_of(peer)
    if harness is None or harness == UNNAMED:
        return io.turns(path, limit)  # the seed's reading: its provider's last_turns, without loading it
    found = get(harness)
    if found is None:
        return []
    from termsprawl_context.transcript.turns import MAX_LINKED_TURNS

    return found.last_turns(path, MAX_LINKED_TURNS if limit is None else limit)


def walk_peers(self_id: str, io: ContextIO, limit: "Optional[int]" = None) -> "Iterator[PeerVisit]":
    """Every linked peer in the dump's order with its last ``limit`` printable turns (None: the cap)."""
    for linked in io.linked_peers(self_id):
        recorded = io.recorded_path(linked.peer)
        path = io.resolve(recorded) if recorded else None
        turns = _peer_turns(io, linked.peer, path, limit) if path else []
        yield PeerVisit(linked.peer, linked.link_file, recorded, path, turns)


def collect(self_id: str, io: ContextIO) -> "List[PeerContext]":
    """The peers the dump prints, with their titles (else the id), read only for them."""
    found = []
    for visit in walk_peers(self_id, io):
        if visit.turns:
            title = io.node_title(visit.peer)
            found.append(PeerContext(visit.peer, visit.peer if title is None else title, visit.turns))
    return found


def render(found: "List[PeerContext]") -> str:
    """The dump's text, without the final newline (printing nothing loads no transcript reader)."""
    from termsprawl_context.transcript.turns import PEER_SEPARATOR, format_linked_context

    return PEER_SEPARATOR.join(format_linked_context(*peer) for peer in found)


class ProjectIO(ContextIO):
    """The walk bound to ``<cwd>/.termsprawl`` and the transcripts it names."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self._link_files = None  # type: Optional[List[LinkFile]]
        self._harnesses = {}  # type: dict

    def link_files(self) -> "List[LinkFile]":
        """Every ``*.json`` entry of the links folder, valid or not; read once."""
        if self._link_files is None:
            from termsprawl_context.workspace.layout import LINKS_DIR, state_path

            # A fresh project: scan_link_files's answer, without loading links.py on every turn of a lone agent.
            self._link_files = []
            if os.path.isdir(state_path(self.cwd, LINKS_DIR)):
                from termsprawl_context.workspace.links import scan_link_files

                self._link_files = scan_link_files(self.cwd)
        return self._link_files

    def linked_peers(self, self_id: str) -> "List[LinkedPeer]":
        files = self.link_files()
        if not files:
            return []  # nothing linked: no id to check (and ids.py, errors.py stay unloaded)
        from termsprawl_context.workspace.ids import is_safe_id

        if not is_safe_id(self_id):
            return []
        # Every valid link naming self, in file order, duplicates kept (as peers_of).
        pairs = [(f.pair, f.name) for f in files if f.pair is not None and self_id in f.pair]
        return [LinkedPeer(pair.b if pair.a == self_id else pair.a, name) for pair, name in pairs]

    def recorded_path(self, peer_id: str) -> "Optional[str]":
        from termsprawl_context.workspace.index import read_transcript_source

        source = read_transcript_source(self.cwd, peer_id)
        if source is None:
            self._harnesses.pop(peer_id, None)
            return None
        self._harnesses[peer_id] = source[1]
        return source[0]

    def harness_of(self, peer_id: str) -> "Optional[str]":
        return self._harnesses.get(peer_id)

    def previous_source(self, peer_id: str) -> "Optional[tuple]":
        """``(resolved path, harness)`` of the peer's previous session (filling a short hand-off), or None."""
        from termsprawl_context.workspace.index import read_previous_source

        found = read_previous_source(self.cwd, peer_id)
        return (self.resolve(found[0]), found[1]) if found else None

    def resolve(self, recorded: str) -> str:
        from termsprawl_context.workspace.index import resolve_transcript_path

        return resolve_transcript_path(self.cwd, recorded)

    def turns(self, path: str, limit: "Optional[int]" = None) -> "List[Turn]":
        from termsprawl_context.transcript.turns import read_turns

        return read_turns(path) if limit is None else read_turns(path, limit)

    def node_title(self, peer_id: str) -> "Optional[str]":
        from termsprawl_context.workspace.titles import node_title

        return node_title(self.cwd, peer_id)

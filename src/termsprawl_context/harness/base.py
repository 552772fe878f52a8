"""The interface every provider supplies: one ``Harness`` subclass per agent CLI, bound to
``HARNESS`` in ``harness/<cli>/``, which keeps that CLI's facts (store, file names, record
fields, injected text, hook payload and output, settings and instruction files). An index
entry's ``"harness"`` key names it (absent: Claude Code); nothing outside ``harness/`` reads
a CLI's field names.

Readers get ``model.Entry`` values in Claude Code's record shape, so the classifier and every
reader built on it work for every CLI: ``type`` "user" (a user message or a tool result),
"assistant" (text and tool calls) or "system" (the CLI's notes; any other kind prints
nowhere); ``content`` blocks ``text``, ``thinking``, ``tool_use`` (``id``, ``name``,
``input``) and ``tool_result`` (``tool_use_id``, ``content``, ``is_error``; ``output``, the
tool's own output where the CLI wrapped it in lines of its own); flags for text the person
did not type: ``is_meta`` (instruction files, environment blocks, a hook's context, sub-agent
notices), ``is_compact_summary``, ``is_sidechain`` (a sub-agent's turn inlined in its
parent); ids ``uuid`` (else ""), ``session_id``, ``agent_id``; ``line``/``offset`` (1-based
line, byte offset) and ``record``, the source.

Entries stream one bounded line at a time. A file that is no regular file raises OSError
(``jsonl.open_regular``); content never raises. A question a CLI's records cannot answer
gets ``errors.NotRecorded`` (``Harness.supports``). On the dump's path: no ``typing`` or ``re``.
"""

from __future__ import annotations

import os
from collections import namedtuple

from termsprawl_context.model import Session

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Iterator, List, Mapping, Optional

    from termsprawl_context.model import Entry, SessionInfo


# The questions a harness may not be able to answer from its records (``supports``).
Q_ENTRIES = "entries"  # `entries`: the records as the record model reads them
Q_SUBAGENTS = "subagents"  # `subagents`: a session's sub-agent transcripts and their metadata
Q_IDENTITY = "identity"  # `identity`: the running session's own record, proven to belong to it
Q_ALL = (Q_ENTRIES, Q_SUBAGENTS, Q_IDENTITY)  # what a CLI whose records answer every question sets ``answers`` to


# A session of a project (``Harness.project_sessions``), its transcript's mtime and start directory.
ProjectSession = namedtuple("ProjectSession", "session mtime cwd")


def under(path: str, project: str) -> bool:
    """Whether directory ``path`` is ``project`` or below it, component-wise (``/a`` does not hold ``/ab``)."""
    path, project = os.path.normpath(path), os.path.normpath(project)
    return path == project or path.startswith(project.rstrip(os.sep) + os.sep)


def resolve_dir(directory: str) -> str:
    """``directory`` with symlinks resolved (a missing tail re-joined); "" stays "", a failure returns it."""
    if not directory:
        return ""
    try:
        absolute = os.path.abspath(directory)
        existing, tail = absolute, []
        while not os.path.exists(existing):
            parent, name = os.path.split(existing)
            if parent == existing:
                break
            tail.append(name)
            existing = parent
        resolved = os.path.realpath(existing)
        return os.path.join(resolved, *reversed(tail)) if tail else resolved
    except (OSError, ValueError):
        return directory


def user_dir(environ: "Optional[Mapping[str, str]]", variables: tuple, default: str) -> str:
    """Below the first of ``variables`` (``(name, path below)``) set, else ``default`` below home, else ""."""
    env = os.environ if environ is None else environ
    for name, below in variables:
        value = (env.get(name) or "").strip()
        if value:
            return os.path.abspath(os.path.join(os.path.expanduser(value), below))
    home = home_dir(environ)
    return os.path.abspath(os.path.join(home, default)) if home else ""


def home_dir(environ: "Optional[Mapping[str, str]]") -> str:
    """``$HOME`` of ``environ``; of none given, the password database's when HOME is unset; else ""."""
    home = (os.environ if environ is None else environ).get("HOME") or ""
    if not home and environ is None:
        home = os.path.expanduser("~")
        home = "" if home == "~" else home
    return home


def recent_files(paths, since: float) -> list:
    """``(mtime, path)`` of the regular files among ``paths`` modified after ``since``, newest first."""
    stats = ((regular_stat(path), path) for path in paths)
    return sorted(((st.st_mtime, path) for st, path in stats if st is not None and st.st_mtime > since), reverse=True)


def regular_stat(path: str) -> "Optional[os.stat_result]":
    """``os.stat`` of ``path`` when it is a regular file, else None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st if (st.st_mode & 0o170000) == 0o100000 else None


# The installed command, relative to the project (``workspace.layout.INSTALLED_COMMAND``:
# harness/ may not import workspace; a test holds the two equal).
INSTALLED_COMMAND = ".termsprawl/bin/termsprawl-context"


def relay_to_person(additional_context: "Optional[str]", system_message: "Optional[str]") -> "Optional[str]":
    """``additional_context`` plus ``system_message``, for the model to relay where the CLI hides it."""
    if not system_message:
        return additional_context
    relay = (
        "The hook that connects this session to its linked agents reported a problem the person must fix; "
        "before anything else, tell them, word for word: %s" % system_message
    )
    return additional_context + "\n" + relay if additional_context else relay


# How far into a transcript ``head_value`` looks (a Codex session_meta line holds its
# ~20 KB system prompt; a Claude Code file opens with a few snapshot records).
HEAD_BYTES = 1 << 20
HEAD_RECORDS = 64


def depth_first(first, children_of, seen=()) -> list:
    """``first``, each one's descendants (``children_of``) before the next, each once: the dump's order."""
    walked, todo, seen = [], list(first), set(seen)
    while todo:
        child = todo.pop(0)
        if child in seen:
            continue
        seen.add(child)
        walked.append(child)
        todo[0:0] = children_of(child)
    return walked


def folder_files(root: str, *middle: str) -> list:
    """Each path ``<root>/<folder>/<middle...>/<name>``, sorted; none where a folder cannot be listed."""
    return [
        os.path.join(root, folder, *middle, name)
        for folder in listing(root)
        for name in listing(os.path.join(root, folder, *middle))
    ]


def listing(folder: str) -> list:
    """The names in ``folder``, sorted; [] when it cannot be listed."""
    try:
        return sorted(os.listdir(folder))
    except (OSError, ValueError):
        return []


def head_records(path: str):
    """A transcript's first parsed records (``HEAD_RECORDS`` lines within ``HEAD_BYTES``); none unreadable."""
    from termsprawl_context.jsonl import iter_lines, parse_object, try_open_regular

    f = try_open_regular(path)
    if f is None:
        return
    try:
        with f:
            for count, line in enumerate(iter_lines(f, HEAD_BYTES)):
                if count >= HEAD_RECORDS or line.offset > HEAD_BYTES:
                    break
                record = parse_object(line.raw)
                if record is not None:
                    yield record
    except OSError:
        pass


def head_value(path: str, pick) -> str:
    """The first non-empty ``pick(record)`` among a transcript's first records, or ""."""
    values = (pick(record) for record in head_records(path))
    return next((value for value in values if isinstance(value, str) and value), "")


def head_record(path: str, match) -> dict:
    """The first of a transcript's first records for which ``match(record)`` holds, or {}."""
    return next((record for record in head_records(path) if match(record)), {})


class Harness(object):
    """One agent CLI's facts behind one interface; subclasses override what differs. Methods are
    pure over their arguments and files (paths from ``environ``, default ``os.environ``)."""

    name = ""  # the index entry's "harness" value, and `--harness`'s
    label = ""  # how a person calls it, in messages ("Codex CLI")
    command = ""  # how a person starts it in a terminal (its command on PATH)
    transcript_suffix = ".jsonl"
    # Project-relative files `init` may plant: its hook settings, its root instruction file ("": none).
    hook_settings_file = ""
    instruction_file = ""
    instruction_import_prefix = ""  # how a line of its instruction file imports another ("@"; "": none)
    hook_event_session_start = "SessionStart"
    hook_new_session_sources = ("startup", "clear")  # payload ``source`` values that start (and title) a conversation
    project_dir_env = ""  # the variable it sets, for hooks and tools, to its project ("": none)
    hook_start_dir = '"$PWD"'  # the shell word the hook command walks up to the project from
    hook_names_itself = True  # the hook command says `hook --harness NAME` (Claude Code's, the default, does not)
    # `init`'s options that wire it (its hook with its permission rules first, then its instruction
    # import) as argparse destinations; `init --help`'s text for each (``init_help``); the one adding
    # its instruction import where no other step writes it (GEMINI.md, QWEN.md); what the person
    # must still do afterwards; what next once its hook was registered as a step of its own.
    init_options = ()  # type: tuple
    init_option_help = ()  # type: tuple
    import_option = ""
    setup_steps = ""
    hook_next_steps = ""
    # The likely cause and fix of a session the hook never recorded though started at the project
    # root (``unrecorded_cause``; ``%(start)s`` is how a node's session is started).
    unrecorded_at_root = ""
    # Its records are the model's own shape line for line (``model.entry_of``): the byte-level readers
    # (listing, titles, locate, identity, backward readers, citations) read its files directly and its
    # hook payload gets the seed's checks; else every reader goes through ``entries``/``entries_reverse``.
    native_records = False
    # `doctor`'s note when the instruction file imports the managed block and a session of this CLI
    # was started below the project root ("" when harmless).
    subdir_import_note = ""

    @property
    def cli_option(self) -> str:
        """The word `init` names it by (`init --<word>`, `init --no-<word>`): its command."""
        return self.command

    @property
    def owned_option(self) -> str:
        """Its first of `init_options` (its hook) when that writes ``owned_files``, not ``hook_settings_file``."""
        return "" if self.hook_settings_file or not self.init_options else self.init_options[0]

    def init_help(self, agents_file: str) -> tuple:
        """``init_option_help`` filled in (``%(import)s``: the line importing ``agents_file``, the managed block)."""
        values = {
            "settings": self.hook_settings_file,
            "instruction": self.instruction_file,
            "import": self.instruction_import_prefix + agents_file,
        }
        return tuple(text % values for text in self.init_option_help)

    # --- the store --------------------------------------------------------------------------
    # Its folder (``home``, by ``user_dir``): the variables that move it, then its path in the
    # home directory ("": none); its stores are ``store_subdirs`` of it; ``transcript_subdirs``
    # lie between a store's folders and their transcripts (Qwen Code's "chats").
    home_variables = ()  # type: tuple
    home_default = ""
    store_subdirs = ("",)  # type: tuple
    transcript_subdirs = ()  # type: tuple
    # The option naming a store root in place of its own ("": none); such a store is walked
    # by the catalog, not listed by ``sessions``, so a CLI that sets it also supplies
    # ``is_session_file_name(name)`` (no file opened) and ``project_folder(root, work_dir)``.
    root_option = ""

    def home(self, environ: "Optional[Mapping[str, str]]" = None) -> str:
        """Its settings and sessions folder (may not exist); "" without a home."""
        return user_dir(environ, self.home_variables, self.home_default) if self.home_default else ""

    def store_roots(self, environ: "Optional[Mapping[str, str]]" = None) -> List[str]:
        """The absolute directories its transcripts live under (may not exist); [] without a home."""
        home = self.home(environ)
        return [os.path.join(home, sub) if sub else home for sub in self.store_subdirs] if home else []

    def owns_path(self, path: str, environ: "Optional[Mapping[str, str]]" = None) -> bool:
        """Whether ``path`` lies inside a store root, symlinks resolved (a link out is not the store's)."""
        try:
            real = os.path.realpath(path)
            return any(
                real.startswith(os.path.realpath(top).rstrip(os.sep) + os.sep) for top in self.store_roots(environ)
            )
        except (OSError, ValueError):  # a NUL in the path
            return False

    def in_store(self, path: str, environ: "Optional[Mapping[str, str]]" = None) -> bool:
        """``owns_path`` with an existing root itself counted (a glob over the store), ``resolve_dir``-ed."""
        resolved = resolve_dir(path)
        return any(
            os.path.exists(root) and under(resolved, os.path.realpath(root)) for root in self.store_roots(environ)
        )

    def sessions(self, environ: "Optional[Mapping[str, str]]" = None) -> Iterator[Session]:
        """Every session transcript of its store, in no promised order. Never raises."""
        return (Session(self.name, self.session_id_of(path), path) for path in self._session_files(environ))

    def _session_files(self, environ: "Optional[Mapping[str, str]]" = None) -> List[str]:
        """The regular files ``<store root>/<folder>/<transcript_subdirs...>/<name>`` carrying a session id."""
        return [
            path
            for root in self.store_roots(environ)
            for path in folder_files(root, *self.transcript_subdirs)
            if self.session_id_of(path) and os.path.isfile(path)
        ]

    def _head(self, path: str) -> tuple:
        """``(session id, working directory)`` the transcript's opening records name ("" each where none)."""
        return "", ""

    def config_dirs(self, environ: "Optional[Mapping[str, str]]" = None) -> List[str]:
        """The folders it keeps its settings and sessions in (may not exist); [] without a home."""
        home = self.home(environ)
        return [home] if home else []

    def found(self, environ: "Optional[Mapping[str, str]]" = None) -> bool:
        """Whether it is installed: one of ``config_dirs`` exists or ``command`` is on ``$PATH``."""
        env = os.environ if environ is None else environ
        if any(os.path.isdir(d) for d in self.config_dirs(env)):
            return True
        import shutil

        return bool(self.command) and shutil.which(self.command, path=env.get("PATH") or os.defpath) is not None

    def project_sessions(
        self, project: str, environ: "Optional[Mapping[str, str]]" = None, since: float = 0.0
    ) -> List[ProjectSession]:
        """Its sessions started in or below ``project``, modified after ``since``, newest first. Never raises."""
        real = os.path.realpath(project)
        found = []
        for mtime, path in recent_files(self._session_files(environ), since):
            cwd = self._head(path)[1]
            if cwd and under(os.path.realpath(cwd), real):
                found.append(ProjectSession(Session(self.name, self.session_id_of(path), path), mtime, cwd))
        return found

    def unrecorded_cause(self, project: str, session_dir: str, start: str) -> str:
        """Why the hook did not record for ``project`` a session started in ``session_dir``, and the fix."""
        if session_dir and os.path.realpath(session_dir) != os.path.realpath(project):
            return (
                "it was started in %s, below the project root, where %s may not apply the project's settings "
                "(its hook): start %s from %s" % (session_dir, self.label, start, project)
            )
        return self.unrecorded_at_root % {"start": start}

    def session_id_of(self, path: str) -> str:
        """The session id a transcript's file name carries, or "" when it carries none."""
        name = os.path.basename(path)
        return name[: -len(self.transcript_suffix)] if name.endswith(self.transcript_suffix) else ""

    def describe(self, path: str, mtime: float = 0.0, size: int = 0, session_id: str = "") -> "SessionInfo":
        """``model.SessionInfo`` titled by the first typed prompt (read that far), last timestamp
        from the end where it reads backwards; an unreadable file from its name alone."""
        from termsprawl_context.model import SessionInfo
        from termsprawl_context.transcript.speakers import typed_texts

        first = cwd = start = end = ""
        try:
            for entry in self.entries(path):
                start = start or entry.timestamp
                end = entry.timestamp or end
                cwd = cwd or entry.cwd
                typed = [t for t in typed_texts(entry) if t.strip()]
                if typed:
                    first = " ".join(typed[0].split())[:200]  # a title: its first 200 characters
                    break
            if first:
                backwards = self.entries_reverse(path)
                for entry in backwards if backwards is not None else self.entries(path):
                    if entry.timestamp:
                        end = entry.timestamp
                        if backwards is not None:
                            break
        except OSError:
            pass
        return SessionInfo(
            session_id=session_id or self.session_id_of(path) or os.path.basename(path),
            transcript_path=path,
            mtime=mtime,
            size=size,
            first_user_message=first,
            title=first,
            title_source="prompt" if first else "",
            cwd=cwd,
            first_timestamp=start,
            last_timestamp=end,
            harness=self.name,
        )

    # --- recognising its files and payloads -------------------------------------------------
    def describe_store(
        self, paths: "List[str]", store: str, render=None, summaries: bool = True, map_items=None
    ) -> tuple:
        """``(paths described oldest first (ties by path), render of each or [])``; ``summaries`` and
        ``map_items`` serve a listing that reads them all (by default each is described alone)."""
        stats = ((path, self.session_stat(path)) for path in paths)
        found = [self.describe(path, st[0], st[1]) for path, st in stats if st is not None]
        found.sort(key=lambda info: (info.mtime, info.transcript_path))
        return found, [render(info) for info in found] if render is not None else []

    def rank_copies(self, paths: "List[str]", greatest_timestamp) -> "List[str]":
        """The files one session was found in, best first (by default as given: newest first)."""
        return list(paths)

    def sniff(self, first: dict) -> bool:
        """Whether a transcript outside every store root, opening with ``first``, is its."""
        return False

    def is_hook_payload(self, payload: dict, environ: "Optional[Mapping[str, str]]" = None) -> bool:
        """Whether a (checked) hook payload is this harness's: its transcript path is in its store."""
        path = payload.get("transcript_path")
        return isinstance(path, str) and bool(path) and self.owns_path(path, environ)

    def hook_subagent(self, payload: dict) -> str:
        """The sub-agent a hook payload is about ("": its SessionStart must not move its parent's node)."""
        return ""

    def hook_transcript(self, path: str, session_id: str, source: str, store: str = "") -> str:
        """The file holding a hook payload's conversation; ``store``: ``hook --projects-dir``'s root, or ""."""
        return path

    # --- records -> Entry ----------------------------------------------------------------------
    def entries_reverse(self, path: str) -> "Optional[Iterator[Entry]]":
        """``entries`` newest first from the end (``line`` 0 where unknown); None when it reads forward only."""
        return None

    def entries(self, path: str) -> Iterator[Entry]:
        """The transcript's records as ``Entry`` values, forward; OSError for no regular file."""
        raise NotImplementedError

    def record_entries(self, path: str, mark: str = "", calls: bool = False) -> tuple:
        """``transcript.record.entries_after`` over ``entries`` (unopenable: ``RecordUnreadable``)."""
        from termsprawl_context.errors import RecordUnreadable
        from termsprawl_context.transcript.record import entries_after

        def read() -> "Iterator[Entry]":
            try:
                yield from self.entries(path)
            except OSError as exc:
                raise RecordUnreadable.opening(path, exc) from None

        return entries_after(read, mark, calls)

    def last_turns(self, path: str, limit: int) -> list:
        """The dump's last ``limit`` turns, over ``entries_reverse`` where it reads from the end."""
        from termsprawl_context.transcript.turns import entries_turns

        try:
            newest = self.entries_reverse(path)
            if newest is not None:
                return entries_turns(newest, limit, newest_first=True)
            return entries_turns(self.entries(path), limit)
        except OSError:
            return []

    def subagent_paths(self, path: str) -> "Optional[List[str]]":
        """The sub-agent transcripts the session at ``path`` started (one level, sorted), or None."""
        return None

    def subagent_tree(self, path: str) -> "Optional[List[str]]":
        """Every sub-agent transcript beneath ``path``, depth first, each once, or None."""
        found = self.subagent_paths(path)
        return None if found is None else depth_first(found, lambda child: self.subagent_paths(child) or [])

    def subagent_id_of(self, path: str) -> str:
        """The sub-agent id a transcript's name carries, or ""."""
        return ""

    def is_subagent(self, path: str) -> bool:
        """Whether ``path`` is a sub-agent's transcript (False when its records do not say)."""
        answer = self.subagent_parent(path)
        return bool(answer and answer[0])

    def session_root(self, path: str) -> str:
        """The session transcript ``path`` belongs to, up sub-agents' parents ("": an orphan or a loop)."""
        current, seen = path, set()
        while True:
            answer = self.subagent_parent(current)
            if answer is None:
                from termsprawl_context.errors import NotRecorded

                raise NotRecorded("root", self.label, current)
            is_subagent, parent = answer
            if not is_subagent:
                return current
            seen.add(os.path.realpath(current))
            if not parent or os.path.realpath(parent) in seen:
                return ""
            current = parent

    def session_transcripts(self, path: str) -> List[str]:
        """Every transcript of ``path``'s session: its root's (or an orphan's own), then ``subagent_tree``'s."""
        top = self.session_root(path) or path
        return [top] + (self.subagent_tree(top) or [])

    def stable_id(self, path: str) -> "Optional[str]":
        """The conversation id its records prove, or None: by default its head's, when the file's name agrees."""
        found = self._head(path)[0]
        return found if found and found == self.session_id_of(path) else None

    def subagent_parent(self, path: str) -> "Optional[tuple]":
        """``(is a sub-agent, parent session's transcript or "")`` from its records; None when unsaid."""
        return None

    def session_ids(self, path: str) -> "Optional[List[str]]":
        """The session ids its records say it belongs to (its own first), or None."""
        found = self.stable_id(path)
        return [found] if found else None

    def work_dirs(self, path: str) -> "Optional[List[str]]":
        """The working directories its records name (as written), or None: by default its head's."""
        cwd = self._head(path)[1]
        return [cwd] if cwd else None

    def check_session(self, path: str, session_id: str) -> None:
        """WrongRecord when its records name only other sessions than ``session_id``; NotRecorded for none."""
        from termsprawl_context.errors import NotRecorded, WrongRecord

        ids = self.session_ids(path)
        if not ids:
            raise NotRecorded("belongs", self.label, path)
        if session_id not in ids:
            raise WrongRecord.session(path, ids[0], session_id)

    def check_tree(self, path: str, cwd: str) -> None:
        """WrongRecord when its records say it was written outside ``cwd``; NotRecorded when they name none."""
        from termsprawl_context.errors import NotRecorded, WrongRecord

        dirs = self.work_dirs(path)
        if not dirs:
            raise NotRecorded("belongs", self.label, path)
        want = resolve_dir(cwd)
        if not any(under(resolve_dir(d), want) for d in dirs):
            raise WrongRecord.tree(path, dirs[0], cwd)

    def subagent_meta(self, path: str) -> "Optional[dict]":
        """What the CLI keeps beside a sub-agent's transcript (role, task, starting call), or None."""
        return None

    def dispatcher(self, path: str) -> tuple:
        """``(transcript holding the call that started the sub-agent at path, its id or "")``, or NoParent."""
        from termsprawl_context.errors import NoParent, NotRecorded

        answer = self.subagent_parent(path)
        if answer is None:
            raise NotRecorded("parent", self.label, path)
        if not answer[0]:
            raise NoParent("transcript: parent: %s is not a sub-agent's record" % path)
        if not answer[1]:
            raise NoParent("transcript: parent: the record its %s records name is not on disk" % self.label)
        return answer[1], ""

    def identity(self, path: str, projects_dir: str = "") -> tuple:
        """``(stable id, why degraded or None, transcripts unread, folder walked or None)``; ``projects_dir``:
        another store to walk a restarted conversation back in. NotRecorded when none is proven."""
        found = self.stable_id(path)
        if found is None:
            from termsprawl_context.errors import NotRecorded

            raise NotRecorded("identity", self.label, path)
        return found, None, (), None

    def session_stat(self, path: str) -> "Optional[tuple]":
        """``(mtime, size)`` of the session at ``path`` (by default its file's), or None."""
        st = regular_stat(path)
        return (st.st_mtime, st.st_size) if st is not None else None

    # --- init's permission rules: where its settings hold the allow rules (() when none) --------
    # Only a CLI that sets it is asked for ``read_rules``, ``skill_rule``, ``rule_matches``,
    # ``shared_settings_file``, ``skill_dir_variable``; only ``native()`` for ``skill_file``, ``rules_file``.
    settings_allow_keys = ()  # type: tuple

    def owned_files(self, project: str, command: str = "") -> list:
        """``(relative path, bytes, mode)`` of each file ``init`` writes that termsprawl owns wholly."""
        return []

    answers = (Q_ENTRIES,)  # type: tuple  # the ``Q_`` questions its records can answer (``supports``)

    def supports(self, question: str) -> bool:
        """Whether its records hold what ``question`` (one of the ``Q_`` names above) needs."""
        return question in self.answers

    # --- what the hook, `doctor` and `init` ask of it (nothing, by default) ------------------
    # The key under the hook output's ``hookSpecificOutput`` that titles the session ("": none).
    hook_title_field = ""
    # A project config `init` merges its read permission into, by its ``merge_config`` ("": none).
    config_file = ""

    def hook_payload(self, payload: dict, environ: "Optional[Mapping[str, str]]" = None) -> dict:
        """The parsed hook payload in the interface's fields (for a CLI that names its session its own way)."""
        return payload

    def hook_roots(self, store: str, environ: "Optional[Mapping[str, str]]" = None) -> tuple:
        """``(the roots a hook payload's transcript must lie under, their name in a refusal)``."""
        roots = self.store_roots(environ)
        return roots, "%s sessions directory" % self.label + (" (%s)" % roots[0] if roots else "")

    def session_start_output(
        self,
        system_message: "Optional[str]" = None,
        additional_context: "Optional[str]" = None,
        session_title: "Optional[str]" = None,
    ) -> dict:
        """The SessionStart hook's JSON answer ({} when empty): Claude Code's shape (Codex and Gemini accept it)."""
        output = {}  # type: dict
        specific = {}  # type: dict
        if additional_context:
            specific["additionalContext"] = additional_context
        if session_title and self.hook_title_field:
            specific[self.hook_title_field] = session_title
        if specific:
            output["hookSpecificOutput"] = dict([("hookEventName", self.hook_event_session_start)], **specific)
        if system_message:
            output["systemMessage"] = system_message
        return output

    def read_tool(self, project: str) -> str:
        """The tool that reads the peers with no prompt, for the hook's context line ("": none)."""
        return ""

    def harness_text_turns(self, path: str, limit: int) -> int:
        """How many of the bare dump's last ``limit`` printable turns of ``path`` are harness text."""
        return 0

    def gone_note(self, project: str, peer: str, path: str) -> str:
        """Why the peer's recorded transcript is gone, with the fix ("" when it is there)."""
        return ""

    def merge_project_settings(self, settings: dict, read_command: str) -> tuple:
        """``(its hook settings with its read server (``read_command``) merged, or None, notes on values kept)``."""
        return None, []

    def merge_project_permissions(self, settings: dict, read_prefix: str) -> tuple:
        """As ``merge_project_settings``, for the permission rule that runs ``read_prefix`` unasked."""
        return None, []

    # Hook commands earlier versions registered: an entry running one of them is ours too.
    legacy_hook_commands = ()  # type: tuple

    hook_timeout = 30  # its hook entry's timeout, in its settings' unit

    def hook_entry(self, command: str) -> dict:
        """The SessionStart hook group ``init`` merges into ``hook_settings_file``, Claude Code's shape: "*"
        matches every source (Codex 0.169 adds "fork" for `exec fork`, a new thread "startup|resume" misses)."""
        return {"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": self.hook_timeout}]}

    def __repr__(self) -> str:
        return "<harness %s>" % self.name

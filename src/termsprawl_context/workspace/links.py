"""Links between nodes, one JSON file per unordered pair: ``.termsprawl/links/<lo>--<hi>.json``
holds ``{"version": 1, "a": lo, "b": hi}`` with ``lo < hi``. A pair whose name would not fit
(255 bytes less the atomic writer's temp name: two ids of up to 128 characters) is
``sha256-<hex of "lo\\nhi">.json``, never a short pair's name (which holds ``--``). Readers
tolerate anything: a file not a valid link is ignored, one removed meanwhile is not there.
"""

from __future__ import annotations

import os

from termsprawl_context import plain_tuple
from termsprawl_context.workspace import files
from termsprawl_context.workspace.ids import is_safe_id
from termsprawl_context.workspace.layout import LINKS_DIR, state_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds at every start; annotations are never evaluated
    from typing import Any, List, NamedTuple, Optional, Union

    # The two node ids a link file names (checked by the caller, so typed as read).
    LinkPair = NamedTuple("LinkPair", [("a", Any), ("b", Any)])
    # A valid link and the file that holds it.
    Link = NamedTuple("Link", [("a", str), ("b", str), ("path", str)])
    # A ``*.json`` entry of the links folder; ``pair`` is None when the file is not a valid link (ignored).
    LinkFile = NamedTuple("LinkFile", [("name", str), ("path", str), ("pair", Optional[LinkPair])])
else:
    # Plain tuple classes, not namedtuples (compiled at import): a printing dump loads this module.
    LinkPair = plain_tuple("LinkPair", "a b")
    Link = plain_tuple("Link", "a b path")
    LinkFile = plain_tuple("LinkFile", "name path pair")


LINK_FILE_VERSION = 1
LINK_FILE_SUFFIX = ".json"
LINK_SEPARATOR = "--"
# The longest file name the file systems we run on accept, in bytes.
MAX_FILE_NAME_BYTES = 255
# The longest link file name: its temp file's name (written first, then renamed) must fit too.
MAX_LINK_NAME_BYTES = MAX_FILE_NAME_BYTES - files.TEMP_NAME_EXTRA_BYTES
HASHED_NAME_PREFIX = "sha256-"
# A link file is three short fields; anything much larger is not one.
MAX_LINK_FILE_BYTES = 64 * 1024


def links_dir(cwd: str) -> str:
    return state_path(cwd, LINKS_DIR)


def link_file_name(a: str, b: str) -> str:
    """The same name for (a, b) and (b, a); the digest's input ``lo\\nhi`` is unambiguous,
    no id holding a newline."""
    lo, hi = sorted((a, b))
    name = lo + LINK_SEPARATOR + hi + LINK_FILE_SUFFIX
    if len(name.encode("utf-8", "surrogateescape")) <= MAX_LINK_NAME_BYTES:
        return name
    import hashlib  # only the rare long pair pays for it

    digest = hashlib.sha256((lo + "\n" + hi).encode("utf-8", "surrogateescape")).hexdigest()
    return HASHED_NAME_PREFIX + digest + LINK_FILE_SUFFIX


def link_file_path(cwd: str, a: str, b: str) -> str:
    return os.path.join(links_dir(cwd), link_file_name(a, b))


def parse_link_file(raw: Union[bytes, str]) -> Optional[LinkPair]:
    """The pair a link file names, or None for junk, a wrong version, a missing or unsafe id or a
    self link (order and file name unchecked, as the context layer's)."""
    from termsprawl_context.jsonl import parse_object  # json costs nothing until a link exists

    entry = parse_object(raw)
    if entry is None or not files.has_version(entry, LINK_FILE_VERSION):
        return None
    a, b = entry.get("a"), entry.get("b")
    if not is_safe_id(a) or not is_safe_id(b) or a == b:
        return None
    return LinkPair(a, b)


def scan_link_files(cwd: str) -> List[LinkFile]:
    """Every ``*.json`` entry of the links folder in name order, parsed or not."""
    directory = links_dir(cwd)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for name in names:
        if not name.endswith(LINK_FILE_SUFFIX):
            continue
        path = os.path.join(directory, name)
        data = files.read_small_file(path, MAX_LINK_FILE_BYTES)
        if data is None and not os.path.lexists(path):
            continue  # removed since the listing (a concurrent `links remove`): absent, not invalid
        found.append(LinkFile(name, path, parse_link_file(data) if data is not None else None))
    return found


def list_links(cwd: str) -> List[Link]:
    """Every valid link, in file-name order; [] when the folder is missing or unreadable."""
    return [Link(f.pair.a, f.pair.b, f.path) for f in scan_link_files(cwd) if f.pair is not None]


def add_link(cwd: str, a: str, b: str) -> str:
    """Link ``a`` and ``b`` (idempotent): the link file's path; BadNodeId, SelfLink or WriteFailed."""
    from termsprawl_context.errors import BadNodeId, SelfLink, WriteFailed

    if not is_safe_id(a) or not is_safe_id(b):
        raise BadNodeId()
    if a == b:
        raise SelfLink()
    lo, hi = sorted((a, b))
    path = link_file_path(cwd, lo, hi)
    try:
        files.write_atomic(cwd, path, files.dump_json({"version": LINK_FILE_VERSION, "a": lo, "b": hi}))
    except OSError as exc:
        raise WriteFailed("cannot write %s: %s" % (path, exc.strerror or exc)) from None
    return path


def remove_link(cwd: str, a: str, b: str) -> bool:
    """Remove the link; False when there is none (unsafe ids and a self pair included); WriteFailed
    when it cannot be removed, lies behind a symlink leaving the project, or is a symlink."""
    if not is_safe_id(a) or not is_safe_id(b) or a == b:
        return False
    path = link_file_path(cwd, a, b)
    try:
        return files.remove_within(cwd, path)
    except OSError as exc:
        from termsprawl_context.errors import WriteFailed

        raise WriteFailed("cannot remove %s: %s" % (path, exc.strerror or exc)) from None


def peers_of(cwd: str, node_id: str) -> List[str]:
    """The other end of every valid link that includes ``node_id``, in link order."""
    if not is_safe_id(node_id):
        return []
    return [link.b if link.a == node_id else link.a for link in list_links(cwd) if node_id in (link.a, link.b)]

#!/usr/bin/env python3
"""Build the one-file command ``dist/termsprawl-context.pyz``, byte for byte reproducibly.

    python3 build_zipapp.py                 write dist/termsprawl-context.pyz
    python3 build_zipapp.py -o PATH         write it somewhere else
    python3 build_zipapp.py --check [PATH]  exit 1, naming the difference, unless PATH
                                            (default the dist/ copy) equals a fresh build

    python3 build_zipapp.py --python PY ... compile bytecode only with these interpreters

What the artifact holds, every member deflated at one fixed level with fixed times,
modes and order: the package's source under ``site-packages/``, and, for each CPython
3.8-3.13 found on the build machine, the bytecode of the modules every turn runs
(``BYTECODE_MODULES``: what the bare dump, a one-peer dump, the hand-off and the hook
import) under ``bytecode/<cache tag>/`` (``cpython-311``: sourceless, hash-based
unchecked ``.pyc``, compiled with ``PYTHONHASHSEED=0`` and a fixed file name, so the bytes
depend only on the source and the interpreter's version). zipimport never writes
bytecode, so without it every start compiles every module it imports: worth about 40 ms
for the dump's set, and nothing for a command a person runs now and then, which runs
its source. The launcher puts a finder first on ``sys.meta_path`` that loads a module
from ``bytecode/<the running interpreter's tag>/`` when the build carried it there, and
leaves every other module (and every other interpreter) to zipimport's source in
``site-packages/``. A build on a machine with fewer interpreters carries fewer
directories; those versions then run the source: the same behaviour, slower to start,
and a different artifact (``--check`` names the missing members).

The bytes also depend on zlib's deflate output at level 9, which is the same for every
zlib 1.2.x/1.3.x the supported CPythons link (not for zlib-ng: a build linked to it is
another artifact, and ``--check`` says so).

What shiv contributes, truthfully: very little. shiv (build time only, pinned) copies the
staged source into ``site-packages/`` of a zip; ``repack`` then reads those members back
and writes every byte of the artifact itself (order, times, modes, compression, our
launcher and the bytecode). shiv's run-time bootstrap, its ``environment.json`` and its
``__main__.py`` are dropped: the bootstrap would extract into ``~/.shiv`` and import fcntl
on every run, while zipimport runs the code straight from the zip with no writes
anywhere (measurements: shared/reference/shiv-packaging.md). shiv stays as the project's
chosen, pinned packer; the build would work the same with ``zipfile`` alone.
"""

import argparse
import glob
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parent
SRC = REPO / "src"
PACKAGE = "termsprawl_context"
DEFAULT_OUTPUT = REPO / "dist" / "termsprawl-context.pyz"
ENTRY_POINT = "termsprawl_context.cli:main"
SHEBANG = b"#!/usr/bin/env python3\n"
SHIV_PIN = "1.0.8"
# 1980-01-01T00:00:00Z, the earliest time a zip header can hold.
SOURCE_DATE_EPOCH = 315532800
SITE_PACKAGES = "site-packages/"
FILE_MODE = 0o644
DIR_MODE = 0o755
ARTIFACT_MODE = 0o755
ZIP_FILE_ATTR = (0o100000 | FILE_MODE) << 16  # a regular file, rw-r--r--
ZIP_UNIX = 3  # "made by" system: Unix, so the mode bits above mean something

# The CPython versions whose bytecode the artifact carries when their interpreter is found.
BYTECODE_VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
BYTECODE_DIR = "bytecode/"
# The modules that carry bytecode: those the calls made every turn or session import
# (the bare dump, a one-peer dump, the hand-off in both formats, the hook), measured
# with ``-X importtime``; tests/test_build.py runs those calls and fails naming any
# module they import from source. Every other module runs from source: a command a
# person types pays its compile (about 10 ms per 1k lines), the artifact stays small.
BYTECODE_MODULES = (
    "termsprawl_context",
    "termsprawl_context._output",
    "termsprawl_context.bytescan",
    "termsprawl_context.cli",
    "termsprawl_context.cli._args",
    "termsprawl_context.cli.command",
    "termsprawl_context.cli.context",
    "termsprawl_context.cli.commands",
    "termsprawl_context.cli.commands.hook",
    "termsprawl_context.dump",
    "termsprawl_context.errors",
    "termsprawl_context.handoff",
    "termsprawl_context.handoff_render",
    "termsprawl_context.harness",
    "termsprawl_context.harness.base",
    "termsprawl_context.harness.claude",
    "termsprawl_context.harness.claude.facts",
    "termsprawl_context.hooks",
    "termsprawl_context.jsonl",
    "termsprawl_context.model",
    "termsprawl_context.store",
    "termsprawl_context.harness.claude.belongs",
    "termsprawl_context.store.hook_input",
    "termsprawl_context.store.paths",
    "termsprawl_context.transcript",
    "termsprawl_context.transcript.content",
    "termsprawl_context.transcript.entry",
    "termsprawl_context.transcript.record",
    "termsprawl_context.transcript.slash_commands",
    "termsprawl_context.transcript.speakers",
    "termsprawl_context.transcript.tool_blocks",
    "termsprawl_context.transcript.turns",
    "termsprawl_context.workspace",
    "termsprawl_context.workspace.agents_block",
    "termsprawl_context.workspace.discovery",
    "termsprawl_context.workspace.files",
    "termsprawl_context.workspace.ids",
    "termsprawl_context.workspace.index",
    "termsprawl_context.workspace.layout",
    "termsprawl_context.workspace.links",
    "termsprawl_context.workspace.project",
    "termsprawl_context.workspace.titles",
)
# The launcher itself as bytecode too (``__main__.pyc``), compiled by this version's
# interpreter: the first compile() in a process costs as much as a quarter of a bare
# start (CPython builds its compiler's state then), and a start with no source to
# compile skips it. zipimport looks for exactly one ``__main__.pyc`` beside
# ``__main__.py`` and silently falls back to the source when the magic number is
# another version's, so only one version can have it: 3.11, Debian 12's python3 (the
# interpreter the start-up benchmark is measured against).
MAIN_BYTECODE_VERSION = "3.11"
MAIN_BYTECODE_TAG = "cpython-" + MAIN_BYTECODE_VERSION.replace(".", "")
# One fixed deflate level: the bytes of a member depend on it.
COMPRESS_LEVEL = 9

# Our __main__.py. It must parse on Python 2.7 so that old interpreters print the one
# line instead of a SyntaxError. It takes the zip's path from its own loader, spelled as
# the interpreter opened it (so zipimport reads the central directory once, not again
# under an absolute spelling; nothing ever changes directory), else from __file__:
# never sys.path[0], so `python3 -I`, `-P`, a rename or a symlink all work.
# importlib.machinery, zipimport and marshal are already loaded when a zip's __main__
# runs (runpy and the path hooks need them): the finder imports nothing new.
_LAUNCHER = """\
# termsprawl-context: run straight from this zip (zipimport): no extraction, no writes.
import sys
if sys.version_info < (3, 8):
    sys.stderr.write("termsprawl-context: needs Python 3.8 or newer\\n")
    sys.exit(1)
import gc
# Start-up allocates thousands of objects that are never garbage (modules, classes,
# functions), and every collection they trigger walks them all again: the collector is
# off while the modules load, and cli.main turns it back on before a command's work.
gc.disable()
import os
here = getattr(globals().get("__loader__"), "archive", None)
source = os.path.join(here or os.path.dirname(os.path.abspath(__file__)), "site-packages")
sys.path.insert(0, source)
tag = getattr(sys.implementation, "cache_tag", None)
if here and tag in (%s):
    # Bytecode compiled at build time for this interpreter, for the modules that carry
    # it; zipimport runs the source of the others.
    import marshal
    import zipimport
    import zlib
    from importlib.machinery import ModuleSpec

    class BytecodeLoader(object):
        def __init__(self, path, data):
            self.path, self.data = path, data

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            # 16 bytes of header: magic, flags, source hash (unchecked: no source here).
            exec(marshal.loads(zlib.decompress(self.data)[16:]), module.__dict__)

        def __repr__(self):
            return "<bytecode %%s>" %% self.path

    class BytecodeFinder(object):
        def __init__(self, bundle):
            # The bundle: one ASCII line "<member> <size> ..." then each member deflated.
            head, _, self.body = bundle.partition(b"\\n")
            words, self.index, offset = head.decode("ascii").split(), {}, 0
            for member, size in zip(words[::2], words[1::2]):
                self.index[member] = (offset, offset + int(size))
                offset += int(size)

        def find_spec(self, name, path=None, target=None):
            module = name.replace(".", "/")
            for member, package in ((module + ".pyc", False), (module + "/__init__.pyc", True)):
                if member in self.index:
                    start, end = self.index[member]
                    where = os.path.join(here, "bytecode", tag, member)
                    loader = BytecodeLoader(where, self.body[start:end])
                    spec = ModuleSpec(name, loader, origin=where, is_package=package)
                    spec.has_location = True
                    if package:  # its modules without bytecode are found in the source
                        spec.submodule_search_locations = [os.path.join(source, module)]
                    return spec
            return None

    sys.meta_path.insert(0, BytecodeFinder(zipimport.zipimporter(here).get_data("bytecode/" + tag)))
from termsprawl_context.cli import main
sys.exit(main())
"""


def launcher(tags=()):
    """Our ``__main__.py`` for an artifact carrying bytecode for ``tags``."""
    listed = "".join('"%s", ' % tag for tag in sorted(tags))
    return (_LAUNCHER % listed.strip()).encode("ascii")


LAUNCHER = launcher()  # the launcher of a source-only artifact


def bytecode_files(modules=BYTECODE_MODULES):
    """The staged files (relative, "/"-separated) of ``modules``: a package is its
    ``__init__.py``."""
    files = []
    for name in modules:
        parts = name.split(".")
        files.append("/".join(parts) + "/__init__.py")
        files.append("/".join(parts) + ".py")
    return files


# Run by each interpreter: compile the listed modules (argv[3:]) of the staged package
# under argv[1] to legacy-layout .pyc files under argv[2] (a listed path that is not a
# file is skipped: a module is one of its two spellings), then print the cache tag. The
# bytecode leaves out docstrings (the source beside it keeps them): they were over a third
# of each bundle, and nothing the command runs reads one (``cli.command`` copies a
# function's ``__doc__``, which may be None). Asserts stay, unlike ``-OO``.
_COMPILE = r"""
import ast, importlib.util, os, sys
from importlib._bootstrap_external import _code_to_hash_pyc

def without_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                node.body = node.body[1:] or [ast.copy_location(ast.Pass(), first)]
    return tree

src, out = sys.argv[1], sys.argv[2]
for rel in sys.argv[3:]:
    path = os.path.join(src, rel)
    if not os.path.isfile(path):
        continue
    with open(path, "rb") as f:
        data = f.read()
    code = compile(without_docstrings(ast.parse(data, rel)), rel, "exec", dont_inherit=True)
    target = os.path.join(out, rel + "c")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(_code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
sys.stdout.write(sys.implementation.cache_tag)
"""


class BuildError(Exception):
    """The artifact could not be built; the message says why."""

    exit_code = 1


class ShivMissing(BuildError):
    exit_code = 2


def build(output, src=SRC, pythons=None):
    """Write the artifact built from ``src/termsprawl_context`` to ``output`` (mode 755),
    with bytecode from ``pythons`` (default: ``find_pythons()``). Returns the cache
    tags it carries bytecode for."""
    output = Path(output)
    with tempfile.TemporaryDirectory(prefix="termsprawl-build-") as tmp:
        stage = Path(tmp) / "stage"
        _stage(Path(src) / PACKAGE, stage / PACKAGE)
        packed = Path(tmp) / "shiv.pyz"
        _run_shiv(stage, packed)
        bytecode, compilers = {}, {}
        for python in find_pythons() if pythons is None else pythons:
            tag, members = compile_with(python, stage, Path(tmp) / ("pyc-%d" % len(bytecode)))
            if tag not in bytecode:  # the first interpreter of a version wins: a fixed order
                bytecode[tag], compilers[tag] = members, python
        main_pyc = None
        if MAIN_BYTECODE_TAG in compilers:
            main_pyc = compile_launcher(compilers[MAIN_BYTECODE_TAG], launcher(bytecode), Path(tmp) / "launcher")
        data = repack(packed.read_bytes(), bytecode, main_pyc)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(".%s.%d.tmp" % (output.name, os.getpid()))
    try:
        partial.write_bytes(data)
        os.chmod(str(partial), ARTIFACT_MODE)
        os.replace(str(partial), str(output))
    finally:
        if partial.exists():
            partial.unlink()
    return sorted(bytecode)


def find_pythons():
    """One real CPython binary per version in BYTECODE_VERSIONS that this machine has,
    looked for as .ci/run does (pyenv's versions, then /usr/bin, /usr/local/bin; never
    a pyenv shim), in a fixed order so a machine always picks the same one."""
    roots = [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv")]
    found = []
    for version in BYTECODE_VERSIONS:
        candidates = []
        for root in dict.fromkeys(r for r in roots if r):
            candidates += sorted(
                glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python3")),
                key=_version_key,
                reverse=True,
            )
        candidates += ["/usr/bin/python" + version, "/usr/local/bin/python" + version]
        for path in candidates:
            if os.access(path, os.X_OK) and _is_cpython(path, version):
                found.append(path)
                break
    return found


def _version_key(path):
    """3.11.10 after 3.11.9: the numbers in a pyenv version directory's name."""
    name = Path(path).parent.parent.name
    return [int(part) if part.isdigit() else -1 for part in name.split(".")]


def _is_cpython(path, version):
    probe = "import platform, sys; sys.stdout.write('%s %d.%d' % (platform.python_implementation(), sys.version_info[0], sys.version_info[1]))"
    try:
        done = subprocess.run(
            [path, "-I", "-S", "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.decode("ascii", "replace") == "CPython " + version


def _compile(python, src, out, files):
    """Compile ``files`` (relative to ``src``) with ``python`` into ``out``; its cache
    tag. PYTHONHASHSEED=0 makes sets of constants marshal in one order."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0", "LANG": "C"}
    done = subprocess.run(
        [str(python), "-S", "-c", _COMPILE, str(src), str(out)] + list(files),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BuildError("%s could not compile the package: %s" % (python, detail[-1] if detail else "no output"))
    return done.stdout.decode("ascii").strip()


def compile_launcher(python, text, work):
    """The bytes of ``__main__.pyc``: the launcher ``text`` compiled by ``python``."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "__main__.py").write_bytes(text)
    _compile(python, work, work / "out", ["__main__.py"])
    return (work / "out" / "__main__.pyc").read_bytes()


def compile_with(python, stage, out):
    """(cache tag, {"termsprawl_context/x.pyc": bytes}) of BYTECODE_MODULES compiled by
    ``python`` from the staged package."""
    tag = _compile(python, stage, out, bytecode_files())
    for name, spellings in zip(BYTECODE_MODULES, zip(*[iter(bytecode_files())] * 2)):
        if not any((Path(out) / (rel + "c")).is_file() for rel in spellings):
            raise BuildError("BYTECODE_MODULES names %s, which the package does not have" % name)
    members = {}
    for path in sorted(Path(out).rglob("*.pyc")):
        members[path.relative_to(out).as_posix()] = path.read_bytes()
    return tag, members


def bundle(members):
    """One zip member holding ``members`` ({"termsprawl_context/dump.pyc": bytes}): an
    ASCII line of names and deflated sizes, then each member deflated on its own
    (COMPRESS_LEVEL), in that order; the zip stores the bundle as it is. One member per
    interpreter, not one per module: zipimport reads the central directory in Python on
    every start, at about 30k instructions an entry (a tenth of a start for 180 of
    them). Each member deflated on its own, not the bundle: a start inflates only the
    modules it imports (inflating all of them costs as much as the entries saved)."""
    names = sorted(members)
    for name in names:
        if not name or any(c.isspace() for c in name) or not name.isascii():
            raise BuildError("cannot bundle a member named %r" % name)
    packed = [zlib.compress(members[name], COMPRESS_LEVEL) for name in names]
    head = " ".join("%s %d" % (name, len(data)) for name, data in zip(names, packed))
    return head.encode("ascii") + b"\n" + b"".join(packed)


def unbundle(data):
    """The members of a ``bundle``, as the launcher reads them."""
    head, _, body = data.partition(b"\n")
    words, members, offset = head.decode("ascii").split(), {}, 0
    for name, size in zip(words[::2], words[1::2]):
        members[name] = zlib.decompress(body[offset : offset + int(size)])
        offset += int(size)
    return members


def _stage(package, stage):
    """Copy the package without bytecode, with fixed modes (a umask-002 checkout must
    build the same bytes as a 022 one)."""
    for root, dirs, files in os.walk(str(package)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        target = stage / Path(root).relative_to(package)
        target.mkdir(parents=True, exist_ok=True)
        os.chmod(str(target), DIR_MODE)
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            (target / name).write_bytes((Path(root) / name).read_bytes())
            os.chmod(str(target / name), FILE_MODE)


def _run_shiv(stage, output):
    if importlib.util.find_spec("shiv") is None:
        raise ShivMissing("shiv is not installed for %s; run: pip install -e '.[dev]'" % sys.executable)
    version = _shiv_version()
    if version != SHIV_PIN:
        sys.stderr.write("build_zipapp: warning: shiv %s, pinned %s\n" % (version, SHIV_PIN))
    command = [
        sys.executable,
        "-m",
        "shiv",
        "--site-packages",
        str(stage),
        "--reproducible",
        "--uncompressed",
        "-p",
        SHEBANG[2:-1].decode(),
        "-e",
        ENTRY_POINT,
        "-o",
        str(output),
    ]
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(SOURCE_DATE_EPOCH))
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        raise BuildError("shiv failed (exit %d): %s" % (done.returncode, detail[-1] if detail else "no output"))


def _shiv_version():
    try:
        from importlib.metadata import version
    except ImportError:  # Python < 3.8 has no importlib.metadata
        return "unknown"
    try:
        return version("shiv")
    except Exception:  # no dist-info (a vendored copy): nothing to compare
        return "unknown"


def repack(shiv_archive, bytecode=None, main_bytecode=None):
    """The artifact's bytes from a shiv archive's: its ``site-packages/`` members, the
    ``bytecode`` ({cache tag: {"termsprawl_context/x.pyc": bytes}}, one ``bundle`` member
    per tag) and our launcher, sorted, deflated
    at COMPRESS_LEVEL, with fixed times and modes, after our shebang. Depends on nothing but the member
    names and contents (not on the build's Python or clock)."""
    with zipfile.ZipFile(io.BytesIO(shiv_archive)) as shiv:
        members = {
            i.filename: shiv.read(i) for i in shiv.infolist() if i.filename.startswith(SITE_PACKAGES) and not i.is_dir()
        }
    if not members:
        raise BuildError("shiv's archive has no %s members" % SITE_PACKAGES)
    for tag, tagged in (bytecode or {}).items():
        members[BYTECODE_DIR + tag] = bundle(tagged)
    members["__main__.py"] = launcher(bytecode or ())
    if main_bytecode is not None:
        members["__main__.pyc"] = main_bytecode
    out = io.BytesIO()
    out.write(SHEBANG)
    with zipfile.ZipFile(out, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=time.gmtime(SOURCE_DATE_EPOCH)[:6])
            info.create_system = ZIP_UNIX
            info.external_attr = ZIP_FILE_ATTR
            # A bundle is deflated member by member already (see bundle).
            info.compress_type = zipfile.ZIP_STORED if name.startswith(BYTECODE_DIR) else zipfile.ZIP_DEFLATED
            archive.writestr(info, members[name], compresslevel=COMPRESS_LEVEL)
    return out.getvalue()


def differences(expected, actual):
    """Lines naming how ``actual`` (bytes) differs from ``expected``; empty when equal."""
    if expected == actual:
        return []
    found = []
    want_head, got_head = _head(expected), _head(actual)
    if want_head != got_head:
        found.append("header bytes differ: expected %r, found %r" % (want_head, got_head[:120]))
    try:
        with zipfile.ZipFile(io.BytesIO(actual)) as zipped:
            got = [(i.filename, i) for i in zipped.infolist()]
            got_data = {name: zipped.read(name) for name, _ in got}
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        return found + ["not a readable zip archive (%s)" % exc]
    with zipfile.ZipFile(io.BytesIO(expected)) as zipped:
        want = [(i.filename, i) for i in zipped.infolist()]
        want_data = {name: zipped.read(name) for name, _ in want}
    found += ["missing member %s" % n for n in sorted(set(want_data) - set(got_data))]
    found += ["extra member %s" % n for n in sorted(set(got_data) - set(want_data))]
    got_info = dict(got)
    for name, info in want:
        if name not in got_data:
            continue
        if want_data[name] != got_data[name]:
            found.append("member %s differs" % name)
        elif _meta(info) != _meta(got_info[name]):
            found.append("member %s: metadata differs (%s, expected %s)" % (name, _meta(got_info[name]), _meta(info)))
    if not found and [n for n, _ in want] != [n for n, _ in got]:
        found.append("member order differs")
    if not found:
        at = next((i for i, (a, b) in enumerate(zip(expected, actual)) if a != b), min(len(expected), len(actual)))
        found.append("zip structure differs (first differing byte at offset %d)" % at)
    return found


def _head(data):
    """The bytes before the zip's first member (the shebang line)."""
    start = data.find(b"PK\x03\x04")
    return data if start < 0 else data[:start]


def _meta(info):
    return "time=%s mode=%o method=%d" % (
        "-".join(map(str, info.date_time)),
        info.external_attr >> 16,
        info.compress_type,
    )


def _warn_missing(tags):
    missing = [v for v in BYTECODE_VERSIONS if "cpython-" + v.replace(".", "") not in tags]
    if missing:
        sys.stderr.write(
            "build_zipapp: warning: no bytecode for Python %s (no such interpreter found): "
            "those versions will run the source, and this is not the artifact a machine "
            "with all of them builds\n" % ", ".join(missing)
        )


def check(path, pythons=None):
    """Lines naming how the artifact at ``path`` differs from a fresh build; empty when equal."""
    try:
        actual = Path(path).read_bytes()
    except OSError as exc:
        return ["cannot read it (%s)" % (exc.strerror or exc)]
    with tempfile.TemporaryDirectory(prefix="termsprawl-check-") as tmp:
        fresh = Path(tmp) / "fresh.pyz"
        build(fresh, pythons=pythons)
        return differences(fresh.read_bytes(), actual)


def _shown(path):
    """``path`` relative to the current directory when it lies inside it."""
    path = Path(path).absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Build dist/termsprawl-context.pyz (see the module docstring).")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, help="where to write the artifact")
    parser.add_argument(
        "--check",
        nargs="?",
        type=Path,
        const=DEFAULT_OUTPUT,
        metavar="PATH",
        help="compare PATH (default %s) with a fresh build" % _shown(DEFAULT_OUTPUT),
    )
    parser.add_argument(
        "--python",
        action="append",
        metavar="PY",
        help="compile bytecode with this interpreter (repeatable; default: every "
        "CPython %s-%s found)" % (BYTECODE_VERSIONS[0], BYTECODE_VERSIONS[-1]),
    )
    args = parser.parse_args(argv)
    try:
        if args.check is None:
            tags = build(args.output, pythons=args.python)
            print(
                "build_zipapp: wrote %s (%d bytes; bytecode for %s)"
                % (_shown(args.output), args.output.stat().st_size, ", ".join(tags) or "no interpreter")
            )
            _warn_missing(tags)
            return 0
        problems = check(args.check, args.python)
    except BuildError as exc:
        sys.stderr.write("build_zipapp: %s\n" % exc)
        return exc.exit_code
    except OSError as exc:  # an unwritable output, a full disk: one line, not a traceback
        sys.stderr.write("build_zipapp: %s: %s\n" % (exc.filename or "", exc.strerror or exc))
        return 1
    if not problems:
        print("build_zipapp: %s is identical to a fresh build" % _shown(args.check))
        return 0
    for line in problems:
        sys.stderr.write("build_zipapp: %s: %s\n" % (_shown(args.check), line))
    sys.stderr.write("build_zipapp: %s is not a fresh build; run: python3 build_zipapp.py\n" % _shown(args.check))
    return 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Build the one-file command ``dist/termsprawl-context.pyz``, byte for byte reproducibly.

    python3 build_zipapp.py                 write dist/termsprawl-context.pyz
    python3 build_zipapp.py -o PATH         write it somewhere else
    python3 build_zipapp.py --check [PATH]  exit 1, naming the difference, unless PATH
                                            (default the dist/ copy) equals a fresh build

    python3 build_zipapp.py --python PY ... compile bytecode only with these interpreters

What the artifact holds: the package's source under ``site-packages/``, and its
bytecode for each CPython 3.8-3.13 found on the build machine under
``bytecode/<cache tag>/`` (``cpython-311``: sourceless, hash-based unchecked ``.pyc``,
compiled with ``PYTHONHASHSEED=0`` and a fixed file name, so the bytes depend only on the
source and the interpreter's version). The launcher puts the directory of the running
interpreter's cache tag on ``sys.path`` when the build carried it, else the source:
zipimport never writes bytecode, so without this every start compiles every module it
imports (a third of a start). A build on a machine with fewer interpreters carries
fewer directories; those versions then run the source: the same behaviour, slower to
start, and a different artifact (``--check`` names the missing members).

What shiv contributes, truthfully: very little. shiv (build time only, pinned) copies the
staged source into ``site-packages/`` of a zip; ``repack`` then reads those members back
and writes every byte of the artifact itself (order, times, modes, our launcher and the
bytecode). shiv's run-time bootstrap, its ``environment.json`` and its ``__main__.py`` are
dropped: the bootstrap would extract into ``~/.shiv`` and import fcntl on every run, while
zipimport runs the code straight from the zip with no writes anywhere (measurements:
shared/reference/shiv-packaging.md). shiv stays as the project's chosen, pinned packer;
the build would work the same with ``zipfile`` alone.
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

# Our __main__.py. It must parse on Python 2.7 so that old interpreters print the one
# line instead of a SyntaxError, and it takes its path from __file__ (not sys.path[0])
# so `python3 -I`, `-P`, a rename or a symlink all find site-packages in the zip.
_LAUNCHER = '''\
# termsprawl-context: run straight from this zip (zipimport): no extraction, no writes.
import sys
if sys.version_info < (3, 8):
    sys.stderr.write("termsprawl-context: needs Python 3.8 or newer\\n")
    sys.exit(1)
import os
here = os.path.dirname(os.path.abspath(__file__))
# Bytecode compiled for this interpreter at build time, else the source.
tag = getattr(sys.implementation, "cache_tag", None)
if tag in (%s):
    sys.path.insert(0, os.path.join(here, "bytecode", tag))
else:
    sys.path.insert(0, os.path.join(here, "site-packages"))
from termsprawl_context.cli import main
sys.exit(main())
'''


def launcher(tags=()):
    """Our ``__main__.py`` for an artifact carrying bytecode for ``tags``."""
    listed = "".join('"%s", ' % tag for tag in sorted(tags))
    return (_LAUNCHER % listed.strip()).encode("ascii")


LAUNCHER = launcher()  # the launcher of a source-only artifact

# Run by each interpreter: compile every module of the staged package (argv[1]) to a
# legacy-layout .pyc under argv[2], then print the interpreter's cache tag.
_COMPILE = r"""
import os, py_compile, sys
src, out = sys.argv[1], sys.argv[2]
for root, dirs, files in os.walk(src):
    dirs.sort()
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        rel = os.path.relpath(os.path.join(root, name), src).replace(os.sep, "/")
        py_compile.compile(os.path.join(root, name), cfile=os.path.join(out, rel + "c"), dfile=rel,
                           doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
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
        bytecode = {}
        for python in (find_pythons() if pythons is None else pythons):
            tag, members = compile_with(python, stage, Path(tmp) / ("pyc-%d" % len(bytecode)))
            if tag not in bytecode:  # the first interpreter of a version wins: a fixed order
                bytecode[tag] = members
        data = repack(packed.read_bytes(), bytecode)
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
            candidates += sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", "python3")),
                                 key=_version_key, reverse=True)
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
        done = subprocess.run([path, "-I", "-S", "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.decode("ascii", "replace") == "CPython " + version


def compile_with(python, stage, out):
    """(cache tag, {zip member name: .pyc bytes}) of the staged package compiled by
    ``python``. PYTHONHASHSEED=0 makes sets of constants marshal in one order."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0", "LANG": "C"}
    done = subprocess.run([str(python), "-S", "-c", _COMPILE, str(stage), str(out)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BuildError("%s could not compile the package: %s" % (python, detail[-1] if detail else "no output"))
    tag = done.stdout.decode("ascii").strip()
    members = {}
    for path in sorted(Path(out).rglob("*.pyc")):
        members[BYTECODE_DIR + tag + "/" + path.relative_to(out).as_posix()] = path.read_bytes()
    return tag, members


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
        sys.executable, "-m", "shiv", "--site-packages", str(stage), "--reproducible",
        "--uncompressed", "-p", SHEBANG[2:-1].decode(), "-e", ENTRY_POINT, "-o", str(output),
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


def repack(shiv_archive, bytecode=None):
    """The artifact's bytes from a shiv archive's: its ``site-packages/`` members, the
    ``bytecode`` members ({cache tag: {name: bytes}}) and our launcher, sorted, stored,
    with fixed times and modes, after our shebang. Depends on nothing but the member
    names and contents (not on the build's Python or clock)."""
    with zipfile.ZipFile(io.BytesIO(shiv_archive)) as shiv:
        members = {i.filename: shiv.read(i) for i in shiv.infolist()
                   if i.filename.startswith(SITE_PACKAGES) and not i.is_dir()}
    if not members:
        raise BuildError("shiv's archive has no %s members" % SITE_PACKAGES)
    for tagged in (bytecode or {}).values():
        members.update(tagged)
    members["__main__.py"] = launcher(bytecode or ())
    out = io.BytesIO()
    out.write(SHEBANG)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=time.gmtime(SOURCE_DATE_EPOCH)[:6])
            info.create_system = ZIP_UNIX
            info.external_attr = ZIP_FILE_ATTR
            archive.writestr(info, members[name])
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
    return "time=%s mode=%o method=%d" % ("-".join(map(str, info.date_time)), info.external_attr >> 16, info.compress_type)


def _warn_missing(tags):
    missing = [v for v in BYTECODE_VERSIONS if "cpython-" + v.replace(".", "") not in tags]
    if missing:
        sys.stderr.write("build_zipapp: warning: no bytecode for Python %s (no such interpreter found): "
                         "those versions will run the source, and this is not the artifact a machine "
                         "with all of them builds\n" % ", ".join(missing))


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
    parser.add_argument("--check", nargs="?", type=Path, const=DEFAULT_OUTPUT, metavar="PATH",
                        help="compare PATH (default %s) with a fresh build" % _shown(DEFAULT_OUTPUT))
    parser.add_argument("--python", action="append", metavar="PY",
                        help="compile bytecode with this interpreter (repeatable; default: every "
                             "CPython %s-%s found)" % (BYTECODE_VERSIONS[0], BYTECODE_VERSIONS[-1]))
    args = parser.parse_args(argv)
    try:
        if args.check is None:
            tags = build(args.output, pythons=args.python)
            print("build_zipapp: wrote %s (%d bytes; bytecode for %s)" % (
                _shown(args.output), args.output.stat().st_size, ", ".join(tags) or "no interpreter"))
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

"""The one-file artifact: byte-reproducible builds, ``build_zipapp.py --check``, and
running it the ways a project runs it (renamed into .termsprawl/bin and executed through
its shebang, from a read-only directory, with HOME unset or read-only, on every
interpreter the machine has) without writing anything anywhere."""

import glob
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO, SRC, snapshot

sys.path.insert(0, str(REPO))
try:
    import build_zipapp
finally:
    sys.path.remove(str(REPO))

from termsprawl_context import __version__

OLD_MESSAGE = b"termsprawl-context: needs Python 3.8 or newer\n"
MODERN = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
OLD = ["2.7", "3.6", "3.7"]
HAS_DUMP = (SRC / "termsprawl_context" / "cli" / "context.py").is_file()


# --- helpers ---------------------------------------------------------------------------------


def pyenv_roots():
    roots = [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv")]
    if shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        roots.append(done.stdout.decode().strip())
    return [r for r in dict.fromkeys(roots) if r and os.path.isdir(os.path.join(r, "versions"))]


def find_python(version):
    """A real interpreter binary of ``version`` (pyenv's versions, then PATH, never a
    pyenv shim, which needs pyenv's own environment), or None."""
    name = "python" if version.startswith("2.") else "python3"
    for root in pyenv_roots():
        for path in sorted(glob.glob(os.path.join(root, "versions", version + ".*", "bin", name))):
            if os.access(path, os.X_OK):
                return path
    found = shutil.which("python" + version)
    if found and "/shims/" not in found:
        return found
    return None


def clean_env(home=None, **extra):
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    if home is not None:
        env["HOME"] = str(home)
    env.update(extra)
    return env


def run(argv, cwd=None, env=None):
    return subprocess.run(
        [str(a) for a in argv],
        cwd=str(cwd) if cwd else None,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=120,
    )


def check(path):
    return run([sys.executable, REPO / "build_zipapp.py", "--check", path])


def rewrite(pyz, target, change):
    """Copy the artifact to ``target`` with ``change(name, data) -> data`` applied to each
    member, keeping names, order and metadata."""
    with zipfile.ZipFile(str(pyz)) as source:
        infos = source.infolist()
        bodies = [source.read(i) for i in infos]
    out = io.BytesIO()
    out.write(build_zipapp.SHEBANG)
    with zipfile.ZipFile(out, "w") as archive:
        for info, body in zip(infos, bodies):
            archive.writestr(info, change(info.filename, body))
    target.write_bytes(out.getvalue())
    return target


@pytest.fixture
def shiv_archive(tmp_path):
    """shiv's own archive of src, before our repack."""
    stage = tmp_path / "stage"
    build_zipapp._stage(SRC / build_zipapp.PACKAGE, stage / build_zipapp.PACKAGE)
    packed = tmp_path / "shiv.pyz"
    build_zipapp._run_shiv(stage, packed)
    return packed


# --- reproducibility and --check ---------------------------------------------------------------


def test_two_builds_are_byte_identical(pyz, tmp_path):
    again = tmp_path / "again.pyz"
    build_zipapp.build(again)
    assert again.read_bytes() == pyz.read_bytes()


def test_checkout_path_modes_mtimes_and_bytecode_do_not_change_the_bytes(tmp_path):
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    shutil.copy(str(REPO / "build_zipapp.py"), str(plain))
    shutil.copytree(
        str(SRC / "termsprawl_context"),
        str(plain / "src" / "termsprawl_context"),
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    odd = tmp_path / "another checkout" / "deeper"
    shutil.copytree(str(plain), str(odd))
    for folder, dirs, files in os.walk(str(odd / "src")):
        os.chmod(folder, 0o775)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o664)
            os.utime(os.path.join(folder, name), (1234567890, 1234567890))
    cache = odd / "src" / "termsprawl_context" / "__pycache__"
    cache.mkdir()
    (cache / "jsonl.cpython-311.pyc").write_bytes(b"\x00junk")
    (odd / "src" / "termsprawl_context" / "stray.pyc").write_bytes(b"\x00junk")

    outputs = []
    for checkout, umask in ((plain, "022"), (odd, "002")):
        out = tmp_path / ("out-%s.pyz" % umask)
        done = subprocess.run(
            ["sh", "-c", 'umask %s && exec "$0" build_zipapp.py -o "$1"' % umask, sys.executable, str(out)],
            cwd=str(checkout),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("version", MODERN)
def test_repack_gives_the_same_bytes_on_every_python(version, shiv_archive):
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    code = (
        "import hashlib, sys; sys.path.insert(0, sys.argv[1]); import build_zipapp; "
        "data = build_zipapp.repack(open(sys.argv[2], 'rb').read()); "
        "sys.stdout.write(hashlib.sha256(data).hexdigest())"
    )
    done = run([python, "-c", code, REPO, shiv_archive], env=clean_env())
    assert done.returncode == 0, done.stderr
    expected = hashlib.sha256(build_zipapp.repack(shiv_archive.read_bytes())).hexdigest()
    assert done.stdout.decode() == expected


def test_check_passes_on_a_fresh_build(pyz):
    done = check(pyz)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1 and b"identical" in done.stdout
    assert done.stderr == b""


def test_check_fails_naming_the_changed_member(pyz, tmp_path):
    member = "site-packages/termsprawl_context/__init__.py"
    changed = rewrite(
        pyz, tmp_path / "changed.pyz", lambda name, data: data + b"# edited\n" if name == member else data
    )
    done = check(changed)
    assert done.returncode == 1
    assert ("member %s differs" % member).encode() in done.stderr


def test_check_fails_when_the_file_is_missing(tmp_path):
    done = check(tmp_path / "absent.pyz")
    assert done.returncode == 1
    assert b"cannot read" in done.stderr


def test_differences_names_extra_and_missing_members_and_the_header(pyz, tmp_path):
    fresh = pyz.read_bytes()
    member = "site-packages/termsprawl_context/errors.py"
    with zipfile.ZipFile(str(pyz)) as source:
        infos = [i for i in source.infolist() if i.filename != member]
        bodies = [source.read(i) for i in infos]
    out = io.BytesIO()
    out.write(b"#!/usr/bin/python3\n")
    with zipfile.ZipFile(out, "w") as archive:
        for info, body in zip(infos, bodies):
            archive.writestr(info, body)
        archive.writestr("site-packages/termsprawl_context/extra.py", b"")
    found = build_zipapp.differences(fresh, out.getvalue())
    assert any(line.startswith("header bytes differ") for line in found)
    assert "missing member %s" % member in found
    assert "extra member site-packages/termsprawl_context/extra.py" in found
    assert build_zipapp.differences(fresh, fresh) == []
    assert build_zipapp.differences(fresh, b"not a zip")[-1].startswith("not a readable zip")


def test_missing_shiv_exits_2_with_the_install_hint(tmp_path):
    # An interpreter without shiv: the stdlib-only one under -I -S sees no site-packages.
    done = run([sys.executable, "-I", "-S", REPO / "build_zipapp.py", "-o", tmp_path / "x.pyz"])
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and "pip install -e '.[dev]'" in lines[0]
    assert not (tmp_path / "x.pyz").exists()


# --- what is inside --------------------------------------------------------------------------


def test_artifact_layout(pyz):
    data = pyz.read_bytes()
    assert data.startswith(b"#!/usr/bin/env python3\n")
    assert pyz.stat().st_mode & 0o777 == 0o755
    with zipfile.ZipFile(str(pyz)) as archive:
        infos = archive.infolist()
        names = [i.filename for i in infos]
        tags = sorted(n[len("bytecode/") :] for n in names if n.startswith("bytecode/"))
        assert archive.read("__main__.py") == build_zipapp.launcher(tags)
        bundles = {tag: build_zipapp.unbundle(archive.read("bytecode/" + tag)) for tag in tags}
    assert names == sorted(names)
    assert "site-packages/termsprawl_context/cli/__init__.py" in names
    assert ("__main__.pyc" in names) == (build_zipapp.MAIN_BYTECODE_TAG in tags)
    assert [
        n
        for n in names
        if n not in ("__main__.py", "__main__.pyc") and not n.startswith(("site-packages/", "bytecode/"))
    ] == []
    assert not [n for n in names if n.endswith("/") or "__pycache__" in n]
    sources = sorted(n[len("site-packages/") :] for n in names if n.startswith("site-packages/"))
    assert all(n.endswith(".py") for n in sources)
    # Each tag: one bundle holding a .pyc for exactly the modules of BYTECODE_MODULES.
    wanted = sorted(n + "c" for n in build_zipapp.bytecode_files() if n in sources)
    assert len(wanted) == len(build_zipapp.BYTECODE_MODULES)
    for tag, members in bundles.items():
        assert sorted(members) == wanted, tag
        assert all(body[:4] == members[wanted[0]][:4] for body in members.values())  # one magic number
    for info in infos:
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
        assert info.external_attr >> 16 == 0o100644
        # A bundle's members are deflated one by one inside it (a start inflates only what it imports).
        stored = info.filename.startswith("bytecode/")
        assert info.compress_type == (zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED), info.filename


def test_the_artifact_is_lean(pyz):
    # The bar: at most 1.5 MB, though copied into every project (the README states the size).
    assert pyz.stat().st_size <= 1500000


def test_bundle_round_trips():
    members = {"termsprawl_context/a.pyc": b"\x00\n" * 50, "termsprawl_context/b/__init__.pyc": b"", "z.pyc": b"z"}
    assert build_zipapp.unbundle(build_zipapp.bundle(members)) == members
    with pytest.raises(build_zipapp.BuildError):
        build_zipapp.bundle({"a b.pyc": b""})


@pytest.mark.parametrize("tags", [(), ("cpython-311",), ("cpython-38", "cpython-313")])
def test_launcher_parses_as_python_2(tags):
    # Compiled here as a smoke check; the real proof is the 2.7 run below when present.
    text = build_zipapp.launcher(tags)
    compile(text, "__main__.py", "exec")
    assert all(b < 128 for b in text)
    assert b'f"' not in text and b"print(" not in text


def every_turn_calls(tmp_path):
    """(argv, stdin, env) of the calls made every turn or session: the bare dump with no
    peer and with one, the hand-off in both formats, the hook (the import set that
    BYTECODE_MODULES must cover), and whether each prints."""
    sid = "0f3c2a41-1111-4222-8333-444455556666"
    empty = tmp_path / "empty"
    empty.mkdir()
    project = tmp_path / "project"
    (project / ".termsprawl" / "links").mkdir(parents=True)
    (project / ".termsprawl" / "transcripts").mkdir(parents=True)
    config = tmp_path / "claude"
    record = config / "projects" / "-project" / (sid + ".jsonl")
    record.parent.mkdir(parents=True)
    lines = [
        {"type": "user", "sessionId": sid, "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "sessionId": sid,
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "hello"},
                    {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}},
                ],
            },
        },
    ]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (project / ".termsprawl" / "links" / "a--b.json").write_text(json.dumps({"version": 1, "a": "a", "b": "b"}))
    (project / ".termsprawl" / "transcripts" / "b.json").write_text(json.dumps({"version": 1, "path": str(record)}))
    dump = ["--cwd", str(project), "--self", "a"]
    hook_env = {"CLAUDE_CONFIG_DIR": str(config), "CLAUDE_PROJECT_DIR": str(project), "TERMSPRAWL_NODE_ID": "c"}
    payload = json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(record),
            "cwd": str(project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()
    return [
        (["--cwd", str(empty), "--self", "x"], b"", {}, False),
        (dump, b"", {}, True),
        (dump + ["--turns", "5"], b"", {}, True),
        (dump + ["--format", "json"], b"", {}, True),
        (["hook"], payload, hook_env, True),
    ]


def loaded_modules(stderr):
    """{module: where it came from} from a ``-v`` run's import lines: ``import 'name' #
    <loader>``, or on 3.8 and 3.9 for zipimport's own loads ``import name # loaded from
    Zip <path>``."""
    found = {}
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith(("import 'termsprawl_context", "import termsprawl_context")):
            name, _, origin = line[len("import ") :].partition(" # ")
            found[name.strip("'")] = origin
    return found


@pytest.mark.parametrize("version", MODERN)
def test_each_interpreter_found_runs_its_own_bytecode_for_every_turn(pyz, tmp_path, empty_home, version):
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    tag = "cpython-" + version.replace(".", "")
    with zipfile.ZipFile(str(pyz)) as archive:
        assert "termsprawl_context/cli/__init__.pyc" in build_zipapp.unbundle(archive.read("bytecode/" + tag))
    for argv, stdin, env, prints in every_turn_calls(tmp_path):
        done = subprocess.run(
            [python, "-v", str(pyz)] + argv,
            input=stdin,
            env=clean_env(home=empty_home, **env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=120,
        )
        assert done.returncode == 0, (argv, done.stderr[-300:])
        assert bool(done.stdout) == prints, argv
        loaded = loaded_modules(done.stderr)
        assert "termsprawl_context.cli" in loaded
        from_source = sorted(m for m, origin in loaded.items() if "/bytecode/%s/" % tag not in origin)
        assert from_source == [], "%s imports these from source: add them to BYTECODE_MODULES" % argv
    # A command a person types runs the modules outside that set from the source.
    done = run([python, "-v", pyz, "sessions", "--projects-dir", tmp_path / "none"], env=clean_env(home=empty_home))
    loaded = loaded_modules(done.stderr)
    assert any("/site-packages/" in origin for origin in loaded.values())
    assert all("/bytecode/%s/" % tag in loaded[m] for m in build_zipapp.BYTECODE_MODULES if m in loaded)


@pytest.mark.parametrize("version", MODERN)
def test_the_launcher_runs_as_bytecode_on_its_version_only(pyz, empty_home, version):
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    done = run([python, "-vv", pyz, "--version"], env=clean_env(home=empty_home))
    assert done.returncode == 0
    compiled_source = ("# trying %s/__main__.py\n" % pyz).encode() in done.stderr.replace(b"\r", b"")
    assert compiled_source == (version != build_zipapp.MAIN_BYTECODE_VERSION)


def test_a_build_with_fewer_interpreters_runs_the_source_on_the_others(pyz, tmp_path, empty_home):
    only = tmp_path / "only-this.pyz"
    tags = build_zipapp.build(only, pythons=[os.path.realpath(sys.executable)])
    assert tags == [sys.implementation.cache_tag]
    with zipfile.ZipFile(str(only)) as archive:
        assert ("__main__.pyc" in archive.namelist()) == (tags[0] == build_zipapp.MAIN_BYTECODE_TAG)
    others = [find_python(v) for v in MODERN if "cpython-" + v.replace(".", "") != tags[0]]
    others = [p for p in others if p]
    if not others:
        pytest.skip("no second Python version on this machine")
    done = run([others[0], "-v", only, "--version"], env=clean_env(home=empty_home))
    assert done.returncode == 0 and done.stdout.startswith(b"termsprawl-context ")
    loaded = loaded_modules(done.stderr)
    assert loaded and all("/site-packages/" in origin for origin in loaded.values())
    # And it is not the artifact a machine with more interpreters builds.
    found = build_zipapp.differences(pyz.read_bytes(), only.read_bytes())
    if len(build_zipapp.find_pythons()) > 1:
        assert any(line.startswith("missing member bytecode/") for line in found)


# --- running it ----------------------------------------------------------------------------------


def test_version(pyz):
    done = run([sys.executable, pyz, "--version"], env=clean_env(home="/nonexistent"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("termsprawl-context %s\n" % __version__).encode()
    assert done.stderr == b""


@pytest.mark.parametrize("home_kind", ["unset", "read-only"])
def test_runs_from_a_read_only_dir_and_writes_nothing(pyz, tmp_path, empty_home, home_kind):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    artifact = bin_dir / "termsprawl-context.pyz"
    shutil.copy2(str(pyz), str(artifact))
    cwd = tmp_path / "project"
    cwd.mkdir()
    for folder in (bin_dir, cwd):
        folder.chmod(0o555)
    home = None if home_kind == "unset" else empty_home
    watched = [bin_dir, cwd] + ([home] if home else [])
    before = snapshot(*watched)
    try:
        runs = [["--version"]] + ([["--cwd", ".", "--self", "x"]] if HAS_DUMP else [])
        for args in runs:
            done = run([sys.executable, artifact] + args, cwd=cwd, env=clean_env(home=home))
            assert done.returncode == 0, done.stderr
            assert done.stderr == b""
        assert snapshot(*watched) == before
    finally:
        for folder in (bin_dir, cwd):
            folder.chmod(0o755)


def test_renamed_into_the_project_and_run_through_its_shebang(pyz, tmp_path, empty_home):
    python_dir = os.path.dirname(sys.executable)
    if not os.access(os.path.join(python_dir, "python3"), os.X_OK):
        pytest.skip("no python3 beside %s for the shebang's env to find" % sys.executable)
    command = tmp_path / "project" / ".termsprawl" / "bin" / "termsprawl-context"
    command.parent.mkdir(parents=True)
    shutil.copy2(str(pyz), str(command))
    link = tmp_path / "link-to-command"
    link.symlink_to(command)
    env = clean_env(home=empty_home, PATH=python_dir + ":/usr/bin:/bin")
    before = snapshot(tmp_path / "project", empty_home)
    expected = ("termsprawl-context %s\n" % __version__).encode()
    flags = [["-I"], ["-P"]] if sys.version_info >= (3, 11) else [["-I"]]
    for argv in [[command], [link]] + [[sys.executable] + f + [command] for f in flags]:
        done = run(argv + ["--version"], cwd=tmp_path / "project", env=env)
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, b""), argv
    assert snapshot(tmp_path / "project", empty_home) == before


@pytest.mark.parametrize("version", OLD)
def test_old_interpreters_get_one_line_and_exit_1(pyz, empty_home, version):
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    for args in (["--version"], ["--cwd", ".", "--self", "x"]):
        done = run([python, pyz] + args, env=clean_env(home=empty_home))
        assert (done.returncode, done.stdout, done.stderr) == (1, b"", OLD_MESSAGE)


@pytest.mark.parametrize("version", MODERN)
def test_every_supported_interpreter_runs_it(pyz, empty_home, version):
    python = find_python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    done = run([python, pyz, "--version"], env=clean_env(home=empty_home))
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == ("termsprawl-context %s\n" % __version__).encode()


def test_no_fcntl_and_no_shiv_bootstrap_imported(pyz, tmp_path, empty_home):
    runs = [["--version"]] + ([["--cwd", str(tmp_path), "--self", "x"]] if HAS_DUMP else [])
    for args in runs:
        # -S: the interpreter's own .pth files may import anything; judge only the artifact.
        done = run([sys.executable, "-S", "-X", "importtime", pyz] + args, env=clean_env(home=empty_home))
        assert done.returncode == 0
        imported = {
            line.rsplit(b"|", 1)[-1].strip().decode()
            for line in done.stderr.splitlines()
            if line.startswith(b"import time:")
        }
        assert "termsprawl_context.cli" in imported
        assert "fcntl" not in imported
        assert not [m for m in imported if m == "_bootstrap" or m.startswith("_bootstrap.")]

"""The echo classifier: the reference's commandmod table, plus this product's commands."""

import pytest

from termsprawl_context.transcript.echo import echoes_record, names_git_path

# internal/commandmod echo_test (the notes, section 5.3), verbatim.
NOTES_ECHOES = [
    "git log -1",
    "sh -c 'git log'",
    'bash -c "git show HEAD"',
    "/usr/bin/git log",
    'git -C "a b" log',
    "env FOO=1 sh -c 'cd x && git log'",
    "git for-each-ref --format=%(contents)",
    "git tag -n99",
    "git stash list",
    "cat .git/COMMIT_EDITMSG",
    "cat .git/logs/HEAD",
    "cd x && git reflog",
    "git --no-pager -c a=b log",
    "sr trajectory",
    "sr-mark list",
    "sr-checks run",
    "sr-agent x",
    "sr-session trajectory cite 'q'",
    "sr-file write a",
    "/opt/bin/sr-session state list",
    "echo hi | sr-file write a",
    "sh -c 'cat < .git/COMMIT_EDITMSG'",
]
NOTES_NOT_ECHOES = [
    "echo 'tests passed'",
    "go test ./...",
    "git status",
    "git diff --stat",
    "git add -A && git commit -m x",
    "cat README.md",
    "make build",
    "ls src",
    "echo 'git log'",
    "sh -c 'echo ok'",
    "git -C dir status",
]
# This product prints transcript text under every name it is run by.
OWN_ECHOES = [
    "termsprawl-context --cwd . --self lead",
    "termsprawl-context assemble 1234",
    "termsprawl-context assemble-file /x.jsonl",
    "termsprawl-context cite /x.jsonl 'q' --json",
    "termsprawl-context query /x.jsonl --where 'type == \"user\"'",
    "termsprawl-context result-at /x.jsonl 3",
    "termsprawl-context envelope-at /x.jsonl 3",
    "termsprawl-context sessions",
    "termsprawl-context show 1234",
    "termsprawl-context search words",
    "termsprawl-context entries /x.jsonl",
    "termsprawl-context subagents /x.jsonl --json",
    "./dist/termsprawl-context.pyz assemble 1",
    "python3 dist/termsprawl-context.pyz query /x --where true",
    "python3 -m termsprawl_context cite /x q",
    "python3 -I -m termsprawl_context assemble 1",
    ".termsprawl/bin/termsprawl-context --cwd /p --self a",
    '"$CLAUDE_PROJECT_DIR"/.termsprawl/bin/termsprawl-context assemble 1',
    "cd /p && termsprawl-context assemble 1 | head -5",
    "bash -lc 'termsprawl-context sessions'",
    "env TERMSPRAWL_NODE_ID=a termsprawl-context --cwd . --self a",
    "FOO=1 termsprawl-context assemble 1 > out.txt",
    "true; termsprawl-context doctor",
    "nohup termsprawl-context assemble 1 &",
    "echo start\ntermsprawl-context assemble 1",
    "x=$(termsprawl-context assemble 1)",
    "echo `git log -1`",
    "(cd repo; git show HEAD)",
    "grep -n x < .git/HEAD",
    "cat 'unclosed",
]
OWN_NOT_ECHOES = [
    "termsprawl-context locate 1234",
    "termsprawl-context fresh /x.jsonl",
    "termsprawl-context index get a",
    "termsprawl-context --version",
    "termsprawl-context agents /x.jsonl",
    "termsprawl-context root /x.jsonl",
    "termsprawl-context identity /x.jsonl --json",
    "python3 -m pytest -q",
    "echo termsprawl-context assemble",
    "grep -rn termsprawl-context src 2>/dev/null",
    "cat notes.txt > .git-notes.txt",
    "git add .gitignore",
    "echo ok # git log",
    "",
    "   ",
    "make test 2>&1 | tail -3",
]


@pytest.mark.parametrize("command", NOTES_ECHOES + OWN_ECHOES)
def test_echoes(command):
    assert echoes_record(command) is True


@pytest.mark.parametrize("command", NOTES_NOT_ECHOES + OWN_NOT_ECHOES)
def test_not_echoes(command):
    assert echoes_record(command) is False


@pytest.mark.parametrize(
    "word, expected",
    [
        (".git", True),
        (".git/HEAD", True),
        ("a/.git/x", True),
        ("repo/.git", True),
        ("--file=.git/x", True),
        ("a\\.git\\HEAD", True),
        (".gitignore", False),
        ("x.git", False),
        ("-C", False),
    ],
)
def test_git_paths(word, expected):
    assert names_git_path(word) is expected


def test_not_a_string_is_an_echo():
    assert echoes_record(None) is True

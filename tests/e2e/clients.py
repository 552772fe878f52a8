"""Where the end-to-end suite finds the real agent CLIs, and what it does without them.

``tests/e2e/install-clients`` puts the pinned clients into ``$TERMSPRAWL_CLIENTS_DIR`` (else
``.e2e-clients/`` at the repo root). A user's bare clone has none: the suite skips with one
line saying why. ``.ci/run`` sets ``$TERMSPRAWL_REQUIRE_CLIENTS=1``, and then a missing client
fails the run instead (as ``$TERMSPRAWL_REQUIRE_CORPUS`` does for the corpus). With
``$TERMSPRAWL_SKIP_E2E`` set to a reason, every test here skips with that reason (``.ci/run``
drives the clients once, not again on each interpreter).
"""

import json
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CLIENTS_DIR_ENV = "TERMSPRAWL_CLIENTS_DIR"
REQUIRE_CLIENTS_ENV = "TERMSPRAWL_REQUIRE_CLIENTS"
SKIP_E2E_ENV = "TERMSPRAWL_SKIP_E2E"
# npm package of each client, as pinned in package.json; the key is the binary's name.
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "copilot": "@github/copilot",
    "pi": "@mariozechner/pi-coding-agent",
    "opencode": "opencode-linux-x64",
    "cline": "@cline/cli-linux-x64",
    "qwen": "@qwen-code/qwen-code",
    "droid": "@factory/cli",
}
# What to run, under node_modules/. Claude Code 2.1.328's `bin/claude.exe` is a stub its
# postinstall replaces; install-clients skips install scripts, so the suite runs the native
# binary from the platform package itself. The other clients' bins run as installed.
EXECUTABLES = {
    "claude": "@anthropic-ai/claude-code-linux-x64/claude",
    "codex": ".bin/codex",
    "gemini": ".bin/gemini",
    # Copilot's loader picks its platform package (@github/copilot-linux-x64, an optional
    # dependency the lock pins) and unpacks it under $HOME/.cache/copilot on first run.
    "copilot": ".bin/copilot",
    "pi": ".bin/pi",
    # OpenCode's and Cline CLI's binaries, from their platform packages (install-clients).
    "opencode": "opencode-linux-x64/bin/opencode",
    "cline": "@cline/cli-linux-x64/bin/cline",
    "qwen": ".bin/qwen",
    # Droid's 0.225.1 wrapper runs the platform binary pinned beside it (0.225.2).
    "droid": ".bin/droid",
    # Mistral Vibe is a PyPI package: install-clients puts it in a venv beside node_modules/.
    "vibe": "../vibe-venv/bin/vibe",
}


def pinned_versions():
    """{binary name: pinned version} from package.json, the one place the pins live."""
    deps = json.loads((HERE / "package.json").read_text())["dependencies"]
    return {name: deps[package] for name, package in PACKAGES.items()}


def clients_dir() -> Path:
    return Path(os.environ.get(CLIENTS_DIR_ENV) or (REPO / ".e2e-clients"))


def client_bin(name: str) -> str:
    """The installed client's executable, or a skip (a failure when clients are required)."""
    path = clients_dir() / "node_modules" / EXECUTABLES[name]
    if path.exists():
        return str(path)
    why = "no %s client in %s (run tests/e2e/install-clients)" % (name, clients_dir())
    if os.environ.get(REQUIRE_CLIENTS_ENV) == "1":
        pytest.fail("%s; %s=1" % (why, REQUIRE_CLIENTS_ENV), pytrace=False)
    pytest.skip(why)

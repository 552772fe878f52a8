"""termsprawl-context: read linked agents' Claude Code transcripts from inside a project.

The package is stdlib-only and layered (see DESIGN.md): ``jsonl`` (bytes) ->
``transcript`` (one record's meaning) -> ``store`` (the harness's directory of
transcripts) -> ``cite``; ``workspace`` holds ``<project>/.termsprawl/`` state; ``cli``
only parses argv, calls one function and prints.
"""

__version__ = "0.1.0"

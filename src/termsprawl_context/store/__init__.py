"""The harness's store: ``~/.claude/projects`` and the transcripts in it (read only)."""

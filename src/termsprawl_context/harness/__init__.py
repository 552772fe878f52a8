"""The agent harnesses whose records we read, one module each.

Every fact that belongs to a harness (where it keeps its store, how it names folders,
the field names of its records, the text it injects into a conversation, its hook
payload and settings file) lives in that harness's module; the layers ask it. A
transcript index entry may name its harness (``"harness"``); absent means Claude Code.
"""

CLAUDE_CODE = "claude-code"
DEFAULT_HARNESS = CLAUDE_CODE
KNOWN_HARNESSES = (CLAUDE_CODE,)

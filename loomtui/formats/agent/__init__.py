"""What Claude Code and Codex share: the read-only session, the label store, native export, tool calls."""

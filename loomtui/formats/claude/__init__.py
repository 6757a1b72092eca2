"""Claude Code session files as loomtui sessions (docs/agent-formats.md)."""

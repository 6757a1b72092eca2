"""Codex CLI rollout files as loomtui sessions (docs/agent-formats.md)."""

"""Maitento loom configurations and their loom map (docs/maitento-loom-config.md)."""

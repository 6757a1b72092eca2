"""OCP run documents read as a loom (docs/ocp.md)."""

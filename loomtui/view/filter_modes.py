"""The filter modes of pi's /tree and their footer tags (the rules are ``flat.py``'s): a module
of its own so that a command's arguments name them without importing the tree's machinery."""

from __future__ import annotations

FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS = {
    "default": "",
    "no-tools": " [no-tools]",
    "user-only": " [user]",
    "labeled-only": " [labeled]",
    "all": " [all]",
}

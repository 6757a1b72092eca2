"""Every message the app's widgets and screens post, in one place.

Widgets keep their names for them (``TreeView.Moved`` is ``TreeMoved``), so handlers read
``@on(TreeView.Moved)``; a flood of similar messages collapses through ``can_replace``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from loomtui.app.screens.browser import BrowserScreen
    from loomtui.app.widgets.tree_view import TreeView


class TreeMoved(Message):
    """The tree's selection or rows changed: the filter bar, footer and detail pane follow."""

    def __init__(self, tree: TreeView) -> None:
        super().__init__()
        self.tree = tree

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TreeMoved)


class SearchTyped(Message):
    """Text typed or pasted while the detail pane has focus: it goes into the tree's search."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class SessionActivated(Message):
    """A picker row was double-clicked (the screen opens it)."""

    def __init__(self, row: Any) -> None:
        super().__init__()
        self.row = row


class SessionListWidth(Message):
    """The picker's rows are drawn in another width (a resize, the scrollbar coming or going):
    the column header is laid out again in it."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SessionListWidth)


class SessionOpened(Message):
    """A browser has loaded and shown its session (the app starts following the file)."""

    def __init__(self, screen: BrowserScreen) -> None:
        super().__init__()
        self.browser = screen


class SessionFileChanged(Message):
    """The followed file changed on disk: ``change`` is modified, replaced or deleted."""

    def __init__(self, path: str, change: str) -> None:
        super().__init__()
        self.path = path
        self.change = change

    def can_replace(self, message: Message) -> bool:
        # a flood of changes to one file collapses: every handler re-reads from its offset anyway
        return isinstance(message, SessionFileChanged) and message.path == self.path and message.change == self.change


class LoadProgressUpdate(Message):
    """Posted by the loading thread: (bytes read, file size, entries read) or a stage."""

    def __init__(self, done: int, total: int, entries: int, stage: str = "") -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.entries = entries
        self.stage = stage

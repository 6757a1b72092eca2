"""What the session controller's intents return (``view/controller.py``): an ``Outcome`` with
its notices and maybe a question, the label prompt and the export plan. Plain values, no
Textual."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from loomtui.session.manager import SessionManager
from loomtui.session.source import Lookup


@dataclass(frozen=True, slots=True)
class Notice:
    """A message for the user. ``severity``: information, warning or error."""

    text: str
    title: str = ""
    severity: str = "information"
    timeout: float = 5


@dataclass(slots=True)
class Question:
    """Ask before doing it: ``title``/``body``/``button`` for a confirm dialog; ``on_yes`` (and
    ``on_no``) carry the intent on."""

    title: str
    body: str
    button: str
    on_yes: Callable[[], Outcome]
    on_no: Callable[[], Outcome] | None = None


@dataclass(slots=True)
class Outcome:
    """What an intent did. ``rows``: the tree's rows, labels or leaf changed (redraw, keep the
    screen row); ``leaf``: the leaf moved; ``detail``: redraw the detail pane even for the same
    entry; ``replaced``: the session was re-read (new manager and model); ``path``: a file
    written (export) or to open (parent session); ``error``: an unexpected failure, for the log;
    ``bars``: only the header and footer changed (a skipped line the header's diagnostics count)."""

    notices: list[Notice] = field(default_factory=list)
    rows: bool = False
    leaf: bool = False
    detail: bool = False
    replaced: bool = False
    bars: bool = False
    ask: Question | None = None
    path: str | None = None
    error: BaseException | None = None
    #: a session to open on top (a row that is a session of its own: a subagent)
    session: SessionManager | None = None
    #: a file to find, then open on top (``Source.opens`` gave a ``Lookup``)
    lookup: Lookup | None = None
    #: the entry to select in the file opened (``path``): the row a subagent run hangs under in
    #: its session (None: a fork's parent opens at the fork point)
    select: str | None = None

    @property
    def done(self) -> bool:
        return self.rows or self.leaf or self.replaced or self.path is not None

    def note(self, text: str, title: str = "", severity: str = "information", timeout: float = 5) -> Outcome:
        self.notices.append(Notice(text, title, severity, timeout))
        return self


@dataclass(frozen=True, slots=True)
class LabelPrompt:
    """What the label dialog shows: the entry's row, its current label, where a label goes
    (``note``) or why it cannot be saved (``refusal``: a read-only source)."""

    entry_id: str
    row: str
    current: str | None
    note: str = ""
    refusal: str | None = None


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """What the export dialog shows: the entry's row, how many entries and labels the new
    file gets, and where it goes by default."""

    entry_id: str
    row: str
    entries: int
    labels: int
    default_dir: str
    #: what the new file is ("a Claude Code session") and what it holds, in the source's words
    export_as: str = "a pi session"
    note: str = "the header's parentSession names this file"
    #: the new file also gets a ``session_info`` entry keeping the session's name
    named: bool = False

"""What was opened: one value saying where a session came from and what may be written back.

Every way of opening something — a pi / oh-my-pi session file, an OpenLoom document or bundle,
a socketteer loom, and the read-only sources adapters add — ends in a ``SessionManager`` whose
``source`` is a ``Source``. Screens and commands ask it (through the session controller, see
docs/architecture.md) instead of guessing from ``path is None`` or format names:

* ``can_append``: entries (labels, the persisted leaf) are appended to ``path`` (pi JSONL v3);
* ``labels``: where a label edit goes when nothing can be appended — ``"file"`` (appended),
  ``"memory"`` (kept in memory; with a ``saver`` it can be written back into the file as
  bookmarks), or ``"none"`` (refused, with ``read_only_reason``);
* ``read_only_reason``: why the origin cannot take appends, in words for the user;
* ``path``: the origin file (None for a session built in memory);
* ``document``: what the adapter kept of the original (for exports and saves); only the
  adapter that made it reads it;
* ``leaf_moves``: Enter moves the leaf (False for sources without a conversation leaf, such as
  an OCP run, where Enter opens what a row names; the header then names no leaf and the tree
  marks no active path, ``has_leaf``);
* ``filters``: filter modes the source adds beside pi's five: mode -> (footer tag, a function
  giving the entry ids the mode shows);
* ``missing_filter``: why this file lacks a mode that other files of its kind have, by mode (an
  OCP run without findings has no ``findings`` mode), or None: what ``--filter`` and the app's
  notice say instead of "unknown filter mode";
* ``describe``: a source that writes an entry's detail itself (Markdown by entry id, or None);
* ``label_store``: with ``labels == "store"``, the file of loomtui's own label store that keeps
  this read-only source's labels (another agent's session);
* ``opens``: what Enter on a row opens, the only way Enter opens something: a session of its
  own (an agent's subagent), or a ``Lookup`` for a file to find first (the agent session an
  OCP attempt names); None: nothing (Enter moves the leaf where ``leaf_moves``);
* ``enter_note``: what Enter on a row that opens nothing says, where the leaf does not move;
* ``bar_filters``: the source's modes the filter bar lists (None: those without a colon; the
  others, named by a model or harness, are listed only while chosen);
* ``commands``: the palette's commands of this source for the selected row (``SourceCommand``);
* ``parent``: the session this one is part of without being a fork of it (``ParentSession``: a
  Claude Code subagent run's session), which Ctrl+G opens where the header names no parent.

And how the app speaks of it, in its own words rather than pi's:

* ``name``: what the user calls it ("pi session", "OCP run");
* ``file_name``: what its file is, where the session is made of the file rather than being it
  (the loom map of one configuration file: "loom configuration file"); empty: ``name``. The
  HTML page's download of the file says it (``file_word``);
* ``actions``: which of ``PERSIST``, ``EXPORT``, ``LABEL`` and ``PI_FILTERS`` it offers (None:
  what ``can_append``, ``saver`` and ``labels`` allow); the footer, the palette and the key
  bindings show only those (``offers``);
* ``export_as`` / ``export_note``: what a branch export writes and what that file holds;
* ``keeps_times``: the entries' timestamps are the source's own times (False: a loom keeps none
  and they only order siblings; the detail, exports and comparisons show no time);
* ``keeps_usage``, ``keeps_cost``: the entries may carry pi's token usage, and with it its cost
  (False: the format has no such figure, an OCP run keeps its own; ``info``, ``diff`` and the
  compare screen show none, never a 0);
* ``keeps_cache_write``: the token usage has a cache-write figure (False: a Codex rollout counts
  cached input, a cache read, and no cache write; ``info`` and the detail pane leave it out);
* ``entry_time``: for a source that keeps no times in its entries (``keeps_times`` False), the
  time of an entry it knows otherwise, by id (an OCP run's or attempt's start), or None;
* ``resume_note``: what to resume instead, for a source no agent resumes and that has no branch
  to export as a pi session (an OCP run: the agent session an attempt names);
* ``leaf_rule``: how the leaf was chosen, in the source's words (``info`` prints it beside the
  leaf; a source whose leaf does not move has no leaf row);
* ``entry_words``: what its entries are, in its own words (``EntryWords``: ``info``'s entries
  block, ``context``'s headings); None: pi's entry types and message roles (a pi or omp file);
* ``file_usage``: the file's token totals where its rows do not carry them all (another tool's
  file whose inline subagent runs are one row each): ``{input, output, cacheRead, cacheWrite,
  responses}``, the figures ``info`` prints; None: the rows' usage, summed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from loomtui.session.entries import Entry
    from loomtui.session.manager import SessionManager

PI = "pi"
MEMORY = "memory"

#: Ctrl+S: persist the leaf for pi, or save a loom's labels into its file as bookmarks
PERSIST = "persist"
#: Ctrl+E: the branch ending at an entry into a new file
EXPORT = "export"
#: Shift+L: edit an entry's label (appended, kept in a store or in memory)
LABEL = "label"
#: pi's no-tools / user-only / labeled-only / all filters beside the source's own
PI_FILTERS = "pi-filters"


@dataclass(frozen=True, slots=True)
class SavedLabels:
    """What a label save wrote: how many labels changed, and the backup of the original."""

    changed: int
    backup: str | None


class LabelSaver(Protocol):
    """Writes in-memory labels back into a source's file (an OpenLoom's bookmarks)."""

    def pending(self, manager: SessionManager) -> int:
        """How many labels differ from the file."""
        ...

    def save(self, manager: SessionManager) -> SavedLabels:
        """Write them (an atomic rewrite keeping a backup); raise WriteConflict / WriteRefused /
        OSError when that cannot be done (nothing is written then)."""
        ...


@dataclass(frozen=True, slots=True)
class Lookup:
    """A file Enter opens once it is found (``Source.opens``): ``find`` looks for it in the
    directories the app lists sessions from and may be slow (the app runs it in a thread);
    ``known`` is the answer of an earlier look (``looked``), and ``found`` is told each answer.
    The texts are what the user reads meanwhile and after."""

    find: Callable[[Sequence[str]], str | None]
    found: Callable[[str | None], None]
    looking: str
    missing: str
    itself: str
    known: str | None = None
    looked: bool = False
    title: str = "Open session"


@dataclass(frozen=True, slots=True)
class ParentSession:
    """The session a source's session is part of without being a fork of it (``Source.parent``:
    a Claude Code subagent run belongs to the session whose call started it). ``ref`` names it
    (its id); ``find`` gives its file, or None when it is not found (it may read directories:
    call it off the UI thread); ``missing`` says so in the source's words; ``at`` is the entry to
    select in it (the row this run hangs under)."""

    ref: str
    find: Callable[[], str | None]
    missing: str
    at: str | None = None


@dataclass(frozen=True, slots=True)
class SourceCommand:
    """One palette command a source offers: ``build`` makes another session from this one (in a
    thread; it is shown on top, Esc returns), or ``enter`` names the row to do Enter on."""

    title: str
    help: str
    build: Callable[[], SessionManager] | None = None
    enter: str | None = None


class EntryKind(NamedTuple):
    """What one entry is, as its source calls it: the noun for one and for several ("user
    prompt", "user prompts"), and a finer kind counted beside it ("hook_progress"), if any."""

    one: str
    several: str
    part: str | None = None


def _no_heading(_message: dict[str, Any]) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class EntryWords:
    """A source's words for its entries (``Source.entry_words``): ``kind`` names an entry's
    skeleton for ``info``; ``heading`` names a message of ``context`` (pi's message object made
    from the entry), None where pi's role says it already (``user``, ``assistant``); ``hidden``
    says what the entries it maps to hidden custom messages (``display: false``) are, for the
    HTML page's toggle that shows them ("meta lines Claude Code …"; None: "hidden entries")."""

    kind: Callable[[Entry], EntryKind]
    heading: Callable[[dict[str, Any]], str | None] = _no_heading
    hidden: str | None = None


@dataclass(frozen=True, slots=True)
class Source:
    """Where a session came from and what loomtui may write back (see the module doc)."""

    kind: str
    path: str | None
    can_append: bool = False
    labels: str = "memory"
    read_only_reason: str | None = None
    saver: LabelSaver | None = None
    document: Any = None
    leaf_moves: bool = True
    filters: Mapping[str, tuple[str, Callable[[], Iterable[str]]]] | None = None
    missing_filter: Callable[[str], str | None] | None = None
    describe: Callable[[str], str | None] | None = None
    label_store: str | None = None
    opens: Callable[[str], SessionManager | Lookup | None] | None = None
    enter_note: str = ""
    bar_filters: tuple[str, ...] | None = None
    commands: Callable[[str | None], list[SourceCommand]] | None = None
    name: str = ""
    actions: frozenset[str] | None = None
    export_as: str = "a pi session"
    export_note: str = "the header's parentSession names this file"
    keeps_times: bool = True
    keeps_usage: bool = True
    keeps_cost: bool = True
    keeps_cache_write: bool = True
    leaf_rule: str = "last entry in the file"
    resume_note: str = ""
    entry_time: Callable[[str], str | None] | None = None
    #: where a branch export goes by default when not beside the file (a Claude Code subagent run:
    #: its session's project folder, where the tool lists and resumes sessions)
    export_home: str | None = None
    #: what the reader's diagnostics are, one and several (an OCP run's are findings about it)
    diagnostics_are: tuple[str, str] = ("line repaired or skipped", "lines repaired or skipped")
    entry_words: EntryWords | None = None
    parent: ParentSession | None = None
    #: what the header's ``cwd`` is, in the source's words (the loom map's: the directory it reads)
    cwd_word: str = "cwd"
    #: what the header's ``id`` is, in the source's words (an OCP run's: the run's id; empty: a
    #: made-up id that `info` leaves out)
    id_word: str = "session"
    #: what its file is, where the session is made of it (the module doc); empty: ``name``
    file_name: str = ""
    file_usage: Callable[[], Mapping[str, int]] | None = None

    @classmethod
    def pi_file(cls, path: str, version: int, current: int) -> Source:
        """A pi / omp JSONL file: appendable once it is at the current version."""
        if version < current:
            # a branch export only writes a new file, from the entries as migrated in memory
            reason = (
                f"a version {version} session: browsing and branch exports work, writes to it (labels, "
                f"persisting the leaf) need `loomtui migrate {path}` first (it keeps a .bak copy)"
            )
            return cls(
                PI,
                path,
                can_append=False,
                labels="none",
                read_only_reason=reason,
                name="pi session",
                actions=frozenset((PI_FILTERS, EXPORT)),
            )
        return cls(PI, path, can_append=True, labels="file", name="pi session")

    @classmethod
    def memory(cls, kind: str = MEMORY, path: str | None = None) -> Source:
        """Entries built in memory (tests, adapters without a way back): labels stay in memory."""
        return cls(kind, path)

    @property
    def is_pi_file(self) -> bool:
        return self.kind == PI and self.path is not None

    @property
    def can_save_labels(self) -> bool:
        """Labels kept in memory can be written back into the origin file."""
        return self.saver is not None and self.path is not None

    @property
    def has_leaf(self) -> bool:
        """The session is a conversation with a leaf: the header names it, the tree marks its path
        with pi's ``•``, and ``diff`` and compare count its turns, messages and tool calls. False
        where the leaf does not move (``leaf_moves``: an OCP run, the loom map), whose leaf only
        keeps the rows in the source's order (those figures are said to be not counted, never 0)."""
        return self.leaf_moves

    @property
    def can_label(self) -> bool:
        return self.labels != "none"

    @property
    def display_name(self) -> str:
        """What the user calls it ("pi session", "OCP run")."""
        return self.name or f"{self.kind} file"

    @property
    def file_word(self) -> str:
        """What its file is ("pi session", "loom configuration file"): ``file_name`` or the name."""
        return self.file_name or self.display_name

    def diagnostics_said(self, n: int) -> str:
        """``n`` diagnostics in this source's words ("2 lines repaired or skipped")."""
        one, several = self.diagnostics_are
        return f"{n:,} {one if n == 1 else several}"

    @property
    def a_name(self) -> str:
        """``display_name`` with its article ("an OCP run", "a pi session")."""
        name = self.display_name
        return f"{'an' if name[:1].lower() in 'aeio' else 'a'} {name}"

    @property
    def counts_cost(self) -> bool:
        """The entries may carry a cost (``keeps_cost``, and token usage to carry it)."""
        return self.keeps_usage and self.keeps_cost

    @property
    def export_refusal(self) -> str | None:
        """Why a branch export is refused (None: the source offers one), worded for a command
        line after the file's name ("run.ocp.json: an OCP run is not…"); the app makes it a
        sentence (``view/words.sentence``)."""
        if self.offers(EXPORT):
            return None
        if self.is_pi_file and self.read_only_reason:
            return self.read_only_reason
        return f"{self.a_name} is not a conversation: it has no branch to export"

    def offers(self, action: str) -> bool:
        """Whether this source has ``action`` (``PERSIST``, ``EXPORT``, ``LABEL``, ``PI_FILTERS``)."""
        if self.actions is not None:
            return action in self.actions
        if action == PERSIST:
            return self.can_append or self.can_save_labels
        if action == LABEL:
            return self.can_label
        return action in (EXPORT, PI_FILTERS)

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
  an OCP run, where Enter opens what a row names);
* ``filters``: filter modes the source adds beside pi's five: mode -> (footer tag, a function
  giving the entry ids the mode shows);
* ``describe``: a source that writes an entry's detail itself (Markdown by entry id, or None);
* ``label_store``: with ``labels == "store"``, the file of loomtui's own label store that keeps
  this read-only source's labels (Claude Code, Codex);
* ``opens``: a row that is a session of its own (a Claude Code subagent): Enter opens it.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from loomtui.session.manager import SessionManager

PI = "pi"
MEMORY = "memory"


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
    describe: Callable[[str], str | None] | None = None
    label_store: str | None = None
    opens: Callable[[str], SessionManager | None] | None = None

    @classmethod
    def pi_file(cls, path: str, version: int, current: int) -> Source:
        """A pi / omp JSONL file: appendable once it is at the current version."""
        if version < current:
            reason = (f"a version {version} session: browsing works, writes (labels, persisting the leaf) "
                      f"need `loomtui migrate {path}` first (it keeps a .bak copy)")
            return cls(PI, path, can_append=False, labels="none", read_only_reason=reason)
        return cls(PI, path, can_append=True, labels="file")

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
    def can_label(self) -> bool:
        return self.labels != "none"

"""The session controller: one open source, its tree model and its one leaf.

Screens send intents (move the leaf, persist it, label an entry, export a branch, take what
another writer appended, filter, search) and get back an ``Outcome``: what changed (rows, the
leaf, the detail, the whole session after a reload), the notices to show, a question to ask
before going on, a file written. Nothing here raises into the UI and nothing imports Textual;
every rule lives here once (docs/architecture.md, "Where each rule lives").

The leaf is the manager's (pi's in-memory leaf: where appends go, where pi would resume).
What the tree shows as the leaf is read from it: the manager's leaf, except that label
entries this controller appended count as their parent (pi's selector keeps its tree after a
label edit, while its session leaf is the new label entry).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from loomtui.session.entries import Entry
from loomtui.session.errors import LoomError, PartialLastLine, SessionFormatError, WriteConflict, WriteRefused
from loomtui.session.label_text import check_label, trim_label, unchanged_label
from loomtui.session.locations import export_dir
from loomtui.session.manager import SessionManager
from loomtui.session.resume_point import persist_resume_point
from loomtui.session.source import EXPORT, LABEL, PERSIST, PI, Lookup, Source
from loomtui.view import flat as F
from loomtui.view import session_header
from loomtui.view.archive_intent import ArchiveIntents
from loomtui.view.blocks import copy_text, message_copy_text
from loomtui.view.bookmark_saving import BookmarkSaving
from loomtui.view.file_end import ends_words, file_ends_at
from loomtui.view.model import TreeModel
from loomtui.view.omp import is_omp_session
from loomtui.view.outcomes import ExportPlan, LabelPrompt, Notice, Outcome, Question
from loomtui.view.parent_intent import ParentIntents
from loomtui.view.text import display_text
from loomtui.view.words import branch_copy, capital, clip, reloaded_words, sentence

T = TypeVar("T")

#: the columns of an entry's row a dialog shows (label, persist, export, archive): two or three
#: lines of a dialog, and less than a row whose text stopped at the reader's cap (200)
PREVIEW_WIDTH = 150

#: opens a path as a session (``formats.opening.open_session``: the formats layer knows them all)
Opener = Callable[..., SessionManager]


class SessionController(BookmarkSaving, ArchiveIntents, ParentIntents):
    """One open session: its manager (and source), its ``TreeModel`` and its leaf."""

    def __init__(
        self,
        manager: SessionManager,
        model: TreeModel | None = None,
        *,
        opener: Opener | None = None,
        flattener: F.Flattener | None = None,
        filter_mode: str = "default",
        page_size: int = 20,
        key_names: dict[str, str] | None = None,
    ) -> None:
        self.manager = manager
        if model is None:
            model = TreeModel(manager, filter_mode=filter_mode, page_size=page_size, flattener=flattener)
        self.model = model
        self._opener, self._flattener = opener, flattener  # how a reload reads the file again
        #: how the user reaches an action ("persist": "Ctrl+S"), for notices
        keys = {
            "persist": "Ctrl+S",
            "export": "Ctrl+E",
            "archive": "Alt+A",
            "show-archived": "Alt+R",
            "filters": "Ctrl+O",
            "label": "Alt+L",
        }
        self.key_names = {**keys, **(key_names or {})}
        #: ids of label entries this controller appended (the shown leaf is their parent)
        self._own_writes: set[str] = set()
        self._agent: str | None = None
        self._known_entries = len(manager.index.entries)
        self._known_diagnostics = len(manager.diagnostics)

    @classmethod
    def open(
        cls,
        path: str,
        opener: Opener,
        *,
        flattener: F.Flattener | None = None,
        filter_mode: str = "default",
        page_size: int = 20,
    ) -> SessionController:
        """Read ``path`` (raises what the opener raises: the screen shows an error page)."""
        return cls(opener(path), opener=opener, flattener=flattener, filter_mode=filter_mode, page_size=page_size)

    # queries ------------------------------------------------------------------------------
    @property
    def source(self) -> Source:
        return self.manager.source

    @property
    def path(self) -> str | None:
        return self.source.path

    @property
    def view_leaf(self) -> str | None:
        """The leaf the tree shows: the manager's, with own label entries read as their parent."""
        by_id = self.manager.index.by_id
        leaf = self.manager.get_leaf_id()
        while leaf in self._own_writes:
            e = by_id.get(leaf)
            if e is None or e.type != "label":
                break
            leaf = e.parent_id
        return leaf

    @property
    def shown_leaf(self) -> str | None:
        """The leaf as the header, the palette and Ctrl+S name it, the same in every filter:
        where pi resumes (``TreeModel.shown_leaf_id``). A label or settings entry written last
        is not named (pi's default /tree hides it): its nearest ancestor the default filter
        shows is, with the same context."""
        return self.model.shown_leaf_id()

    @property
    def leaf_moved(self) -> bool:
        """The user moved the leaf: appends by other writers no longer move it (pi)."""
        return self.manager.leaf_moved

    @property
    def selected(self) -> Entry | None:
        return self.model.selected_entry

    def entry(self, entry_id: str | None) -> Entry | None:
        return self.manager.index.by_id.get(entry_id) if entry_id is not None else None

    def row_text(self, e: Entry) -> str:
        return display_text(e, self.model.flat.tool_calls)

    def preview(self, e: Entry) -> str:
        """The entry's row as a dialog shows it: cut at a word with "…" (a row's text may
        itself stop mid-word, at the reader's cap)."""
        return clip(self.row_text(e), PREVIEW_WIDTH)

    def title_parts(self, shown_path: str) -> list[str]:
        """The header bar's parts (``view/session_header.py``)."""
        return self.header(shown_path).parts()

    def header(self, shown_path: str) -> session_header.Header:
        """The header bar, laid out by width (``Header.fit``)."""
        return session_header.header(
            self.manager, self.source, shown_path, self.shown_leaf, self.leaf_moved, self.model.leaf_id
        )

    def opening_notices(self, diagnostics_key: str = "") -> list[Notice]:
        """What is said once when the session opens (``view/session_header.py``)."""
        return session_header.opening_notices(self.manager, self.source, diagnostics_key)

    # filter and search ----------------------------------------------------------------------
    def set_filter(self, mode: str) -> Outcome:
        if not self.model.has_mode(mode):
            return self._no_such_filter(mode)
        self.model.set_filter(mode)
        return Outcome(rows=True)

    def toggle_filter(self, mode: str) -> Outcome:
        if not self.model.has_mode(mode):
            return self._no_such_filter(mode)
        self.model.toggle_filter(mode)
        return Outcome(rows=True)

    def _no_such_filter(self, mode: str) -> Outcome:
        """A filter key of pi's on a source without pi's filters (an OCP run, the loom map) says so."""
        modes = self.model.modes
        if len(modes) == 1:  # the loom map: the default view alone
            return Outcome().note(f"{capital(self.source.a_name)} has no {mode} filter, only the default view.")
        own = ", ".join(modes[:4]) + (", …" if len(modes) > 4 else "")
        cycles = f"{self.key_names['filters']} cycles its own ({own})"
        return Outcome().note(f"{capital(self.source.a_name)} has no {mode} filter; {cycles}.")

    def cycle_filter(self, step: int) -> Outcome:
        self.model.cycle_filter(step)
        return Outcome(rows=True)

    def set_query(self, query: str) -> Outcome:
        self.model.set_query(query)
        return Outcome(rows=True)

    def escape(self) -> Outcome | None:
        """pi's Esc: clear the search, else the folds; None when there was nothing to clear."""
        model = self.model
        if model.clear_query():
            return Outcome(rows=True)
        if model.folded:
            model.set_filter(model.mode)  # every filter change resets folds (pi)
            return Outcome(rows=True)
        return None

    # the leaf ---------------------------------------------------------------------------------
    def move_leaf(self, entry_id: str) -> Outcome:
        """Enter: what the source opens for the row (``Source.opens``: a subagent, a file an OCP
        attempt names), else pi's navigateTree without a summary: a user message or a
        custom_message moves the leaf to its parent (a root one resets it), anything else to
        itself. In memory only."""
        return self._guard("Move the leaf", lambda: self._move_leaf(entry_id))

    def _move_leaf(self, entry_id: str) -> Outcome:
        e = self.entry(entry_id)
        if e is None:
            return Outcome().note(f"Entry {entry_id} is not in this session.", severity="warning")
        opens = self.source.opens  # the only way Enter opens something (docs/architecture.md)
        opened = opens(e.id) if opens is not None else None
        if isinstance(opened, Lookup):  # a file the row names, to be found first
            return Outcome(lookup=opened)
        if opened is not None:  # a row that is a session of its own: open it instead
            return Outcome(session=opened)
        if not self.source.leaf_moves:  # rows without a conversation leaf (an OCP run, the loom map)
            src = self.source
            if src.enter_note:
                return Outcome().note(src.enter_note, title="Open session", timeout=4)
            return Outcome().note(
                f"Enter opens nothing in {src.a_name}: no row names a session, and there is no leaf to move; "
                "the detail pane shows the selected row.",
                timeout=5,
            )
        if e.id == self.model.leaf_id:
            return Outcome().note("Already at this point.", timeout=3)
        if (e.type == "message" and e.role == "user") or e.type == "custom_message":
            parent = self.manager.index.parent_of(e)
            new_leaf = parent.id if parent is not None else None
        else:
            new_leaf = e.id
        if new_leaf is None:
            self.manager.reset_leaf()
        else:
            self.manager.branch(new_leaf)
        self.model.set_leaf(self.view_leaf)
        self.model.select_id(e.id)
        out = Outcome(rows=True, leaf=True, detail=True)
        if self.source.kind != PI:  # the same move, without pi's editor: the branch ends before it
            if new_leaf is None:
                return out.note("Leaf reset: before the first entry.")
            before = ", the parent of this message: the branch now ends before it" if new_leaf != e.id else ""
            return out.note(f"Leaf moved to {new_leaf}{before}. {self._leaf_hint()}".rstrip())
        if new_leaf is None:
            return out.note(f"Leaf reset: before the first entry ({self.agent}: re-editing the first message).")
        if new_leaf != e.id:
            return out.note(f"Leaf moved to {new_leaf}, the parent of this message ({self.agent}: re-edit it).")
        return out.note(f"Leaf moved to {new_leaf}. {self._leaf_hint()}".rstrip())

    @property
    def agent(self) -> str:
        """Who resumes a pi-format file, in the notices: "omp" for a session oh-my-pi wrote (its
        title slot, its folder, its own entry kinds), else "pi"."""
        if self._agent is None:
            m = self.manager
            self._agent = "omp" if is_omp_session(m.title, m.path, m.index.entries) else "pi"
        return self._agent

    def _leaf_hint(self) -> str:
        """What a moved leaf can become, in this source's words."""
        src = self.source
        if src.can_append and src.offers(PERSIST):
            return f"{self.key_names['persist']} persists it for {self.agent}."
        if not src.offers(EXPORT):
            return ""
        export = f"{self.key_names['export']} exports the branch ending here as {src.export_as}."
        if src.saver is not None:
            return f"The leaf stays in loomtui; {export}"
        return f"loomtui never writes {src.a_name}; {export}"

    def follow_file_leaf(self) -> Outcome:
        """Undo Enter: the leaf follows the file's last entry again."""
        last = self.manager.index.leaf_id
        if last is not None:
            self.manager.branch(last)
        self.model.set_leaf(self.view_leaf)
        return Outcome(rows=True, leaf=True)

    # persisting the leaf -----------------------------------------------------------------------
    def persist_leaf(self) -> Outcome:
        """Ctrl+S: ask to append one no-op label entry parented on the leaf, so that pi (which
        resumes at the file's last entry) resumes here. Never a ``parentId: null`` entry. On a
        loom whose labels can go back to its file, offer that instead."""
        src, manager = self.source, self.manager
        leaf = self.model.leaf_id
        not_done = "Persist the leaf: not done"
        if not src.can_append:
            if src.can_save_labels and self.pending_labels():
                return self.offer_label_save()
            if src.is_pi_file:
                return Outcome().note(sentence(str(src.read_only_reason)), not_done, "warning", 8)
            return Outcome().note(self._not_persisted(), not_done, "warning", 8)
        if leaf is None:
            return Outcome().note(
                f"The leaf is before the first entry. {self.agent} could only resume there from an entry with "
                "parentId null, which loomtui never writes. Move the leaf to an entry first.",
                not_done,
                "warning",
                8,
            )
        e = self.entry(leaf)
        shown = self.shown_leaf or leaf  # the header's and the palette's leaf
        ends = file_ends_at(manager, leaf)  # the one rule, resume's too
        if ends is not None:
            # what the file ends with after the header's leaf (a label or settings entry), said beside it
            after = file_ends_at(manager, shown)
            return Outcome().note(
                f"{self.agent} already resumes at {shown}: the file ends there"
                f"{ends_words(ends if after is None else after)}. Nothing written."
            )
        if e is None:
            return Outcome()
        unshown = shown != leaf  # the leaf the default filter does not show
        label = manager.get_label(leaf)
        what = f"re-stating its label [{label}]" if label is not None else "without a label"
        on = f"{leaf} (after the leaf {shown}; the default filter does not show {leaf})" if unshown else leaf
        body = (
            f"Append one label entry parented on {on}\n  {self.preview(e)}\n{what}, so that {self.agent} "
            f"resumes the session there. {self.agent} leaves label entries out of the model's context and /tree "
            "hides them, so nothing else changes."
        )
        return Outcome(
            ask=Question(
                "Persist the leaf?",
                body,
                "Append",
                lambda: self._guard("Persist the leaf", lambda: self._persist(leaf)),
            )
        )

    def _not_persisted(self) -> str:
        """Why Ctrl+S writes nothing on a source that is not a pi file, in its own words: a loom
        saves bookmarks (there are none to save), another agent's file is never written, rows
        without a conversation leaf have none to persist."""
        src, keys = self.source, self.key_names
        export = f"{keys['export']} exports the branch ending here as {src.export_as}." if src.offers(EXPORT) else ""
        if src.can_save_labels:
            return (
                f"No bookmarks to save: no label differs from the file ({keys['label']} labels an entry). "
                f"The leaf stays in loomtui; {export}"
            ).rstrip()
        if not src.leaf_moves:
            return f"Persisting the leaf is not offered: {src.a_name} has no conversation leaf."
        return f"Persisting the leaf is not offered: loomtui never writes {src.a_name}. {export}".rstrip()

    def _persist(self, leaf: str) -> Outcome:
        new_id = persist_resume_point(self.manager, leaf)  # the one path (loomtui resume too)
        self._own_writes.add(new_id)
        out = self._sync(detail=True)
        return out.note(f"Leaf persisted: {self.agent} resumes at {leaf} (label entry {new_id}).")

    # labels -----------------------------------------------------------------------------------
    def label_refusal(self) -> Outcome | None:
        """Alt+L where the source offers no label (``Source.offers``: a version 1 pi file, whose
        labels need a migration first): the one notice saying why, instead of a dialog whose
        label cannot be saved. None: labels are offered."""
        src = self.source
        if src.offers(LABEL):
            return None
        why = src.read_only_reason or f"{src.a_name} keeps no labels"
        return Outcome().note(sentence(why), "Label: not done", "warning", 8)

    def label_prompt(self, entry_id: str) -> LabelPrompt | None:
        """What the label dialog needs (None: no such entry)."""
        e = self.entry(entry_id)
        if e is None:
            return None
        current = self.manager.get_label(e.id)
        refusal = self.manager.append_refusal()
        if self.source.label_store is not None:
            note = f"Kept in loomtui's label store ({self.source.label_store}); the session file is never written."
        elif self.source.saver is not None:
            note = "Kept in memory; the loom file takes it as a bookmark only if you save."
        elif not self.source.can_append:
            note = f"Kept in memory only: loomtui never writes {self.source.a_name}."
        else:
            moved = (
                f" The moved leaf is not saved ({self.key_names['persist']} persists it)." if self.leaf_moved else ""
            )
            note = (
                f"Saved now: one label entry after the file's last entry ({self.manager.index.leaf_id}); "
                f"{self.agent} still resumes where it did.{moved}"
            )
        return LabelPrompt(e.id, self.preview(e), None if current is None else str(current), note, refusal)

    def set_label(self, entry_id: str, value: str | None) -> Outcome:
        """Set (text) or clear (empty / None) the label of ``entry_id``: a label entry appended
        after the file's last entry (so where pi resumes does not move), or kept in memory on a
        loom (with an offer to save it into the file)."""
        return self._guard("Label", lambda: self._set_label(entry_id, value))

    def _set_label(self, entry_id: str, value: str | None) -> Outcome:
        e = self.entry(entry_id)
        if e is None:
            raise LoomError(f"entry {entry_id} not found")
        refusal = self.manager.append_refusal()
        if refusal:
            raise WriteRefused(refusal)
        current = self.manager.get_label(e.id)
        label = trim_label(value)
        unchanged = unchanged_label(e.id, current, label)
        if unchanged is not None:
            return Outcome().note(f"{unchanged}.", timeout=3)  # an id is never capitalised
        if label is not None:
            check_label(label)  # the `label` command's rule: one line of printable text
        # parented on the file's last entry: pi resumes where it did; a moved leaf stays moved
        try:
            new_id = self.manager.append_label_keeping_resume(e.id, label)
        except PartialLastLine as exc:  # the dialog is closed: the notice keeps what was typed
            wanted = f"Label [{label}] on {e.id} not set" if label else f"Label of {e.id} not cleared"
            raise PartialLastLine(f"{wanted}: {exc}") from None
        what = f"Label {'set: ' + label if label else 'cleared'} on {e.id}"
        if self.source.label_store is not None:
            # a read-only source: the label is in loomtui's store, no entry was added
            self.model.set_leaf(self.model.leaf_id)
            return Outcome(rows=True, detail=True).note(
                f"{what} (kept in {self.source.label_store}; the session file is not touched)."
            )
        self._own_writes.add(new_id)
        out = self._sync(detail=True)
        if self.source.can_save_labels:
            more = self.offer_label_save(what)
            more.rows, more.detail = True, True
            return more
        if self.source.can_append:
            return out.note(f"{what} (label entry {new_id}).")
        return out.note(f"{what} (in memory only: loomtui never writes {self.source.a_name}).")

    # export ------------------------------------------------------------------------------------
    def export_plan(self, entry_id: str) -> ExportPlan | Outcome:
        src = self.source
        why = src.export_refusal
        if why is not None:
            return Outcome().note(sentence(why), "Export: not done", "warning", 8)

        def plan() -> ExportPlan:
            e = self.entry(entry_id)
            if e is None:
                raise LoomError(f"entry {entry_id} not found")
            kept, after = self.manager.branch_entries(e.id)
            labels = sum(1 for x in after if x.get("type") == "label")
            header = self.manager.header if isinstance(self.manager.header, dict) else {}
            # next to the file, but never into the bundled samples (the install)
            return ExportPlan(
                e.id,
                self.preview(e),
                len(kept),
                labels,
                export_dir(self.source.path, header.get("cwd"), self.source.export_home),
                src.export_as,
                src.export_note,
                named=len(after) > labels,
            )

        return self._guard("Export", plan)

    def export_branch(self, entry_id: str, dest: str) -> Outcome:
        """The branch ending at ``entry_id`` into a new pi session file: ``dest`` is a directory,
        or a path ending in ``.jsonl``. Refused (a notice) when ``dest`` is neither."""
        return self._guard("Export", lambda: self._export(entry_id, dest))

    def _export(self, entry_id: str, dest: str) -> Outcome:
        manager = self.manager
        header = manager.header if isinstance(manager.header, dict) else {}
        if dest == export_dir(self.source.path, header.get("cwd"), self.source.export_home) and not os.path.exists(
            dest
        ):
            os.makedirs(dest, exist_ok=True)  # pi's session directory of the project
        if dest.endswith(".jsonl"):
            parent = os.path.dirname(os.path.abspath(dest))
            if not os.path.isdir(parent):
                raise LoomError(f"{parent} is not a directory")
            path = manager.create_branched_session(entry_id, out=dest)
        else:
            if not os.path.isdir(dest):
                raise LoomError(f"{dest} is not a directory (end the path in .jsonl to name a file)")
            path = manager.create_branched_session(entry_id, dir=dest)
        kept, after = manager.branch_entries(entry_id)
        labels = sum(1 for x in after if x.get("type") == "label")
        what = branch_copy(len(kept), labels, len(after) > labels)
        return Outcome(path=path).note(f"Exported {what} to {path}", "Branch exported", timeout=10)

    def message_copy_text(self, entry_id: str) -> str | None:
        """What pi's /tree copy (Ctrl+X) takes from the entry; None: it has no text to copy."""
        full = self.manager.get_entry(entry_id)
        return message_copy_text(full) if full is not None else None

    def copy_text(self, entry_id: str) -> str:
        """What Ctrl+Y copies: any entry's text (a tool call's arguments, a custom entry's data)."""
        full = self.manager.get_entry(entry_id)
        return copy_text(full) if full is not None else ""

    # live follow ---------------------------------------------------------------------------------
    def apply_appended(self) -> Outcome:
        """Index what another writer appended and update the model in place. Selection, filter,
        search and folds are kept; the leaf follows the file's last entry unless the user moved
        it. A rewritten or truncated file is reloaded."""
        try:
            self.manager.refresh()
        except (WriteConflict, FileNotFoundError, SessionFormatError) as exc:
            path = self.path
            if path is not None and os.path.exists(path):
                return self._reload_changed(path, getattr(exc, "change", ""))
            return Outcome().note(f"{path} is gone; showing what was loaded.", severity="warning", timeout=8)
        except Exception as exc:
            return Outcome(error=exc).note(f"Could not read the new lines: {exc}", severity="error", timeout=8)
        known, self._known_diagnostics = self._known_diagnostics, len(self.manager.diagnostics)
        if len(self.manager.index.entries) == self._known_entries:  # nothing, or lines the reader skipped
            return Outcome(bars=self._known_diagnostics != known)  # the header counts them
        model = self.model
        before = model.selected_id
        out = self._sync()
        sel = model.selected_entry
        out.detail = sel is not None and (sel.id != before or (sel.type == "message" and sel.role == "assistant"))
        return out

    def _reload_changed(self, path: str, change: str) -> Outcome:
        """Live follow found the file rewritten under it (``change``: how, if known): reload it
        and say so, with what is in it now and whether the selected entry went with the change."""
        before = self.model.selected_id
        out = self.reload()
        if out.replaced:  # otherwise the reload itself failed, and its notice says why
            lost = before if before is not None and before not in self.manager.index.by_id else None
            text = reloaded_words(
                os.path.basename(path), change, self.manager.entry_count, lost, self.model.selected_id
            )
            out.note(text, severity="warning", timeout=6)
        return out

    def reload(self, message: str | None = None) -> Outcome:
        """Re-read the file (it was rewritten): keep the filter, search, selection, label times and a moved leaf."""
        path = self.path
        if self._opener is None or path is None:
            return Outcome().note("This session was not read from a file; nothing to reload.", severity="warning")
        old = self.model
        moved_to = old.leaf_id if self.leaf_moved else None
        try:
            manager = self._opener(path)
        except Exception as exc:
            return Outcome().note(f"Could not reload {path}: {exc}", severity="error", timeout=10)
        if moved_to is not None and moved_to in manager.index.by_id:
            manager.branch(moved_to)
        model = TreeModel(manager, filter_mode=old.mode, page_size=old.page_size, flattener=self._flattener)
        if old.query:
            model.set_query(old.query)
        if old.show_label_times:
            model.toggle_label_times()
        if old.selected_id is not None:
            model.select_id(old.selected_id)
        self.manager, self.model = manager, model
        self._own_writes.clear()
        self._known_entries = len(manager.index.entries)
        self._known_diagnostics = len(manager.diagnostics)
        out = Outcome(replaced=True, rows=True, detail=True)
        return out.note(message, severity="warning", timeout=6) if message else out

    # internals ---------------------------------------------------------------------------------
    def _sync(self, *, detail: bool = False) -> Outcome:
        """Give the model every entry indexed since the last sync, and the leaf."""
        entries = self.manager.index.entries
        fresh = entries[self._known_entries :]
        self._known_entries = len(entries)
        leaf = self.view_leaf
        self.model.entries_changed(fresh, leaf_id=leaf)
        if leaf is None and self.model.leaf_id is not None:
            self.model.set_leaf(None)
        return Outcome(rows=True, detail=detail)

    def _guard(self, what: str, fn: Callable[[], T]) -> T | Outcome:
        """Run an intent; a failure becomes a notice (nothing in memory is lost)."""
        try:
            result = fn()
        except PartialLastLine as exc:
            # the agent is still writing its last line: nothing on disk to reload, and the same
            # action works once that line has its newline
            return Outcome().note(sentence(str(exc)), f"{what}: not done", "warning", 10)
        except WriteConflict as exc:
            # the file was rewritten or replaced underneath: nothing was written; show what is on
            # disk now (filter, search, selection and a moved leaf are kept)
            path = self.path
            out = self.reload() if path is not None and os.path.exists(path) else Outcome()
            out.notices.insert(
                0,
                Notice(
                    f"{exc}. Nothing was written; the file was reloaded, try again.", f"{what}: not done", "error", 10
                ),
            )
            return out
        except (LoomError, OSError) as exc:
            return Outcome().note(str(exc), f"{what}: not done", "error", 10)
        except Exception as exc:  # never a traceback on screen
            return Outcome(error=exc).note(f"{type(exc).__name__}: {exc}", f"{what}: internal error", "error", 10)
        return result

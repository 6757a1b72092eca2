"""The /tree state machine: filter mode, search, folds, selection and navigation (docs/formats.md §9.3, §9.6).

``TreeModel`` behaves like pi's ``TreeList``: every filter, search and Esc-clear resets folds;
the selection survives refilters (same entry or its nearest visible ancestor, else the last
row); ↑/↓ wrap; paging clamps; Ctrl+←/→ fold or jump between branch segments. Rows are kept
as flat arrays (``layout.Layout``) and turned into text only when drawn.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress, repeat
from operator import contains
from typing import Any

from loomtui.session.entries import Entry
from loomtui.session.jsstr import js_split_ws, js_string
from loomtui.session.locations import home_dir
from loomtui.session.manager import SessionManager
from loomtui.session.memory import bulk_allocation
from loomtui.session.source import PI_FILTERS
from loomtui.view import flat as F
from loomtui.view import layout as L
from loomtui.view import omp
from loomtui.view.archive import ArchiveState, drop_archived, is_record
from loomtui.view.compact import compact_prefix
from loomtui.view.file_end import marked_leaf
from loomtui.view.filter_modes import FILTER_MODES, FILTER_TAGS
from loomtui.view.loom_state import ARCHIVED_TAG, MARK, LoomState
from loomtui.view.plain_rows import marked_path, plain_rows
from loomtui.view.printable import printable
from loomtui.view.text import Segment, display_segments, format_label_time, search_text


class TreeModel(LoomState):
    """What the tree view shows for one session, and how keys change it."""

    def __init__(
        self,
        manager: SessionManager,
        *,
        leaf_id: str | None = None,
        use_manager_leaf: bool = True,
        filter_mode: str = "default",
        page_size: int = 20,
        home: str | None = None,
        flattener: F.Flattener | None = None,
    ) -> None:
        self.manager = manager
        #: the loading flatten: the opener's may reuse a tree kept from an earlier open
        self._flattener = flattener
        self.index = manager.index
        self.leaf_id = manager.get_leaf_id() if use_manager_leaf and leaf_id is None else leaf_id
        #: modes the source adds (an OCP run: failed, …): mode -> (tag, ids function), as given
        self.extra_filters: Mapping[str, tuple[str, Any]] = manager.source.filters or {}
        self._extra_ids: dict[str, frozenset[str]] = {}
        #: pi's four filters beside default (an OCP run has its own instead)
        self.pi_filters = manager.source.offers(PI_FILTERS)
        self.mode = filter_mode if self.has_mode(filter_mode) else "default"
        self.query = ""
        self.folded: set[str] = set()
        self.page_size = max(1, page_size)
        self.show_label_times = False
        #: compact indentation (view/compact.py): deep rows show their indentation as a number
        self.compact = False
        self.home = home_dir() if home is None else home
        self.selected = 0
        self._last_selected_id: str | None = None
        self._search: list[str | None] = []
        self._flat_texts: tuple[F.Flat, list[str]] | None = None
        self._layouts: OrderedDict[tuple[Any, ...], L.Layout] = OrderedDict()
        self._matches: tuple[tuple[str, str | None, int, tuple[str, ...]], list[int]] | None = None
        self._classes = bytearray()  # every entry's visibility class (made while flattening)
        #: an omp session follows omp's filters and fuzzy search (view/omp.py)
        self.omp = omp.is_omp_session(manager.title, manager.path, manager.index.entries)
        self._settings = omp.filter_kinds(manager.load) if self.omp else F.SETTINGS_TYPES
        self._omp_search: dict[str, omp.SearchIndex] = {}
        self._tool_calls: tuple[int, dict[Any, tuple[Any, Any]] | None] | None = None
        #: loom tools: the hoisted entry, archived subtrees (hidden unless ``show_archived``), the mark
        self.hoist_id: str | None = None
        self.show_archived = False
        self.archive = ArchiveState(manager)
        self.marked_id: str | None = None
        #: flattened while loading and not kept yet: the opener keeps it once painted
        self.unsaved_flat: F.Flat | None = None
        #: each entry's row text by file index for this flat and ``home``, as the opener kept or made them (None where the row writes its own)
        self.row_texts: list[str | None] | None = None
        self.flat = self._flatten(freeze=True)  # part of loading the session
        self.rows = L.Layout()
        self._apply_filter()
        self.selected = self._nearest_visible(self.leaf_id)
        self._remember()

    # queries ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.rows)

    @property
    def modes(self) -> tuple[str, ...]:
        return (FILTER_MODES if self.pi_filters else ("default",)) + tuple(self.extra_filters)

    def has_mode(self, mode: str) -> bool:
        """``mode`` is one of ``modes`` (without making a run's per-model modes)."""
        if mode in FILTER_TAGS:
            return mode == "default" or self.pi_filters
        return mode in self.extra_filters

    def entry_at(self, i: int) -> Entry:
        return self.flat.entries[self.rows.position(i)]

    @property
    def selected_entry(self) -> Entry | None:
        return self.entry_at(self.selected) if len(self.rows) else None

    @property
    def selected_id(self) -> str | None:
        return None if (e := self.selected_entry) is None else e.id

    def row_of(self, entry_id: str) -> int | None:
        """The row showing ``entry_id``, if it is visible."""
        p = self.flat.position(entry_id)
        return None if p is None else self.rows.find_row(p)

    def label(self, entry_id: str) -> Any:
        return self.index.label_of(entry_id)

    def footer(self) -> str:
        tag = FILTER_TAGS[self.mode] if self.mode in FILTER_TAGS else self.extra_filters[self.mode][0]
        tags = tag + (" [+label time]" if self.show_label_times else "")
        if self.hoist_id is not None:
            tags += " [hoisted]"
        if self.show_archived and self.archive.ids():
            tags += " [+archived]"
        if not len(self.rows):
            return f"  (0/0){tags}"
        return f"  ({self.selected + 1}/{len(self.rows)}){tags}"

    def row_segments(self, i: int, *, cursor: bool = True, max_cols: int | None = None) -> list[Segment]:
        """Row ``i`` as pi draws it: cursor, prefix, fold marker, •, [label], time, text."""
        lay = self.rows
        e = self.entry_at(i)
        segs: list[Segment] = []
        if cursor:
            segs.append(("accent", "› ") if i == self.selected else ("text", "  "))
        folded = e.id in self.folded
        if self.compact and max_cols is not None:
            pre = compact_prefix(lay, i, folded, max_cols)
        else:
            pre = L.prefix(lay, i, folded, max_cols)
        if pre:
            segs.append(("dim", pre))
        if folded and not (lay.connector[i] and not lay.virtual_root_child[i]):
            segs.append(("accent", "⊞ "))
        if e.id == self.marked_id:
            segs.append(("warning", MARK))
        if e in marked_path(self):
            segs.append(("accent", "• "))
        if self.show_archived and e.id in self.archive.ids():
            segs.append(("muted", ARCHIVED_TAG))
        label = self.label(e.id)
        if label is not None:
            segs.append(("warning", f"[{js_string(label)}] "))
            if self.show_label_times:
                ts = self.index.label_timestamp(e.id)
                if ts:
                    segs.append(("muted", format_label_time(ts) + " "))
        segs.extend(display_segments(e, self.flat.tool_calls, self.home))
        return [(style, printable(text)) for style, text in segs]

    def row_text(self, i: int, *, cursor: bool = True) -> str:
        return "".join(s for _style, s in self.row_segments(i, cursor=cursor))

    def row_line(self, i: int, width: int) -> str:
        """Row ``i`` as plain text cut to ``width`` columns (what `loomtui tree` prints)."""
        return next(self.plain_rows(width, i, i + 1))

    def plain_rows(self, width: int, start: int = 0, stop: int | None = None, shift: int = 0) -> Iterator[str]:
        """Rows ``start..stop`` as ``row_line`` gives them, in order: the bulk path of
        `loomtui tree` (``view/plain_rows.py``); ``shift``: panned left (``view/pan.py``)."""
        return plain_rows(self, width, start, stop, shift)

    def lines(self) -> list[str]:
        """Every row plus the footer, as pi's list renders them (uncut)."""
        if not len(self.rows):
            return ["  No entries found", self.footer()]
        return [self.row_text(i) for i in range(len(self.rows))] + [self.footer()]

    # filters and search -------------------------------------------------------------------
    def set_filter(self, mode: str) -> None:
        if not self.has_mode(mode):
            raise ValueError(f"unknown filter mode {mode!r}; use one of {', '.join(self.modes)}")
        self.mode = mode
        self.folded.clear()
        self._refilter()

    def toggle_filter(self, mode: str) -> None:
        """Ctrl+T/U/L/A: the mode, or back to default when it is already on."""
        self.set_filter("default" if self.mode == mode else mode)

    def cycle_filter(self, step: int = 1) -> None:
        modes = self.modes
        self.set_filter(modes[(modes.index(self.mode) + step) % len(modes)])

    def set_query(self, query: str) -> None:
        self.query = query
        self.folded.clear()
        self._refilter()

    def type_text(self, text: str) -> None:
        """Printable keys append to the query, one refilter per character (as pi does)."""
        for ch in text:
            if ord(ch) < 32 or ord(ch) == 0x7F or 0x80 <= ord(ch) <= 0x9F:
                continue
            self.set_query(self.query + ch)

    def backspace(self) -> None:
        if self.query:
            self.set_query(self.query[:-1])

    def clear_query(self) -> bool:
        """Esc: clear the search (and folds); False when there was none (the caller closes)."""
        if not self.query:
            return False
        self.set_query("")
        return True

    def toggle_label_times(self) -> None:
        self.show_label_times = not self.show_label_times

    # navigation ---------------------------------------------------------------------------
    def move(self, step: int) -> None:
        n = len(self.rows)
        if n:
            if step < 0:
                self.selected = n - 1 if self.selected == 0 else self.selected - 1
            else:
                self.selected = 0 if self.selected == n - 1 else self.selected + 1
            self._remember()

    def page(self, step: int) -> None:
        n = len(self.rows)
        if n:
            if step < 0:
                self.selected = max(0, self.selected - self.page_size)
            else:
                self.selected = min(n - 1, self.selected + self.page_size)
            self._remember()

    def home_key(self) -> None:
        self.select_row(0)

    def end_key(self) -> None:
        self.select_row(len(self.rows) - 1)

    def select_row(self, i: int) -> None:
        if len(self.rows):
            self.selected = max(0, min(len(self.rows) - 1, i))
            self._remember()

    def select_id(self, entry_id: str) -> None:
        """Select ``entry_id`` or its nearest visible ancestor."""
        self.selected = self._nearest_visible(entry_id)
        self._remember()

    def fold_or_up(self) -> None:
        """Ctrl+← / Alt+←: fold a foldable row, else jump to the previous segment start."""
        if not len(self.rows):
            return
        i = self.selected
        e = self.entry_at(i)
        if self.rows.is_foldable(i) and e.id not in self.folded:
            self.folded.add(e.id)
            self._refilter()
        else:
            self.selected = self._segment_start_up(i)
            self._remember()

    def unfold_or_down(self) -> None:
        """Ctrl+→ / Alt+→: unfold a folded row, else jump down to the next segment start."""
        if not len(self.rows):
            return
        i = self.selected
        e = self.entry_at(i)
        if e.id in self.folded:
            self.folded.discard(e.id)
            self._refilter()
        else:
            self.selected = self._segment_start_down(i)
            self._remember()

    def _segment_start_down(self, i: int) -> int:
        lay = self.rows
        cur = i
        while True:
            kids = lay.kids[cur]
            if kids == 0:
                return cur
            first = cur + 1  # pre-order: the first visible child follows its parent
            if kids > 1:
                return first
            cur = first

    def _segment_start_up(self, i: int) -> int:
        lay = self.rows
        cur = i
        while True:
            p = lay.parent_row(cur)
            if p < 0:
                return cur
            if lay.kids[p] > 1 and cur < self.selected:
                return cur
            cur = p

    # leaf ---------------------------------------------------------------------------------
    def shown_leaf_id(self) -> str | None:
        """Where pi resumes, in the default filter's rows whatever the filter: the leaf, or, when
        that filter hides it (a label or settings entry written last), its nearest ancestor the
        filter shows. The header, the palette and Ctrl+S name it (in the user-only filter the
        tree marks the leaf's nearest user message, where pi does not resume)."""
        flat = self.flat

        def class_of(e: Entry) -> int:
            p = flat.position(e.id)
            return flat.classes[p] if p is not None else F.NEVER

        return marked_leaf(self.manager, self.leaf_id, class_of)  # `loomtui info` names it too

    def set_leaf(self, leaf_id: str | None) -> None:
        """Re-root the view on another leaf (active path and branch order change)."""
        self.leaf_id = leaf_id
        self.flat = self._flatten()
        self._matches = None
        self._refilter()

    def entries_changed(self, new_entries: Iterable[Entry] = (), leaf_id: str | None = None) -> None:
        """Entries were appended (live follow, label writes): update what they affect.

        The usual case — a new child of the leaf, the leaf following it — costs a few list
        shifts; anything else (a new branch, a label in labeled-only mode, an active search)
        rebuilds the order and the rows.
        """
        new = list(new_entries)
        target_leaf = leaf_id if leaf_id is not None else self.leaf_id
        # the selection is an entry: appends above it must not move it (only a cursor on the followed leaf follows)
        keep: str | None = None
        if len(self.rows):
            keep = self.entry_at(self.selected).id
            if (
                target_leaf is not None
                and target_leaf != self.leaf_id
                and self.selected == self._nearest_visible(self.leaf_id)
            ):
                keep = target_leaf
        self._classes = F.classified(self.index.entries, self._classes, self._settings)
        incremental = (
            len(new) <= 64
            and not self.query
            and not self.folded
            and self.hoist_id is None
            and not any(is_record(e) for e in new)
        )
        if incremental:
            for k, e in enumerate(new):
                step_leaf = target_leaf if k == len(new) - 1 else self.leaf_id
                if step_leaf != self.leaf_id and step_leaf != e.id:
                    incremental = False
                    break
                if not self._insert(e, step_leaf):
                    incremental = False
                    break
        self._flat_texts = None
        self._matches = None
        if not incremental:
            self.leaf_id = target_leaf
            self.flat = self._flatten()
            self._refilter()
        else:
            self.leaf_id = target_leaf
        if keep is not None:
            self.selected = self._nearest_visible(keep)
            self._remember()

    def _insert(self, e: Entry, leaf_id: str | None) -> bool:
        """Place one appended entry into the flat order and the rows in place; False when the
        caller must lay the tree out again."""
        if e.type == "label" and self.mode == "labeled-only":
            return False
        if self.rows.flat is self.flat:
            self.rows.encode()  # before the flat order changes under the rows
        head_before = self.flat.head
        old_leaf = self.flat.leaf_id
        old_at = self.flat.position(old_leaf) if old_leaf is not None else None
        old_shown = old_at is not None and self.flat.classes[old_at] in F.MODE_CLASSES.get(self.mode, ())
        at = F.insert_new_child(self.flat, self.index, e, leaf_id, self._classes[e.index], self._settings)
        if at is None:
            return False
        self.leaf_id = leaf_id
        if at != head_before:
            self._refilter()  # the insertion point moved: rows were encoded around the old one
            return True
        if old_shown and old_at is not None and self.flat.classes[old_at] == F.HIDDEN:
            if not self._drop_old_leaf_row(old_at):
                self._refilter()
                return True
        self._show_inserted(at)
        return True

    def _drop_old_leaf_row(self, old_at: int) -> bool:
        """The old leaf was a tool-only assistant, hidden now: its row (the last of the head
        part) goes away. False when it was not there (the caller refilters)."""
        was_selected = self.selected == self.rows.split - 1
        if self.rows.find_row(old_at) != self.rows.split - 1 or not self.rows.drop_last_head_row():
            return False
        if self.selected >= self.rows.split and self.selected > 0:
            self.selected -= 1
        elif was_selected:
            self.selected = max(0, self.rows.split - 1)
        return True

    def _show_inserted(self, at: int) -> None:
        """A row for the entry inserted at flat position ``at`` when the filter shows it."""
        if self.mode == "labeled-only" or self.flat.classes[at] not in F.MODE_CLASSES[self.mode]:
            self._remember()
            # not shown: rows after it are stored relative to the end and shift by themselves
            if self.rows.flat is not self.flat:
                self._refilter()
            return
        row = self.rows.add_only_child(at) if self.rows.flat is self.flat else None
        if row is None:
            self._refilter()
            return
        if self.selected >= row and len(self.rows) > 1:
            self.selected += 1
        self._remember()

    @property
    def base_classes(self) -> bytearray:
        """Every entry's visibility class (``flat.base_classes``), by file index."""
        return self._classes

    @property
    def tool_call_ids_unique(self) -> bool:
        """No tool call id repeats in the session (the tool-call map is the same for any leaf)."""
        return self._session_calls() is not None

    def _session_calls(self) -> F.ToolCalls | None:
        """The session's tool-call map (None when an id repeats): the same for every leaf, made
        once per change of the session, not per leaf move."""
        version = self.index.version
        if self._tool_calls is None or self._tool_calls[0] != version:
            self._tool_calls = (version, F.tool_call_map(self.index.with_tool_calls))
        return self._tool_calls[1]

    # internals ----------------------------------------------------------------------------
    def _flatten(self, freeze: bool = False) -> F.Flat:
        # paused; frozen only while the session loads: a leaf move in the app must not freeze
        # whatever garbage the UI has at that moment (frozen objects are never collected)
        with bulk_allocation(freeze=freeze):
            if not freeze:
                self._classes = F.classified(self.index.entries, self._classes, self._settings)
                return F.flatten(self.index, self.leaf_id, self._classes, self._session_calls())
            # loading: a big session reopened as it was may be classified and flattened already
            flat, self.unsaved_flat, self._classes = (self._flattener or F.loading_flatten)(
                self.manager, self.leaf_id, self._classes, self._session_calls, self._settings
            )
            return flat

    def _remember(self) -> None:
        if len(self.rows):
            self._last_selected_id = self.entry_at(self.selected).id

    def _nearest_visible(self, entry_id: str | None) -> int:
        n = len(self.rows)
        if n == 0:
            return 0
        cur = self.index.by_id.get(entry_id) if entry_id is not None else None
        while cur is not None:
            i = self.row_of(cur.id)
            if i is not None:
                return i
            cur = self.index.parent_of(cur)
        return n - 1

    def _refilter(self) -> None:
        if len(self.rows):
            self._last_selected_id = self.entry_at(self.selected).id
        # a refilter builds a dozen row-long lists: with the collector running, every young
        # collection on the way would walk all of them again (most of a keystroke's time)
        with bulk_allocation(freeze=False):
            self._apply_filter()
        if self._last_selected_id is not None:
            self.selected = self._nearest_visible(self._last_selected_id)
        elif self.selected >= len(self.rows):
            self.selected = max(0, len(self.rows) - 1)
        self._remember()

    def _apply_filter(self) -> None:
        if self.flat.version != self.index.version:
            self.flat = self._flatten()
            self._matches = None
        tokens = tuple(js_split_ws(self.query.lower()))
        archived = frozenset() if self.show_archived else self.archive.ids()
        key = (self.mode, tokens, self.leaf_id, self.index.version, id(self.flat), self.hoist_id, archived)
        if not self.folded:
            cached = self._layouts.get(key)
            if cached is not None and cached.flat is self.flat:
                self._layouts.move_to_end(key)
                self.rows = cached
                return
        if tokens:
            positions = self._search_positions(tokens)
        else:
            positions = self.filter_positions()
        if archived:
            positions = drop_archived(self.flat, positions, archived)
        if self.hoist_id is not None:
            positions = self._inside_hoist(positions)
        if self.folded:
            positions = F.drop_folded(self.flat, positions, self.folded)
        self.rows = L.layout(self.flat, positions)
        if not self.folded:
            # recent layouts come back on Backspace or a filter toggle at no cost
            self._layouts[key] = self.rows
            if len(self._layouts) > 8:
                self._layouts.popitem(last=False)

    def filter_positions(self) -> list[int]:
        """Flat positions the filter mode shows (a source's own modes list their entry ids)."""
        if self.mode in FILTER_TAGS:
            return F.visible_positions(self.flat, self.mode, self.index.labels)
        ids = self._extra_ids.get(self.mode)
        if ids is None:
            ids = self._extra_ids[self.mode] = frozenset(self.extra_filters[self.mode][1]())
        return [p for p, e in enumerate(self.flat.entries) if e.id in ids]

    def _texts_in_display_order(self) -> list[str]:
        """Searchable text per flat position (built on the first search after a flatten)."""
        flat = self.flat
        if self._flat_texts is not None and self._flat_texts[0] is flat:
            return self._flat_texts[1]
        cache = self._search
        entries = self.index.entries
        if len(cache) < len(entries):
            cache.extend([None] * (len(entries) - len(cache)))
        for e in flat.entries:
            if cache[e.index] is None:
                cache[e.index] = search_text(e)
        texts: list[str] = [cache[e.index] for e in flat.entries]  # type: ignore[misc]
        self._flat_texts = (flat, texts)
        return texts

    def warm_search(self) -> None:
        """Build the searchable text of every entry now (the app does this after first paint)."""
        self._texts_in_display_order()

    def _search_positions(self, tokens: tuple[str, ...]) -> list[int]:
        """Rows whose searchable text (label included) holds every token (pi's AND search).

        When the query only grew, the previous matches are the only candidates.
        """
        candidates, to_test = self._search_candidates(tokens)
        if self.omp:
            out = [p for p in candidates if self._omp_matches(p, to_test)]
            self._matches = ((self.mode, self.leaf_id, self.index.version, tokens), out)
            return out
        texts = self._texts_in_display_order()
        out = candidates
        for t in to_test:
            # C-level loop: positions whose text contains t
            out = list(compress(out, map(contains, map(texts.__getitem__, out), repeat(t))))
        if self.index.labels:
            extra = F.label_matches(self.flat, self.index.labels, tokens, candidates, out, texts)
            if extra:
                out = sorted(set(out).union(extra))
        self._matches = ((self.mode, self.leaf_id, self.index.version, tokens), out)
        return out

    def _omp_matches(self, p: int, tokens: tuple[str, ...]) -> bool:
        """omp's search: every token fuzzily in the entry's omp search text, label first."""
        e = self.flat.entries[p]
        label = self.index.label_of(e.id)
        text = omp.search_text(e, label, self.manager.load(e) if e.type in omp.OMP_ONLY_TYPES else None)
        index = self._omp_search.get(text)
        if index is None:
            index = self._omp_search[text] = omp.SearchIndex(text)
        return all(omp.fuzzy_match(t, index) for t in tokens)

    def _search_candidates(self, tokens: tuple[str, ...]) -> tuple[list[int], tuple[str, ...]]:
        """(positions to test, tokens to test them for): when the query only grew, the previous
        matches and only the new tokens; else every visible position and every token."""
        prev = self._matches
        # (omp's fuzzy tokens: a longer token may match where a part of it does not)
        if prev is not None and not self.omp and prev[0][:3] == (self.mode, self.leaf_id, self.index.version):
            old_tokens = prev[0][3]
            if all(any(o in t for t in tokens) for o in old_tokens):
                # every candidate already holds the old tokens: test only the new ones
                return prev[1], tuple(t for t in tokens if t not in old_tokens)
        return self.filter_positions(), tokens

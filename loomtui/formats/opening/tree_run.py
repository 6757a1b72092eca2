"""`loomtui tree`'s opening: the rows printed before, the row texts kept, and the caches written
once the rows are out.

What `tree` prints is a pure function of the file, the options and ``HOME``; so a big pi session
printed before is printed again from ``tree_memo.py``. Otherwise the file is read in this one
process (the typed scan, ``session/typed_scan.py``, reads it faster than a second process helps:
docs/performance.md); a reopen takes the row texts kept beside the index (``flat_cache.py``). The
index, the flattened tree, the row texts and the memo are written by one background child after
the output (a child alive meanwhile would slow the layout: copy-on-write).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loomtui.formats.opening import Opening
from loomtui.formats.opening.switches import enabled
from loomtui.formats.opening.tree_memo import TreeMemo
from loomtui.session import cache_io

if TYPE_CHECKING:  # imported where used: a memo hit prints without the reader or the view
    from loomtui.session.manager import SessionManager
    from loomtui.view.model import TreeModel


class TreeOpening(Opening):
    """A file opened for `loomtui tree` with ``options`` (everything its output depends on)."""

    def __init__(self, path: str, options: tuple[Any, ...] | None) -> None:
        super().__init__(path)
        self._memo = TreeMemo.for_run(path, options) if options is not None and enabled("tree-memo") else None

    def printed_before(self) -> bytes | None:
        """This very output, printed before for the unchanged file (None: print it)."""
        return self._memo.get() if self._memo is not None else None

    @property
    def keeps_output(self) -> bool:
        """The output is worth keeping for the next run (the caller hands it to ``after_output``)."""
        return self._memo is not None

    def model(self, manager: SessionManager, **options: Any) -> TreeModel:
        """The tree model, its flatten taken from the cache where it applies."""
        from loomtui.view.model import TreeModel

        return TreeModel(manager, flattener=self.flattener, **options)

    def row_texts(self, model: TreeModel) -> list[str | None] | None:
        """Every entry's row text by file index, where a run before kept them (None where the
        row writes its own)."""
        if not enabled("flat-cache"):
            return None
        from loomtui.formats.opening import flat_cache

        return flat_cache.load_texts(model.manager, model.flat, model.home)  # type: ignore[return-value]

    def holding_writes(self) -> None:
        """From now until ``after_output``: the caches wait (written together afterwards)."""
        cache_io.hold_writes()

    def after_output(self, model: TreeModel | None, output: memoryview | None, color: bool) -> None:
        """The rows are out: what is kept for the next run, written by one background child
        (the index, a tree flattened now, the row texts when they were not all kept, the output)."""
        jobs: list[Callable[[], object]] = []
        if model is not None and enabled("flat-cache"):
            from loomtui.formats.opening import flat_cache

            flat = model.unsaved_flat
            job = flat_cache.store_job(model.manager, flat, model.base_classes) if flat is not None else None
            if job is not None:
                jobs.append(job)
            if not color and (model.row_texts is None or None in model.row_texts):
                job = flat_cache.texts_job(model.manager, model.flat, model.home)
                if job is not None:
                    jobs.append(job)
        memo = self._memo
        if output is not None and memo is not None:
            read = model.manager.read_digests if model is not None else None
            jobs.append(lambda: memo.store(output, read))
        cache_io.write_held(*jobs)

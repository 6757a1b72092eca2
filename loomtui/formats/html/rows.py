"""The sidebar of the HTML export: loomtui's /tree rows, serialised for the page.

The page never lays rows out for the filter modes itself (pi's five, or a source's own: an OCP
run's): for each mode it gets the rows
exactly as ``TreeModel`` (the rules `loomtui tree` prints) makes them — flat positions, the
prefix (indentation, gutters, connectors) and whether a row can fold. Per entry it gets the
styled one-line text, the searchable text and the label, once. Only a search has to be laid
out in the page (any query can be typed); the page does it with the same rule as
``layout.layout`` over the flat order given here, and the browser tests compare it with
`loomtui tree --search`.
"""

from __future__ import annotations

from typing import Any

from loomtui.session.jsstr import js_string
from loomtui.view import layout as L
from loomtui.view.filter_modes import FILTER_TAGS
from loomtui.view.model import TreeModel
from loomtui.view.text import display_segments, search_text

#: style names the rows use (index = the number stored per segment)
STYLES = ("text", "accent", "success", "muted", "error", "dim", "warning", "customMessageLabel", "borderAccent")
_STYLE_NO = {s: i for i, s in enumerate(STYLES)}

#: row flags
FOLDABLE = 1
#: the row draws its own connector (├─/└─): folding swaps its glyph instead of adding "⊞ "
CONNECTOR = 2


def filter_rows(model: TreeModel, mode: str, prefixes: dict[str, int]) -> dict[str, list[int]]:
    """The rows of ``mode`` (no search, nothing folded) as parallel lists."""
    model.folded.clear()
    model.set_filter(mode)
    lay = model.rows
    n = len(lay)
    positions = [lay.position(i) for i in range(n)] if lay.encoded else list(lay.positions)
    pre: list[int] = []
    flags: list[int] = []
    connector, vrc, gutters, indent, kids = lay.connector, lay.virtual_root_child, lay.gutters, lay.indent, lay.kids
    # a row without a connector has the prefix of the row before when both have the same
    # gutters and indent (most rows: a chain's rows look alike); the others ask ``prefix``
    last_gutters: object = None
    last_indent = -1
    last_k = 0
    for i in range(n):
        own = connector[i] and not vrc[i]
        if not own and gutters[i] is last_gutters and indent[i] == last_indent:
            k = last_k
        else:
            text = L.prefix(lay, i, False)
            k = prefixes.get(text)
            if k is None:
                k = prefixes[text] = len(prefixes)
            if not own:
                last_gutters, last_indent, last_k = gutters[i], indent[i], k
        pre.append(k)
        f = FOLDABLE if kids[i] and lay.is_foldable(i) else 0
        flags.append(f | CONNECTOR if own else f)
    return {"pos": positions, "pre": pre, "flags": flags}


def newest_leaves(model: TreeModel) -> list[int]:
    """Per flat position: the leaf reached by always taking the newest child (pi's
    ``findNewestLeaf``: a click on a row shows the branch ending there)."""
    flat = model.flat
    index = model.index
    n = len(flat)
    out = list(range(n))
    entries = flat.entries
    kids = index.child_lists()
    for p in range(n - 1, -1, -1):  # children come after their parent in pre-order
        e = entries[p]
        if kids.get(e.id):
            last = index.children(e.id)[-1]
            q = flat.position(last.id)
            if q is not None:
                out[p] = out[q]
    return out


def sidebar_data(model: TreeModel) -> dict[str, Any]:
    """Everything the sidebar needs, as plain JSON values (flat positions index every list)."""
    flat = model.flat
    entries = flat.entries
    n = len(entries)
    index = model.index
    pos_of = {e.id: p for p, e in enumerate(entries)}
    parent = [-1] * n
    for p, e in enumerate(entries):
        q = index.parent_of(e)
        if q is not None:
            parent[p] = pos_of.get(q.id, -1)
    ends = flat.ends(list(range(n)))
    segs: list[list[Any]] = []
    texts: list[str] = []
    tool_calls = flat.tool_calls
    home = model.home
    for e in entries:
        row: list[Any] = []
        for style, text in display_segments(e, tool_calls, home):
            row.append(_STYLE_NO.get(style, 0))
            row.append(text)
        segs.append(row)
        texts.append(search_text(e))
    labels = {}
    for target, (label, _ts) in index.labels.items():
        p = pos_of.get(target)
        if p is not None:
            labels[str(p)] = js_string(label)
    prefixes: dict[str, int] = {}
    keep = (model.mode, model.query, set(model.folded))
    # the modes the browser offers: pi's five, or default and the source's own (an OCP run's
    # failed, gates, in-flight, findings, one per model and per harness)
    modes = list(model.modes)
    filters = {mode: filter_rows(model, mode, prefixes) for mode in modes}
    model.set_filter(keep[0])
    if keep[1]:
        model.set_query(keep[1])
    leaf = pos_of.get(model.leaf_id, -1) if model.leaf_id is not None else -1
    return {
        "ids": [e.id for e in entries],
        "parent": parent,
        "end": ends,
        "newest": newest_leaves(model),
        "styles": list(STYLES),
        "segs": segs,
        "search": texts,
        "labels": labels,
        "leaf": leaf,
        "marks_path": model.manager.source.has_leaf,  # an OCP run, the loom map: no "•", as in the tree
        "prefixes": list(prefixes),
        "filters": filters,
        "modes": modes,
        "tags": [FILTER_TAGS[m] if m in FILTER_TAGS else model.extra_filters[m][0] for m in modes],
    }

"""A comparison as a unified text diff of the two branch transcripts (``loomtui diff``).

The transcript of a branch is one block of lines per entry: ``head: first line`` and the rest of
its text indented by two spaces. Lines come from the same aligned pairs the compare screen
shows: identical pairs are context, a changed pair is diffed line by line (changed words marked
when colour is on), an entry on one side only is all ``-`` or all ``+``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from loomtui.view.compare import Comparison, Item
from loomtui.view.compare_hunks import header, hunk_lines, hunks, plan, safe
from loomtui.view.compare_totals import Totals
from loomtui.view.compare_words import Span
from loomtui.view.printable import printable
from loomtui.view.text import normalize
from loomtui.view.words import counted, grouped

#: ANSI codes: (line, changed words)
_COLORS = {"-": ("31", "1;97;41"), "+": ("32", "1;30;42"), " ": ("", "")}


def _render(tag: str, text: str | list[Span], color: bool) -> str:
    """One line of a hunk (its text made printable where it was made: ``item_lines``)."""
    if isinstance(text, list):
        if not color:
            return tag + "".join(t for _c, t in text)
        base, strong = _COLORS[tag]
        if not base:
            return tag + "".join(t for _c, t in text)
        parts = [f"\x1b[{base}m{tag}"]
        parts += [f"\x1b[{strong}m{t}\x1b[0;{base}m" if changed else t for changed, t in text]
        parts.append("\x1b[0m")
        return "".join(parts)
    base = _COLORS[tag][0] if color else ""
    return f"\x1b[{base}m{tag}{text}\x1b[0m" if base else tag + text


def ancestor_line(cmp: Comparison, manager: Any) -> str:
    from loomtui.view.text import display_text

    a = cmp.ancestor
    if a is None:
        return "common ancestor: none (the branches start at different roots)"
    text = normalize(display_text(a, {}, ""))
    return f"common ancestor: {printable(a.id)}  {safe(text)[:100]}"


def same_entry_line(cmp: Comparison) -> str:
    """What ``diff`` says when A and B name one entry: one branch, nothing to compare (no
    table of zeros)."""
    from loomtui.view.text import display_text

    a = cmp.ancestor  # the entry itself: the branch's own end is the common ancestor
    text = f" ({safe(normalize(display_text(a, {}, '')))[:100]})" if a is not None else ""
    return f"A and B are both {printable(cmp.a_id)}{text}: one branch, nothing to compare"


def totals_table(ta: Totals, tb: Totals, a_name: str = "this file") -> list[str]:
    """Both sides' totals as a table; ``a_name`` (the source's name with its article) says
    whose figures are not counted."""
    rows: list[tuple[str, object, object]] = [("entries", ta.entries, tb.entries)]  # B None: one text
    if ta.conversation:
        rows += [
            ("turns", ta.turns, tb.turns),
            ("user messages", ta.user_messages, tb.user_messages),
            ("tool calls", ta.tool_calls, tb.tool_calls),
            ("errors", ta.errors, tb.errors),
            ("files touched", len(ta.files), len(tb.files)),
        ]
    replies = counted(ta.turns + tb.turns, "assistant message")
    if ta.usage_kept:
        rows.append(_usage_row("tokens", ta, tb, f" (none of the {replies} carries a count)"))
    if ta.cost_kept:
        rows.append(_usage_row("cost ($)", ta, tb, ""))
    if ta.timed:
        rows.append(("wall time", _dur(ta.wall_ms), _dur(tb.wall_ms)))
    out = [f"{'totals':<16}{'A':>14}{'B':>14}"]
    out += [f"  {name:<14}{_cell(x):>14}{_cell(y):>14}" if y is not None else f"  {name:<14}{x}" for name, x, y in rows]
    said = replace(ta, a_name=a_name).not_counted()
    if said:
        out.append(f"  ({said})")
    for side, t in (("A", ta), ("B", tb)):
        if t.files:
            out.append(f"  files {side}: " + ", ".join(safe(f) for f in t.files))
    return out


def _cell(v: object) -> str:
    """A totals cell: a count with thousands separators (as ``info`` writes them), else the text."""
    return grouped(v) if isinstance(v, int) else str(v)


#: a branch's cell for a figure its replies do not carry
NOT_RECORDED = "not in file"


def _usage_row(name: str, ta: Totals, tb: Totals, why: str) -> tuple[str, object, object]:
    """The tokens or cost row: each branch's figure where its replies carry one, "not in file"
    where they do not; where no reply of either branch carries one, the row says "not in the
    file" once (its B column None), never a column of 0s."""
    tokens = name == "tokens"

    def shown(t: Totals) -> str:
        if not (t.tokens_recorded if tokens else t.cost_recorded):
            return NOT_RECORDED
        return grouped(t.tokens) if tokens else f"{t.cost:,.4f}"

    seen = [t.replies_with_tokens if tokens else t.replies_with_cost for t in (ta, tb)]
    if not any(seen) and (ta.turns or tb.turns):
        return name, f"not in the file{why}", None
    return name, shown(ta), shown(tb)


def _dur(ms: float) -> str:
    from loomtui.view.compare_totals import format_duration

    return format_duration(ms)


def unified(cmp: Comparison, manager: Any, *, context: int = 3, color: bool = False) -> Iterator[str]:
    """The whole ``loomtui diff`` output, one string per line, made as it is written (a hunk's
    lines only when it comes: ``compare_hunks``)."""
    if cmp.a_id == cmp.b_id:
        yield same_entry_line(cmp)
        return
    yield ancestor_line(cmp, manager)
    head = [
        f"--- A {printable(cmp.a_id)} ({counted(cmp.totals_a.entries, 'entry', 'entries')} after the ancestor)",
        f"+++ B {printable(cmp.b_id)} ({counted(cmp.totals_b.entries, 'entry', 'entries')} after the ancestor)",
    ]
    yield from ([f"\x1b[1m{h}\x1b[0m" for h in head] if color else head)
    lines = plan(cmp)
    any_hunk = False
    for hunk in hunks(lines, context):
        any_hunk = True
        top = printable(header(lines, cmp, hunk))
        yield f"\x1b[36m{top}\x1b[0m" if color else top
        for tag, text in hunk_lines(lines, cmp, hunk):
            yield _render(tag, text, color)
    if not any_hunk:
        yield f"(the two branches are identical: {counted(len(cmp.pairs), 'entry', 'entries')})"
    yield ""
    yield from totals_table(cmp.totals_a, cmp.totals_b, manager.source.a_name if manager is not None else "this file")


def as_json(cmp: Comparison) -> dict[str, Any]:
    """What ``loomtui diff --json`` prints."""

    def side(item: Item | None) -> Any:
        return None if item is None else {"id": item.entry.id, "kind": item.head, "error": item.error}

    return {
        "ancestor": cmp.ancestor.id if cmp.ancestor is not None else None,
        "a": {"id": cmp.a_id, "totals": cmp.totals_a.as_dict()},
        "b": {"id": cmp.b_id, "totals": cmp.totals_b.as_dict()},
        "identical": cmp.identical,
        "same_entry": cmp.a_id == cmp.b_id,
        "pairs": [{"status": p.status, "a": side(p.a), "b": side(p.b)} for p in cmp.pairs],
    }

"""A comparison as a unified text diff of the two branch transcripts (``loomtui diff``).

The transcript of a branch is one block of lines per entry: ``head: first line`` and the rest of
its text indented by two spaces. Lines come from the same aligned pairs the compare screen
shows: identical pairs are context, a changed pair is diffed line by line (changed words marked
when colour is on), an entry on one side only is all ``-`` or all ``+``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, NamedTuple

from loomtui.view.compare import CHANGED, ONLY_A, ONLY_B, Comparison, Item
from loomtui.view.compare_totals import Totals
from loomtui.view.compare_words import Span, span_lines, word_diff
from loomtui.view.printable import printable
from loomtui.view.text import normalize
from loomtui.view.words import counted


def safe(s: str) -> str:
    """Text from a file made printable, newlines kept (tabs as four spaces)."""
    return printable(s.replace("\t", "    "), keep_lines=True)


class Line(NamedTuple):
    tag: str  # " ", "-", "+"
    spans: list[Span]  # the text, changed words marked
    a_id: str | None
    b_id: str | None

    @property
    def text(self) -> str:
        return "".join(t for _c, t in self.spans)


def item_lines(item: Item) -> list[str]:
    """The transcript lines of one entry."""
    lines = safe(item.text).split("\n")
    out = [f"{item.head}: {lines[0]}" if lines[0] else f"{item.head}:"]
    out += [f"  {x}" for x in lines[1:]]
    return out


def diff_lines(cmp: Comparison) -> list[Line]:
    """Every transcript line of both branches, tagged as a unified diff tags it."""
    out: list[Line] = []
    for p in cmp.pairs:
        aid = p.a.entry.id if p.a is not None else None
        bid = p.b.entry.id if p.b is not None else None
        if p.status == ONLY_A and p.a is not None:
            out += [Line("-", [(False, x)], aid, None) for x in item_lines(p.a)]
        elif p.status == ONLY_B and p.b is not None:
            out += [Line("+", [(False, x)], None, bid) for x in item_lines(p.b)]
        elif p.status == CHANGED and p.a is not None and p.b is not None:
            out += _changed_lines(item_lines(p.a), item_lines(p.b), aid, bid)
        elif p.a is not None:
            out += [Line(" ", [(False, x)], aid, bid) for x in item_lines(p.a)]
    return out


def _changed_lines(la: list[str], lb: list[str], aid: str | None, bid: str | None) -> list[Line]:
    """The lines of a changed pair: equal runs as context, the others word-diffed."""
    from difflib import SequenceMatcher

    out: list[Line] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
        if tag == "equal":
            out += [Line(" ", [(False, x)], aid, bid) for x in la[i1:i2]]
            continue
        sa, sb = word_diff("\n".join(la[i1:i2]), "\n".join(lb[j1:j2]))
        if i2 > i1:
            out += [Line("-", spans, aid, None) for spans in span_lines(sa)[: i2 - i1]]
        if j2 > j1:
            out += [Line("+", spans, None, bid) for spans in span_lines(sb)[: j2 - j1]]
    return out


def hunks(lines: list[Line], context: int = 3) -> Iterator[tuple[str, list[Line]]]:
    """Unified-diff hunks: (``@@ -a,n +b,m @@`` header, its lines)."""
    context = max(0, context)
    changed = [k for k, ln in enumerate(lines) if ln.tag != " "]
    if not changed:
        return
    # line numbers of each side at every position
    a_no = [0] * (len(lines) + 1)
    b_no = [0] * (len(lines) + 1)
    for k, ln in enumerate(lines):
        a_no[k + 1] = a_no[k] + (ln.tag != "+")
        b_no[k + 1] = b_no[k] + (ln.tag != "-")
    groups: list[list[int]] = [[changed[0], changed[0]]]
    for k in changed[1:]:
        if k - groups[-1][1] <= 2 * context + 1:
            groups[-1][1] = k
        else:
            groups.append([k, k])
    for first, last in groups:
        lo = max(0, first - context)
        hi = min(len(lines), last + context + 1)
        na = a_no[hi] - a_no[lo]
        nb = b_no[hi] - b_no[lo]
        sa = a_no[lo] + 1 if na else a_no[lo]
        sb = b_no[lo] + 1 if nb else b_no[lo]
        ids = next(((ln.a_id, ln.b_id) for ln in lines[first:] if ln.tag != " "), (None, None))
        where = " ".join(f"{side}:{x}" for side, x in zip("AB", ids) if x)
        yield f"@@ -{sa},{na} +{sb},{nb} @@" + (f" {where}" if where else ""), lines[lo:hi]


#: ANSI codes: (line, changed words)
_COLORS = {"-": ("31", "1;97;41"), "+": ("32", "1;30;42"), " ": ("", "")}


def _render(line: Line, color: bool) -> str:
    # the text comes from the file: its control characters shown, before any colour is added
    if not color:
        return line.tag + printable(line.text)
    base, strong = _COLORS[line.tag]
    if not base:
        return line.tag + printable(line.text)
    parts = [f"\x1b[{base}m{line.tag}"]
    for changed, text in line.spans:
        text = printable(text)
        parts.append(f"\x1b[{strong}m{text}\x1b[0;{base}m" if changed else text)
    parts.append("\x1b[0m")
    return "".join(parts)


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
    out += [f"  {name:<14}{str(x):>14}{str(y):>14}" if y is not None else f"  {name:<14}{x}" for name, x, y in rows]
    said = replace(ta, a_name=a_name).not_counted()
    if said:
        out.append(f"  ({said})")
    for side, t in (("A", ta), ("B", tb)):
        if t.files:
            out.append(f"  files {side}: " + ", ".join(safe(f) for f in t.files))
    return out


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
        return str(t.tokens) if tokens else f"{t.cost:.4f}"

    seen = [t.replies_with_tokens if tokens else t.replies_with_cost for t in (ta, tb)]
    if not any(seen) and (ta.turns or tb.turns):
        return name, f"not in the file{why}", None
    return name, shown(ta), shown(tb)


def _dur(ms: float) -> str:
    from loomtui.view.compare_totals import format_duration

    return format_duration(ms)


def unified(cmp: Comparison, manager: Any, *, context: int = 3, color: bool = False) -> list[str]:
    """The whole ``loomtui diff`` output, one string per line."""
    if cmp.a_id == cmp.b_id:
        return [same_entry_line(cmp)]
    out = [ancestor_line(cmp, manager)]
    head = [
        f"--- A {printable(cmp.a_id)} ({counted(cmp.totals_a.entries, 'entry', 'entries')} after the ancestor)",
        f"+++ B {printable(cmp.b_id)} ({counted(cmp.totals_b.entries, 'entry', 'entries')} after the ancestor)",
    ]
    out += [f"\x1b[1m{h}\x1b[0m" for h in head] if color else head
    lines = diff_lines(cmp)
    any_hunk = False
    for header, body in hunks(lines, context):
        any_hunk = True
        header = printable(header)
        out.append(f"\x1b[36m{header}\x1b[0m" if color else header)
        out += [_render(ln, color) for ln in body]
    if not any_hunk:
        n = len(cmp.pairs)
        out.append(f"(the two branches are identical: {counted(n, 'entry', 'entries')})")
    out.append("")
    out += totals_table(cmp.totals_a, cmp.totals_b, manager.source.a_name if manager is not None else "this file")
    return out


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

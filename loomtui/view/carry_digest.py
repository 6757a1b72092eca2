"""What one branch did, in a few lines the user can edit before carrying it onto another branch
(``loomtui carry``, the browser's carry key): the summary of a pi ``branch_summary`` entry.

Made from the compare model (``view/compare.py``): the entries of A after the point A and B
share, as transcript items and totals: A's prompts, the files its edit tools touched, its
errors, its last answer and its totals. The text is Markdown (pi draws a branch summary as
Markdown): its parts apart by blank lines, paths and error lines as inline code.
"""

from __future__ import annotations

import re

from loomtui.session.manager import SessionManager
from loomtui.view.compare import Item, compare

#: how much of each prompt and error line, and of the last answer, goes in
LINE_LIMIT = 200
ANSWER_LIMIT = 800
MOST = 8


def _one_line(text: str, limit: int = LINE_LIMIT) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def code(text: str) -> str:
    """``text`` as Markdown inline code: a path's ``__init__`` or ``*`` and an error's ``<stdin>``
    read as written, not as emphasis or HTML."""
    runs = re.findall(r"`+", text)
    ticks = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def closed_fences(text: str) -> str:
    """``text`` with a code fence left open (an answer cut short inside one) closed, so that
    what follows it is not read as code."""
    open_fence = ""
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m is None:
            continue
        fence, rest = m.group(1), m.group(2)
        if not open_fence:
            if not (fence[0] == "`" and "`" in rest):  # a backtick fence's info string has no backtick
                open_fence = fence
        elif fence[0] == open_fence[0] and len(fence) >= len(open_fence) and not rest.strip():
            open_fence = ""
    return f"{text}\n{open_fence}" if open_fence else text


def _listed(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    more = [f"- … ({len(lines) - MOST} more)"] if len(lines) > MOST else []
    return [title, "\n".join([f"- {x}" for x in lines[:MOST]] + more)]


def _last_answer(items: list[Item]) -> list[str]:
    answers = [i for i in items if i.key == "assistant"]
    if not answers:
        return []
    text = "\n".join(x for x in answers[-1].text.splitlines() if not x.startswith("→ ")).strip()
    if not text:
        return []
    return ["Last answer:", closed_fences(text if len(text) <= ANSWER_LIMIT else text[: ANSWER_LIMIT - 1] + "…")]


def branch_digest(manager: SessionManager, a_id: str, b_id: str) -> str:
    """The digest of the branch ending at ``a_id``, from where it leaves ``b_id``'s branch: Markdown
    (pi draws a branch summary as Markdown, and so does the detail pane), its parts apart by blank
    lines so that each reads as its own paragraph or list, in the dialog as in a Markdown reader."""
    cmp = compare(manager, a_id, b_id)
    items, t = cmp.a_items, cmp.totals_a
    where = f"after {cmp.ancestor.id}" if cmp.ancestor is not None else "from the start"
    out = [f"Another branch of this session (ending at {a_id}, {where}) was tried. What it did:"]
    out += _listed("Prompts:", [_one_line(i.text) for i in items if i.key == "user" and i.text.strip()])
    if t.files:
        more = f" (+{len(t.files) - 20})" if len(t.files) > 20 else ""
        out.append("Files touched: " + ", ".join(map(code, t.files[:20])) + more)
    out += _listed("Errors:", [f"{i.head}: {code(_one_line(i.text))}" for i in items if i.error])
    out += _last_answer(items)
    out.append(f"Totals: {t.said(code)}.")
    return "\n\n".join(out)

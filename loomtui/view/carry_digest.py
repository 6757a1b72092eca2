"""What one branch did, in a few lines the user can edit before carrying it onto another branch
(``loomtui carry``, the browser's carry key): the summary of a pi ``branch_summary`` entry.

Made from the compare model (``view/compare.py``): the entries of A after the point A and B
share, as transcript items and totals: A's prompts, the files its edit tools touched, its
errors, its last answer and its totals.
"""

from __future__ import annotations

from loomtui.session.manager import SessionManager
from loomtui.view.compare import Item, compare

#: how much of each prompt and error line, and of the last answer, goes in
LINE_LIMIT = 200
ANSWER_LIMIT = 800
MOST = 8


def _one_line(text: str, limit: int = LINE_LIMIT) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _listed(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    more = [f"- … ({len(lines) - MOST} more)"] if len(lines) > MOST else []
    return [title] + [f"- {x}" for x in lines[:MOST]] + more


def _last_answer(items: list[Item]) -> list[str]:
    answers = [i for i in items if i.key == "assistant"]
    if not answers:
        return []
    text = "\n".join(x for x in answers[-1].text.splitlines() if not x.startswith("→ ")).strip()
    if not text:
        return []
    return ["Last answer:", text if len(text) <= ANSWER_LIMIT else text[: ANSWER_LIMIT - 1] + "…"]


def branch_digest(manager: SessionManager, a_id: str, b_id: str) -> str:
    """The digest of the branch ending at ``a_id``, from where it leaves ``b_id``'s branch."""
    cmp = compare(manager, a_id, b_id)
    items, t = cmp.a_items, cmp.totals_a
    where = f"after {cmp.ancestor.id}" if cmp.ancestor is not None else "from the start"
    out = [f"Another branch of this session (ending at {a_id}, {where}) was tried. What it did:"]
    out += _listed("Prompts:", [_one_line(i.text) for i in items if i.key == "user" and i.text.strip()])
    if t.files:
        more = f" (+{len(t.files) - 20})" if len(t.files) > 20 else ""
        out.append("Files touched: " + ", ".join(t.files[:20]) + more)
    out += _listed("Errors:", [f"{i.head}: {_one_line(i.text)}" for i in items if i.error])
    out += _last_answer(items)
    out.append(f"Totals: {t.said()}.")
    return "\n".join(out)

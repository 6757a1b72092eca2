"""The picker's type-to-filter, as pi's ``/resume`` search matches and ranks sessions
(docs/pi-releases.md, "Picker, HTML page and detail").

A query is whitespace-separated tokens, ``"quoted phrases"`` or ``re:<pattern>``. Every token
must match one field of a session. Ids and message text match only as exact substrings (any
case); names and working directories also match fuzzily (the token's characters in order).
Lower scores are better: a hit in the name beats one in the id, messages or cwd, which beats a
fuzzy hit. No Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

#: match tiers, best first; a tier outweighs any fuzzy score
TIER_NAME, TIER_TEXT, TIER_FUZZY = 0, 1, 2
TIER_WEIGHT = 1_000_000.0

_BOUNDARY = re.compile(r"[\s\-_./:]")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class SearchFields:
    """What a session is searched by: its name, id, working directory and message text."""

    name: str
    id: str
    cwd: str
    messages: str


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "fuzzy" or "phrase"
    value: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    tokens: tuple[Token, ...] = ()
    regex: re.Pattern[str] | None = None
    error: str | None = None

    @property
    def empty(self) -> bool:
        return not self.tokens and self.regex is None and self.error is None


# fuzzy matching ------------------------------------------------------------------------------


def _score_positions(text: str, positions: Sequence[int]) -> float:
    score = 0.0
    last = -1
    run = 0
    for i in positions:
        if last == i - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or _BOUNDARY.match(text[i - 1]):
            score -= 10
        score += i * 0.1
        last = i
    return score


def _match_lower(query: str, text: str) -> float | None:
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    positions: list[int] = []
    last = -1
    for ch in query:
        i = text.find(ch, last + 1)
        if i < 0:
            return None
        positions.append(i)
        last = i
    score = _score_positions(text, positions)
    # a contiguous occurrence can score better than the greedy, scattered alignment
    start = text.find(query)
    while start >= 0:
        score = min(score, _score_positions(text, range(start, start + len(query))))
        start = text.find(query, start + 1)
    if query == text:
        score -= 100
    return score


_LETTERS_DIGITS = re.compile(r"^([a-z]+)([0-9]+)$")
_DIGITS_LETTERS = re.compile(r"^([0-9]+)([a-z]+)$")


def fuzzy_score(query: str, text: str) -> float | None:
    """The fuzzy score of ``query`` in ``text`` (lower is better), None when its characters do
    not all appear in order. ``abc12`` also tries ``12abc`` (and the other way round)."""
    q, t = query.lower(), text.lower()
    score = _match_lower(q, t)
    if score is not None:
        return score
    m = _LETTERS_DIGITS.match(q) or _DIGITS_LETTERS.match(q)
    if m is None:
        return None
    swapped = _match_lower(m.group(2) + m.group(1), t)
    return None if swapped is None else swapped + 5


# the query -----------------------------------------------------------------------------------


def parse_query(query: str) -> ParsedQuery:
    """Tokens (a ``"quoted phrase"`` is one token; unbalanced quotes count as plain text) or
    a case-insensitive ``re:`` pattern."""
    text = query.strip()
    if not text:
        return ParsedQuery()
    if text.startswith("re:"):
        pattern = text[3:].strip()
        if not pattern:
            return ParsedQuery(error="Empty regex")
        try:
            return ParsedQuery(regex=re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            return ParsedQuery(error=str(exc))
    if text.count('"') % 2:
        return ParsedQuery(tokens=tuple(Token("fuzzy", t) for t in text.split()))
    tokens: list[Token] = []
    for i, part in enumerate(text.split('"')):
        if i % 2:
            if part.strip():
                tokens.append(Token("phrase", part.strip()))
        else:
            tokens.extend(Token("fuzzy", t) for t in part.split())
    return ParsedQuery(tokens=tuple(tokens))


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text.lower()).strip()


def _literal(f: SearchFields, value: str, norm: Callable[[str], str]) -> float | None:
    name = norm(f.name)
    if value in name:
        return TIER_NAME * TIER_WEIGHT + (fuzzy_score(value, name) or 0.0)
    if value in f.id.lower() or value in norm(f.messages) or value in norm(f.cwd):
        return TIER_TEXT * TIER_WEIGHT
    return None


def _token_score(f: SearchFields, token: Token) -> float | None:
    if token.kind == "phrase":
        return _literal(f, _squash(token.value), _squash)
    hit = _literal(f, token.value.lower(), str.lower)
    if hit is not None:
        return hit
    best = None
    for field in (f.name, f.cwd):
        s = fuzzy_score(token.value, field)
        if s is not None and (best is None or s < best):
            best = s
    return None if best is None else TIER_FUZZY * TIER_WEIGHT + best


def match_score(f: SearchFields, parsed: ParsedQuery) -> float | None:
    """The session's score for the query (lower is better), None when it does not match. Each
    token is matched within one field; different tokens may match different fields."""
    if parsed.error is not None:
        return None
    if parsed.regex is not None:
        rx = parsed.regex
        if f.name and rx.search(f.name):
            return TIER_NAME * TIER_WEIGHT
        if rx.search(f.id) or rx.search(f.messages) or rx.search(f.cwd):
            return TIER_TEXT * TIER_WEIGHT
        return None
    total = 0.0
    for token in parsed.tokens:
        if token.kind == "phrase" and not _squash(token.value):
            continue
        s = _token_score(f, token)
        if s is None:
            return None
        total += s
    return total


T = TypeVar("T")


def rank(
    items: Iterable[T], query: str, fields: Callable[[T], SearchFields], modified: Callable[[T], float]
) -> list[tuple[T, float]]:
    """The items that match ``query``, best score first, then newest first (pi's relevance
    order); every item, in its order, when the query is blank."""
    parsed = parse_query(query)
    if parsed.empty:
        return [(item, 0.0) for item in items]
    scored: list[tuple[T, float]] = []
    for item in items:
        s = match_score(fields(item), parsed)
        if s is not None:
            scored.append((item, s))
    scored.sort(key=lambda p: (p[1], -modified(p[0])))
    return scored

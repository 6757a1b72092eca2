"""oh-my-pi's own ``/tree`` rules, used for sessions omp wrote (docs/pi-releases.md).

omp's tree selector differs from pi's in two ways loomtui follows: the default and no-tools
filters hide omp's bookkeeping entry kinds as well as pi's (``OMP_SETTINGS_TYPES``), and the
search matches each query token fuzzily, word by word (``fuzzy_match``), against omp's
searchable text (``search_text``). Both sort the branch holding the leaf first, which
``view/flat.py`` already does for every session.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from loomtui.session.entries import MESSAGE, Entry
from loomtui.session.jsstr import js_string, utf16_slice
from loomtui.session.locations import default_session_dirs
from loomtui.view.flat import FilterKinds

#: entry kinds only omp writes (pi shows such kinds in its default filter; omp hides them)
OMP_ONLY_TYPES = frozenset(
    {
        "model_usage",
        "service_tier_change",
        "title_change",
        "credential_pin",
        "session_init",
        "ttsr_injection",
        "mode_change",
        "reset_boundary",
    }
)
#: what omp's default and no-tools filters hide: pi's settings kinds but ``session_info``, and omp's own
OMP_SETTINGS_TYPES = frozenset({"label", "custom", "model_change", "thinking_level_change"}) | OMP_ONLY_TYPES

#: the custom messages that start a user's turn when the user is their author (omp's
#: ``isUserTurnInitiator``): a ``/skill:`` prompt, a collab peer's prompt
USER_REQUEST_TYPES = frozenset({"skill-prompt", "collab-prompt"})

#: omp folds at most this much of a message's text into its search text
SEARCH_TEXT_LIMIT = 200


def is_omp_session(title: Any, path: str | None, entries: Iterable[Entry]) -> bool:
    """Whether omp wrote the session: it has omp's title slot (a ``title`` line before the
    header), lies under omp's sessions root, or holds an entry kind only omp writes."""
    if title is not None:
        return True
    if path is not None:
        root = os.path.join(os.path.abspath(default_session_dirs()[1]), "")
        if os.path.abspath(path).startswith(root):
            return True
    return any(e.type in OMP_ONLY_TYPES for e in entries)


def filter_kinds(load: Callable[[Entry], dict[str, Any]]) -> frozenset[str]:
    """omp's filter rules for a session whose full entries ``load`` reads: its settings kinds,
    and its user-only filter's user requests (omp's ``isUserRequestEntry``): a user's message,
    or a skill or collab prompt whose ``attribution`` is ``"user"`` (a ``custom_message`` entry
    whose content is text or blocks, or a message of role ``custom``)."""

    def user_request(e: Entry) -> bool:
        if e.aux not in USER_REQUEST_TYPES:  # the customType (only these two are looked at)
            return False
        if e.type == "custom_message":
            full = load(e)
            return full.get("attribution") == "user" and isinstance(full.get("content"), (str, list))
        if e.type == MESSAGE and e.role == "custom":
            msg = load(e).get("message")
            return isinstance(msg, dict) and msg.get("attribution") == "user"
        return False

    kinds = FilterKinds(OMP_SETTINGS_TYPES)
    kinds.user_request = user_request
    return kinds


# omp's search text ------------------------------------------------------------------------
_TYPE_WORDS = {
    "compaction": "compaction",
    "model_usage": "model usage",
    "service_tier_change": "service tier",
    "title_change": "title",
    "mode_change": "mode",
    "credential_pin": "credential pin",
    "ttsr_injection": "ttsr injection",
    "reset_boundary": "reset boundary",
    "session_init": "session init",
}
#: the fields omp adds to an omp-only kind's search text, in its order
_TYPE_FIELDS = {
    "model_usage": ("purpose", "role", "provider", "model"),
    "title_change": ("title",),
    "mode_change": ("mode",),
    "credential_pin": ("provider",),
    "ttsr_injection": ("injectedRules",),
}


def _field(v: Any) -> list[str]:
    if isinstance(v, list):
        return [js_string(x) for x in v]
    return ["" if v is None else " ".join(js_string(v).split())]


def search_text(e: Entry, label: Any, full: dict[str, Any] | None) -> str:
    """omp's ``getSearchableText``: the label, then per kind its role or kind words and text
    (a message's first ``SEARCH_TEXT_LIMIT`` UTF-16 units). ``full`` is the decoded entry,
    needed only for omp's own kinds and service tiers."""
    parts: list[str] = [js_string(label)] if label else []
    t = e.type
    if t == MESSAGE:
        parts += _message_parts(e)
    elif t == "custom_message":
        parts.append("" if e.aux is None else js_string(e.aux))
        if e.text:
            parts.append(utf16_slice(e.text, SEARCH_TEXT_LIMIT))
    elif t == "branch_summary":
        parts += ["branch summary", "" if e.text is None else js_string(e.text)]
    elif t in _SETTINGS_WORDS:
        default = "off" if t == "thinking_level_change" else ""
        parts += [_SETTINGS_WORDS[t], default if e.text is None else js_string(e.text)]
    elif t in _TYPE_WORDS:
        parts += _kind_parts(t, full or {})
    return " ".join(parts)


_SETTINGS_WORDS = {"model_change": "model", "thinking_level_change": "thinking", "custom": "custom", "label": "label"}


def _message_parts(e: Entry) -> list[str]:
    parts = ["" if e.role is None else e.role]
    if e.role == "bashExecution":
        if e.aux:
            parts.append(utf16_slice(js_string(e.aux), SEARCH_TEXT_LIMIT))
        if e.text:
            parts.append(e.text)
    elif e.text:
        parts.append(utf16_slice(e.text, SEARCH_TEXT_LIMIT))
    return parts


def _kind_parts(t: str, data: dict[str, Any]) -> list[str]:
    """An omp-only kind's words and fields (a service tier: each family and its tier)."""
    parts = [_TYPE_WORDS[t]]
    for key in _TYPE_FIELDS.get(t, ()):
        parts += _field(data.get(key))
    tier = data.get("serviceTier") if t == "service_tier_change" else None
    if isinstance(tier, dict):
        for family, value in tier.items():
            if value:
                parts += [family, js_string(value)]
    return parts


# omp's fuzzy matching (its ``fuzzyMatch``, reduced to whether a token matches) ------------
_UPPER_RUN = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NOT_WORD_ASCII = re.compile(r"[^a-z0-9]+")
_DIGIT_LETTER = re.compile(r"[a-z][0-9]|[0-9][a-z]")
#: a token shorter than this is not looked for again past a first hit inside a word
_MIN_RESCAN = 3


def normalize_for_search(value: str) -> str:
    """camelCase and ACRONYMWord split, lower case, every run of non-letters, non-marks and
    non-digits one space."""
    s = _CAMEL.sub(r"\1 \2", _UPPER_RUN.sub(r"\1 \2", value)).lower()
    if s.isascii():
        return " ".join(_NOT_WORD_ASCII.sub(" ", s).split())
    kept = "".join(c if unicodedata.category(c)[0] in "LMN" else " " for c in s)
    return " ".join(kept.split())


class SearchIndex:
    """A text split into omp's search words, and the words run together."""

    __slots__ = ("words", "compact", "starts")

    def __init__(self, text: str) -> None:
        normalized = normalize_for_search(text)
        self.words: list[str] = normalized.split(" ") if normalized else []
        self.compact = "".join(self.words)
        starts = set()
        at = 0
        for w in self.words:
            starts.add(at)
            at += len(w)
        self.starts = starts


def _compact_word_start(index: SearchIndex, needle: str) -> bool:
    compact = index.compact
    at = compact.find(needle)
    if at < 0:
        return False
    if at in index.starts:
        return True
    if len(needle) < _MIN_RESCAN:
        return False
    at = compact.find(needle, at + 1)
    while at >= 0:
        if at in index.starts:
            return True
        at = compact.find(needle, at + 1)
    return False


def _greedy_span(token: str, word: str) -> int:
    """The span omp's greedy subsequence scan covers in ``word``, or -1 when ``token`` is not
    a subsequence of it."""
    if len(token) > len(word):
        return -1
    q = 0
    first = last = -1
    for i, c in enumerate(word):
        if c == token[q]:
            if first < 0:
                first = i
            last = i
            q += 1
            if q == len(token):
                return last - first + 1
    return -1


def _word_matches(token: str, word: str) -> bool:
    if word.startswith(token) or token in word:
        return True
    if token.startswith(word) and len(token) - len(word) <= 2:
        return True
    span = _greedy_span(token, word)
    return 0 <= span <= max(len(token) + 2, math.ceil(len(token) * 1.8))


def _acronym(token: str, words: list[str]) -> bool:
    if not 2 <= len(token) <= 4 or not words:
        return False
    q = 0
    first = last = -1
    for ordinal, w in enumerate(words):
        if w[:1] != token[q]:
            continue
        if first < 0:
            first = ordinal
        last = ordinal
        q += 1
        if q == len(token):
            return last - first + 1 <= len(token) + 2
    return False


def _token_direct(token: str, index: SearchIndex) -> bool:
    if not token:
        return True
    if _compact_word_start(index, token):
        return True
    if any(_word_matches(token, w) for w in index.words):
        return True
    return _acronym(token, index.words)


def _swaps(token: str) -> list[str]:
    """The token with one adjacent letter-digit pair swapped, for each such pair."""
    out = []
    for i in range(len(token) - 1):
        if _DIGIT_LETTER.fullmatch(token[i : i + 2]):
            out.append(token[:i] + token[i + 1] + token[i] + token[i + 2 :])
    return out


def fuzzy_match(query: str, index: SearchIndex) -> bool:
    """Whether omp's ``fuzzyMatch(query, text)`` matches (``index`` made from the text)."""
    tokens = normalize_for_search(query)
    if not tokens:
        return True
    if not index.words:
        return False
    for token in tokens.split(" "):
        if not _token_direct(token, index) and not any(_token_direct(v, index) for v in _swaps(token)):
            return False
    return True

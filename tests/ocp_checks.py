"""The OCP conformance check made once per document in tests that open the same documents over
and over (``ocp_checked_once`` in ``tests/conftest.py``).

Every OCP open checks its document (``formats/ocp/check.attach_findings``); the reference
checker validates it against the JSON Schema and orders the findings by their full text, which
pretty-prints the document for each one: about half a second for a small bad run. The check is
a pure function of the document and the checker, so a test that opens one document many times
(each view, each first-screen size, here and in a forked child) gets the same findings from the
first check. What it is keyed by keeps every type apart (``repr``: a list is not a tuple, 1 is
not 1.0 or True), so a different document never gets another's findings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from loomtui.formats.ocp import check

#: findings by (checker, digest of the document's repr); forked children inherit what is here
_FINDINGS: dict[tuple[str, bytes], tuple[check.Finding, ...]] = {}


def _once(check_doc: Callable[[Any], list[check.Finding]]) -> Callable[[Any], list[check.Finding]]:
    def checked(doc: Any) -> list[check.Finding]:
        try:
            key = (check.checker_name(), hashlib.sha256(repr(doc).encode("utf-8", "surrogatepass")).digest())
        except RecursionError:  # nested too deeply to repr: checked as it comes
            return check_doc(doc)
        found = _FINDINGS.get(key)
        if found is None:
            found = _FINDINGS[key] = tuple(check_doc(doc))
        return list(found)

    return checked


def check_each_document_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``check.check_doc`` answers a document it has checked before from what it found then."""
    monkeypatch.setattr(check, "check_doc", _once(check.check_doc))

"""What a source gives the opener (``formats/detect.py``): one ``Adapter`` per source, listed in
``formats/sources.py``, and the ``Document`` being opened that its openers take."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from loomtui.session.errors import Diagnostic

if TYPE_CHECKING:
    from loomtui.session.catalog import SessionSummary
    from loomtui.session.manager import SessionManager

#: what ``Adapter.kind_of`` answers for a document that is this source's look-alike but that no
#: source reads (an OpenLoom ``format`` that is not "open-loom"): detection stops there
REFUSED = ""


@dataclass
class Document:
    """One parsed document being opened, and what its opener needs besides the document."""

    doc: Any
    path: str | None
    sha: str | None
    tree_id: str | None
    bundle_members: dict[str, int] | None
    bundle_heads: dict[str, bytes] | None
    diag: list[Diagnostic] = field(default_factory=list)
    #: the identity of the file the document was parsed from (``ocp/split.file_id``)
    file_id: Any = None

    @property
    def where(self) -> str:
        return self.path or "document"


@dataclass(frozen=True, slots=True)
class Adapter:
    """How the opener and the picker reach one source; every field is optional.

    * ``kind_of``: the kind of a parsed JSON document when this source reads it (else None,
      or ``REFUSED``), and ``openers``: the opener of each kind it names;
    * ``line_kind``: the kind of a file of JSON lines from its first real line (an agent's
      session file), ``file_kinds``: the kinds it names so, and ``open_file``: opens such a file
      given its path and kind;
    * ``picker_rows``: the picker's rows for the files under the directories the user named.
    """

    name: str
    kind_of: Callable[[Any], str | None] | None = None
    openers: Mapping[str, Callable[[Document], SessionManager]] = field(default_factory=dict)
    line_kind: Callable[[dict[str, Any]], str | None] | None = None
    file_kinds: tuple[str, ...] = ()
    open_file: Callable[[str, str], SessionManager] | None = None
    picker_rows: Callable[[Sequence[str]], list[SessionSummary]] | None = None

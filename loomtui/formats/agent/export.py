"""Export a branch of a Claude Code or Codex session in the tool's own format.

The new file sits next to the original (or in ``dir``, or at ``out``), is written atomically
and never over an existing file, and holds exactly the branch's lines as the tool wrote them,
in file order, so a reader of that format sees only that branch:

* Claude Code: ``<new session id>.jsonl`` with the root → leaf lines; only the ``sessionId``
  value of each line is replaced by the new id (the tool keys sessions by file name and id).
* Codex: ``rollout-<local time>-<new id>.jsonl``: the original ``session_meta`` line with the new
  id, then for each entry of the branch its line and the lines kept with it (turn contexts,
  events), except ``thread_rolled_back`` events, which would drop turns of the branch itself.

The result follows the formats as documented in docs/agent-formats.md; it was not checked against
the tools themselves.
"""

from __future__ import annotations

import os
import re
import uuid
from datetime import datetime
from typing import TYPE_CHECKING

import orjson

from loomtui.formats.agent.kinds import CLAUDE, CODEX
from loomtui.session import store, verify
from loomtui.session.errors import LoomError
from loomtui.session.fileio import open_regular
from loomtui.session.reader import line_value

if TYPE_CHECKING:
    from loomtui.formats.agent.session import AgentSession, AgentSource
    from loomtui.session.entries import Entry


def export_native(
    sm: AgentSession, leaf_id: str, dir: str | None = None, out: str | None = None, new_id: str | None = None
) -> str:
    """``new_id``: the new session's id (``loomtui resume`` names it before it is written)."""
    src = sm.agent
    kept, _labels = sm.branch_entries(leaf_id)
    if not kept:
        raise LoomError(
            f"entry {leaf_id} has no line of its own in {src.path} (a placeholder row); "
            "pick an entry of the conversation"
        )
    data = _read_whole(src.path)
    spans = sorted(src.spans[e.id] for e in kept)
    # every span copied is checked now, as it is copied: still a whole line, JSON, the same entry
    by_span = {src.spans[e.id]: e for e in kept}
    for span in spans:
        _check_span(src, data, span, by_span[span])
    new_id = new_id or str(uuid.uuid4())
    if src.tool == CLAUDE:
        pattern = re.compile(rb'("sessionId"\s*:\s*")' + re.escape(src.session_id.encode()) + rb'"')
        lines = [pattern.sub(lambda m: m.group(1) + new_id.encode() + b'"', data[o : o + s]) for o, s, _n in spans]
        name = f"{new_id}.jsonl"
    elif src.tool == CODEX:
        # each entry's own line, then the entry-less lines up to the next entry of the file
        starts = sorted((o, n) for o, _s, n in src.spans.values())
        next_entry = {n: (starts[k + 1][0] if k + 1 < len(starts) else len(data)) for k, (_o, n) in enumerate(starts)}
        at = data.find(src.preamble[0])
        if at < 0:
            raise verify.changed(src.path, "its session_meta line is gone")
        head = at + len(src.preamble[0]) + 1
        lines = [_codex_meta(src.preamble[0], src.session_id, new_id)]
        lines += _loose_lines(data, head, starts[0][0] if starts else len(data))
        for o, s, n in spans:
            lines.append(data[o : o + s])
            lines += _loose_lines(data, o + s + 1, next_entry[n])
        stamp = datetime.now().strftime("%Y-%m-%dT%H-%M-%S")
        name = f"rollout-{stamp}-{new_id}.jsonl"
    else:
        raise LoomError(f"cannot export {src.tool} sessions in their own format")
    if out is None:
        out = os.path.join(dir or os.path.dirname(src.path), name)
    store.write_new_file(out, b"\n".join(x.rstrip(b"\r\n") for x in lines) + b"\n")
    return os.path.abspath(out)


def _read_whole(path: str) -> bytes:
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _check_span(src: AgentSource, data: bytes, span: tuple[int, int, int], e: Entry) -> None:
    """WriteConflict (nothing written) unless ``span`` still holds ``e``'s line in ``data``."""
    o, s, line = span
    whole = (o == 0 or data[o - 1 : o] == b"\n") and data[o + s : o + s + 1] in (b"", b"\n", b"\r")
    try:
        obj = orjson.loads(data[o : o + s]) if whole and o + s <= len(data) else None
    except orjson.JSONDecodeError:  # JSON.parse's reading, as ``AgentSession.load`` reads it
        obj = line_value(data[o : o + s])
    if not src.holds(e, obj):
        raise verify.changed(src.path, f"line {line} no longer holds entry {e.id}")


def _codex_meta(raw: bytes, old: str, new: str) -> bytes:
    """The session_meta line with the new id (only the payload's ``id`` value changes)."""
    pattern = re.compile(rb'("id"\s*:\s*")' + re.escape(old.encode()) + rb'"')
    out, n = pattern.subn(lambda m: m.group(1) + new.encode() + b'"', raw, count=1)
    if n == 0:  # written some other way: rebuild it
        obj = orjson.loads(raw)
        obj["payload"]["id"] = new
        out = orjson.dumps(obj)
    return out


def _loose_lines(data: bytes, pos: int, end: int) -> list[bytes]:
    """The lines in ``data[pos:end]`` a branch export keeps (no rollbacks, no other session_meta)."""
    out = []
    while pos < end:
        nl = data.find(b"\n", pos, end)
        nl = end if nl < 0 else nl
        raw = data[pos:nl].rstrip(b"\r")
        if raw.strip() and _is_object(raw) and not _is_rollback(raw) and b'"session_meta"' not in raw[:80]:
            out.append(raw)
        pos = nl + 1
    return out


def _is_object(raw: bytes) -> bool:
    """Only JSON objects are copied: a line that is not one is no line the tool wrote."""
    try:
        return isinstance(orjson.loads(raw), dict)
    except orjson.JSONDecodeError:
        return False


def _is_rollback(raw: bytes) -> bool:
    if b"thread_rolled_back" not in raw:
        return False
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    p = obj.get("payload") if isinstance(obj, dict) else None
    return isinstance(p, dict) and p.get("type") == "thread_rolled_back"

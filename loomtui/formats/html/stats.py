"""The page's totals: turns, tokens and cost per model, counted while the entries are rendered
(``html/render.py``) and merged across the processes that render chunks (``html/export.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loomtui.view import blocks as B

#: the name a turn without a model is counted under
UNKNOWN_MODEL = "(unknown model)"
#: the most distinct (model, usage) values a ``Stats`` counts before adding them up
PENDING_TURNS = 4096


@dataclass
class ModelStats:
    turns: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0


@dataclass
class Stats:
    """Tokens and cost per model over every assistant turn of the session, and how many custom
    messages are marked hidden (the page offers its toggle only where there are some)."""

    hidden: int = 0
    _models: dict[str, ModelStats] = field(default_factory=dict)
    #: turns counted but not added up yet: [model, usage, turns] by their memo key (``count``)
    _pending: dict[Any, list[Any]] = field(default_factory=dict)

    @property
    def models(self) -> dict[str, ModelStats]:
        if self._pending:
            pending = list(self._pending.values())
            self._pending.clear()
            for model, usage, n in pending:
                self.add(model, usage, n)
        return self._models

    def add(self, model: str | None, usage: B.Usage | None, turns: int = 1) -> None:
        m = self.models.setdefault(model or UNKNOWN_MODEL, ModelStats())
        m.turns += turns
        if usage is not None:
            m.input += (usage.input or 0) * turns
            m.output += (usage.output or 0) * turns
            m.cache_read += (usage.cache_read or 0) * turns
            m.cache_write += (usage.cache_write or 0) * turns
            m.cost += (usage.cost or 0.0) * turns

    def count(self, key: Any, model: str | None, usage: B.Usage | None) -> None:
        """``add`` for a turn whose model and usage are those of ``key``: counted, and added up
        once per distinct key when the figures are asked for."""
        got = self._pending.get(key)
        if got is not None:
            got[2] += 1
        elif len(self._pending) < PENDING_TURNS:
            self._pending[key] = [model, usage, 1]
        else:
            self.add(model, usage)

    def merge(self, other: Stats) -> None:
        self.hidden += other.hidden
        for name, o in other.models.items():
            m = self.models.setdefault(name, ModelStats())
            m.turns += o.turns
            m.input += o.input
            m.output += o.output
            m.cache_read += o.cache_read
            m.cache_write += o.cache_write
            m.cost += o.cost

    def to_json(self) -> dict[str, Any]:
        models = {k: [m.turns, m.input, m.output, m.cache_read, m.cache_write, m.cost] for k, m in self.models.items()}
        return {"models": models, "hidden": self.hidden}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Stats:
        out = cls(hidden=int(obj["hidden"]))
        for k, v in obj["models"].items():
            out.models[k] = ModelStats(int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4]), float(v[5]))
        return out

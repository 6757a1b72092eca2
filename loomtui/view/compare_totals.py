"""What one branch of a comparison did, in figures: turns, user messages, tool calls, errors,
files touched, tokens, cost and wall time, and how they are said (under a column of the compare
screen, in ``diff``'s totals). Which of them a source keeps is its ``Source`` description's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from textwrap import wrap
from typing import Any

from loomtui.view.words import counted


@dataclass
class Totals:
    """What one branch did (from the common ancestor on)."""

    entries: int = 0
    turns: int = 0  # assistant messages: one model response each
    user_messages: int = 0
    tool_calls: int = 0
    errors: int = 0
    files: list[str] = field(default_factory=list)  # touched by edit/write tools, first touch first
    tokens: int = 0
    cost: float = 0.0
    #: the replies whose usage carries a token count, a cost: none on a branch with replies
    #: means the file does not record them there (never a 0)
    replies_with_tokens: int = 0
    replies_with_cost: int = 0
    wall_ms: float = 0.0
    #: the format keeps tokens, cost, times (``Source.keeps_usage``, ``counts_cost``, ``keeps_times``): else not shown
    usage_kept: bool = True
    cost_kept: bool = True
    timed: bool = True
    #: the entries are a conversation (``Source.has_leaf``): else only the entries are counted
    conversation: bool = True
    #: whose figures are not counted, the source's name with its article ("an OCP run")
    a_name: str = "this file"

    @property
    def tokens_recorded(self) -> bool:
        """The branch's token count is in the file: the format keeps one and a reply of the
        branch carries it (a branch without replies spent none)."""
        return self.usage_kept and (self.replies_with_tokens > 0 or self.turns == 0)

    @property
    def cost_recorded(self) -> bool:
        """As ``tokens_recorded``, for the cost."""
        return self.cost_kept and (self.replies_with_cost > 0 or self.turns == 0)

    def as_dict(self) -> dict[str, Any]:
        talk = self.conversation  # not counted without a conversation: None, never a 0
        return {
            "entries": self.entries,
            "turns": self.turns if talk else None,
            "user_messages": self.user_messages if talk else None,
            "tool_calls": self.tool_calls if talk else None,
            "errors": self.errors if talk else None,
            "files": list(self.files) if talk else None,
            "tokens": self.tokens if self.tokens_recorded else None,
            "cost": round(self.cost, 6) if self.cost_recorded else None,
            "wall_ms": int(self.wall_ms) if self.timed else None,
        }

    def spent(self, tokens: str = "tokens", cost: str = "{:.4f}") -> list[str]:
        """The tokens, cost and wall time the branch has, as short texts (none it has not:
        neither a figure the format does not keep nor one its replies do not carry)."""
        out = [f"{format_tokens(self.tokens)} {tokens}"] if self.tokens_recorded else []
        out += ["$" + cost.format(self.cost)] if self.cost_recorded else []
        return out + ([format_duration(self.wall_ms)] if self.timed else [])

    def unrecorded(self) -> str:
        """What the format keeps but none of the branch's replies carries, as the compare
        screen says it ("" when nothing is missing)."""
        missing = [what for what, kept, rec in self._usage_figures() if kept and not rec]
        return f"{' and '.join(missing)}: not in the file" if missing else ""

    def _usage_figures(self) -> tuple[tuple[str, bool, bool], ...]:
        return (
            ("tokens", self.usage_kept, self.tokens_recorded),
            ("cost", self.cost_kept, self.cost_recorded),
        )

    def not_kept(self) -> list[str]:
        """The figures the format does not keep (``spent`` leaves them out), and without a
        conversation the conversation's (``conversation``)."""
        talk = [] if self.conversation else list(CONVERSATION_FIGURES)
        kept = (("tokens", self.usage_kept), ("cost", self.cost_kept), ("wall time", self.timed))
        return talk + [what for what, k in kept if not k]

    def not_counted(self) -> str:
        """``not_kept`` as the CLI says it: "tokens, cost and wall time: not counted for an
        OCP run" ("" when everything is counted)."""
        missing = self.not_kept()
        if not missing:
            return ""
        listed = ", ".join(missing[:-1]) + (" and " if len(missing) > 1 else "") + missing[-1]
        return f"{listed}: not counted for {self.a_name}"

    def lines(self) -> list[str]:
        """The totals as short lines (under a column, after a text diff)."""
        if not self.conversation:  # an OCP run: its entries, and what is not counted (two lines)
            listed = ", ".join(f.replace(" ", "\u00a0") for f in self.not_kept())  # a figure's name kept whole
            head = f"{counted(self.entries, 'entry', 'entries')} · not counted for {self.a_name}:"
            return [head] + [line.replace("\u00a0", " ") for line in wrap(listed, 48)]
        files = ", ".join(self.files[:6]) + (f" (+{len(self.files) - 6})" if len(self.files) > 6 else "")
        return [
            f"{counted(self.turns, 'turn')} · {self.user_messages} user · {counted(self.tool_calls, 'tool call')} · "
            f"{counted(self.errors, 'error')}",
            " · ".join([*self.spent(), *filter(None, [self.unrecorded()])]) or self.not_counted(),
            f"{counted(len(self.files), 'file')} touched" + (f": {files}" if files else ""),
        ]

    def said(self, file_name: Callable[[str], str] = str) -> str:
        """The totals as one line of prose, for the carried digest (``view/carry_digest.py``):
        whole words ("1 user message"), figures the format does not keep left out, and no
        bare zeros where nothing was counted ("no tokens recorded", "no files touched");
        ``file_name`` writes each file (the digest: as Markdown code)."""
        if not self.conversation:
            return "; ".join(self.lines())
        talk = ", ".join(
            [
                counted(self.turns, "turn"),
                counted(self.user_messages, "user message"),
                counted(self.tool_calls, "tool call"),
                counted(self.errors, "error"),
            ]
        )
        parts = [talk]
        if self.usage_kept:
            spent = f"{format_tokens(self.tokens)} tokens" if self.tokens else "no tokens recorded"
            if self.cost_recorded and (self.tokens or self.cost):
                spent += f", ${self.cost:.4f}"
            parts.append(spent)
        if self.timed:
            parts.append(f"{format_duration(self.wall_ms)} of wall time")
        more = f" (+{len(self.files) - 6})" if len(self.files) > 6 else ""
        files = ", ".join(map(file_name, self.files[:6])) + more
        parts.append(f"{counted(len(self.files), 'file')} touched: {files}" if files else "no files touched")
        return "; ".join(parts)


#: what only a conversation has (``Totals.conversation``), as ``diff``'s totals name them
CONVERSATION_FIGURES = ("turns", "user messages", "tool calls", "errors", "files touched")


def format_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def format_duration(ms: float) -> str:
    s = int(ms // 1000)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"

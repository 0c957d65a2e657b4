"""Inlay hints: what the platform decides silently, written where the decision is made.

- after each route's `TO: Agent`: `returnable` or `permanent` (only the exact `RETURN: true`
  makes a route returnable), and how many of the route's lines sit under a value, read by
  nothing (`KEY_UNDER_VALUE`);
- where `HISTORY` is absent, after the target: the history the target gets (`full` unless the
  project sets another default); where a written value falls back, after it: `→ full`;
- after `RETURN: true`: the child fields that come back (only `MAP` entries do).
"""

from __future__ import annotations

from dataclasses import dataclass

from abl.model import Document
from abl.model.nesting import ignored_under_value
from abl.model.types import HandoffRoute
from abl.text import Position, Range


@dataclass(frozen=True, slots=True)
class InlayHint:
    position: Position
    label: str
    tooltip: str
    padding_left: bool = True


def inlay_hints(doc: Document, where: Range, default_history: str = "full") -> list[InlayHint]:
    hints: list[InlayHint] = []
    for agent in doc.agents:
        for route in agent.handoffs:
            if route.range.end.line < where.start.line or route.range.start.line > where.end.line:
                continue
            hints.extend(_route_hints(route, default_history))
    hints.sort(key=lambda h: h.position)
    return [h for h in hints if where.start <= h.position <= where.end]


def _route_hints(route: HandoffRoute, default_history: str) -> list[InlayHint]:
    out: list[InlayHint] = []
    returnable = route.returns is not None and route.returns.value.text == "true"
    if route.target is not None and route.target.text:
        label = "returnable" if returnable else "permanent"
        if route.history is None:
            label += f" · history {default_history}"
        tooltip = (
            "Whether the target hands control back (only the exact `RETURN: true` does), "
            "and how much history it receives when `HISTORY` is not written."
        )
        ignored = sum(1 for _ in ignored_under_value(route.node)) if route.node is not None else 0
        if ignored:
            label += f" · {ignored} nested line{'s' if ignored > 1 else ''} ignored"
            tooltip += " Lines nested under a key that holds a value are read by nothing (KEY_UNDER_VALUE)."
        out.append(InlayHint(route.target.range.end, label, tooltip))
    history = route.history
    if history is not None and history.fallback and not history.error:
        anchor = (
            history.written.range.end
            if history.written is not None
            else (history.mode.range.end if history.mode is not None else history.key_range.end)
        )
        out.append(InlayHint(anchor, "→ full", f"The platform silently reads this as `full`: {history.fallback}."))
    if returnable and route.returns is not None:
        mapped = [m.child.text for m in (route.on_return.map if route.on_return else ())] + [
            m.child.text for m in route.legacy_map
        ]
        label = "⟵ " + ", ".join(mapped) if mapped else "⟵ nothing mapped back"
        out.append(
            InlayHint(
                route.returns.value.range.end,
                label,
                "The child fields copied into the parent when the child returns (`MAP`).",
            )
        )
    return out

"""The handoff graph as Mermaid and DOT text.

Both drawings say the same things the same way: supervisors are hexagons, agents boxes; a
permanent handoff is a solid arrow, a returnable one a dashed blue arrow, and the built-in way
back a dotted grey arrow; a delegate is a bold arrow, an escalation an orange one, a tool a
plain line. Anything with an error or warning on it is red, and an unreachable agent is drawn
with a dashed outline. Edge labels are the route's `WHEN` and its history.

Names are written as labels only: node ids in the text are generated (`n0`, `n1`, ...), so no
agent name, however it is spelt, can break the syntax.
"""

from __future__ import annotations

from abl.ide.graph import GraphView
from abl.workspace.graph import EdgeKind, GraphEdge, NodeKind

PROBLEM_COLOUR = "#d1242f"
RETURNABLE_COLOUR = "#1f6feb"
RETURN_COLOUR = "#8c959f"
ESCALATE_COLOUR = "#bc4c00"
_LABEL_LIMIT = 48

_MERMAID_SHAPES = {
    NodeKind.SUPERVISOR: ('{{"', '"}}'),
    NodeKind.AGENT: ('["', '"]'),
    NodeKind.TOOL: ('[/"', '"/]'),
    NodeKind.ESCALATION: ('(["', '"])'),
    NodeKind.REMOTE: ('[["', '"]]'),
    NodeKind.MISSING: ('>"', '"]'),
}

_DOT_SHAPES = {
    NodeKind.SUPERVISOR: "hexagon",
    NodeKind.AGENT: "box",
    NodeKind.TOOL: "parallelogram",
    NodeKind.ESCALATION: "oval",
    NodeKind.REMOTE: "box3d",
    NodeKind.MISSING: "note",
}


def edge_label(edge: GraphEdge) -> str:
    """What an edge says in a drawing: the condition, and for a route its history."""
    parts = []
    if edge.kind is EdgeKind.RETURN:
        parts.append("return")
    if edge.via is not None:
        parts.append(edge.via)
    if edge.condition:
        text = " ".join(edge.condition.split())
        parts.append(text if len(text) <= _LABEL_LIMIT else text[: _LABEL_LIMIT - 1] + "…")
    if edge.kind is EdgeKind.HANDOFF and edge.history is not None and edge.via is None:
        count = f" {edge.history_count}" if edge.history_count is not None else ""
        parts.append(f"history {edge.history}{count}")
    return " · ".join(parts)


def node_label(view: GraphView, node_id: str, label: str, kind: NodeKind) -> str:
    prefix = {NodeKind.TOOL: "tool ", NodeKind.REMOTE: "remote ", NodeKind.MISSING: "missing "}.get(kind, "")
    project = view.projects.get(node_id)
    return f"{project}: {prefix}{label}" if project else f"{prefix}{label}"


# --- Mermaid ----------------------------------------------------------------------------------


def to_mermaid(view: GraphView) -> str:
    ids = {node.id: f"n{i}" for i, node in enumerate(view.nodes)}
    unreachable = set(view.unreachable)
    lines = ["flowchart LR"]
    for node in view.nodes:
        opening, closing = _MERMAID_SHAPES[node.kind]
        lines.append(
            f"  {ids[node.id]}{opening}{_mermaid_text(node_label(view, node.id, node.label, node.kind))}{closing}"
        )
    styles: dict[str, list[int]] = {}
    for index, (edge, codes) in enumerate(zip(view.edges, view.edge_codes, strict=True)):
        label = edge_label(edge)
        arrow = _mermaid_arrow(edge)
        text = f'|"{_mermaid_text(label)}"|' if label else ""
        lines.append(f"  {ids[edge.source]} {arrow}{text} {ids[edge.target]}")
        styles.setdefault(_edge_style(edge, codes), []).append(index)
    lines.append(f"  classDef problem stroke:{PROBLEM_COLOUR},stroke-width:3px")
    lines.append("  classDef unreachable stroke-dasharray:5 4")
    troubled = [ids[n.id] for n in view.nodes if view.node_codes.get(n.id)]
    if troubled:
        lines.append(f"  class {','.join(troubled)} problem")
    lost = [ids[n.id] for n in view.nodes if n.id in unreachable]
    if lost:
        lines.append(f"  class {','.join(lost)} unreachable")
    for style, indexes in styles.items():
        if style:
            lines.append(f"  linkStyle {','.join(map(str, indexes))} {style}")
    return "\n".join(lines) + "\n"


def _mermaid_arrow(edge: GraphEdge) -> str:
    if edge.kind is EdgeKind.HANDOFF:
        return "-.->" if edge.returnable else "-->"
    return {EdgeKind.RETURN: "-.->", EdgeKind.DELEGATE: "==>", EdgeKind.ESCALATE: "-->", EdgeKind.TOOL: "---"}[
        edge.kind
    ]


def _edge_style(edge: GraphEdge, codes: tuple[str, ...]) -> str:
    if codes:
        return f"stroke:{PROBLEM_COLOUR},stroke-width:3px"
    if edge.kind is EdgeKind.HANDOFF and edge.returnable:
        return f"stroke:{RETURNABLE_COLOUR}"
    if edge.kind is EdgeKind.RETURN:
        return f"stroke:{RETURN_COLOUR}"
    if edge.kind is EdgeKind.ESCALATE:
        return f"stroke:{ESCALATE_COLOUR}"
    return ""


def _mermaid_text(text: str) -> str:
    """Text for inside Mermaid's double quotes: quotes, `#` (which starts an entity) and `|`
    (which ends an edge label) become entity codes; line breaks become spaces."""
    text = " ".join(text.split())
    return text.replace("#", "#35;").replace('"', "#quot;").replace("|", "#124;")


# --- DOT --------------------------------------------------------------------------------------


def to_dot(view: GraphView) -> str:
    unreachable = set(view.unreachable)
    lines = [
        "digraph abl {",
        "  rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for node in view.nodes:
        attrs = {"label": node_label(view, node.id, node.label, node.kind), "shape": _DOT_SHAPES[node.kind]}
        styles = []
        if node.id in unreachable:
            styles.append("dashed")
        if view.node_codes.get(node.id):
            attrs["color"] = PROBLEM_COLOUR
            attrs["penwidth"] = "2"
        if styles:
            attrs["style"] = ",".join(styles)
        lines.append(f"  {_dot_id(node.id)} [{_dot_attrs(attrs)}];")
    for edge, codes in zip(view.edges, view.edge_codes, strict=True):
        attrs = {"label": edge_label(edge)} if edge_label(edge) else {}
        attrs.update(_dot_edge_look(edge))
        if codes:
            attrs["color"] = PROBLEM_COLOUR
            attrs["penwidth"] = "2"
            attrs["tooltip"] = ", ".join(codes)
        lines.append(f"  {_dot_id(edge.source)} -> {_dot_id(edge.target)} [{_dot_attrs(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_edge_look(edge: GraphEdge) -> dict[str, str]:
    if edge.kind is EdgeKind.HANDOFF:
        return {"style": "dashed", "color": RETURNABLE_COLOUR} if edge.returnable else {}
    return {
        EdgeKind.RETURN: {"style": "dotted", "color": RETURN_COLOUR},
        EdgeKind.DELEGATE: {"style": "bold"},
        EdgeKind.ESCALATE: {"color": ESCALATE_COLOUR},
        EdgeKind.TOOL: {"arrowhead": "none"},
    }[edge.kind]


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot_attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{key}={_dot_id(' '.join(value.split()))}" for key, value in attrs.items())

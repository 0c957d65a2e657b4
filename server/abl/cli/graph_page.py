"""The handoff graph as one self-contained HTML page: the JSON export and a small renderer
(`graph_page.js`, plain JavaScript drawing SVG) inlined, so the page opens in any browser
without a network. The renderer lays out, routes and labels the graph as the editor's graph
view does (`vscode-extension/src/graph/graphLayout.ts`: layers, ways back below the boxes they
pass, labels clear of other edges' lines), so the page and the view draw the same picture."""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from abl.cli.graph_text import ESCALATE_COLOUR, PROBLEM_COLOUR, RETURN_COLOUR, RETURNABLE_COLOUR


@cache
def _renderer() -> str:
    return Path(__file__).with_name("graph_page.js").read_text(encoding="utf-8")


def to_html(graph: dict[str, Any], title: str) -> str:
    # `<` is escaped so that no text in the data can close the script element.
    payload = json.dumps(graph, ensure_ascii=False).replace("<", "\\u003c")
    parts = {"TITLE": html.escape(title), "STYLE": _STYLE, "DATA": payload, "SCRIPT": _renderer()}
    # One pass, so that text inside the data is never taken for a placeholder.
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _PAGE)


_PLACEHOLDER = re.compile(r"@(TITLE|STYLE|DATA|SCRIPT)@")

_STYLE = f"""
  :root {{ font-family: system-ui, sans-serif; color: #1f2328; }}
  body {{ margin: 0; display: flex; height: 100vh; }}
  main {{ flex: 1; position: relative; }}
  #graph {{ width: 100%; height: 100%; background: #fbfbfc; cursor: grab; display: block; }}
  #fit {{ position: absolute; top: 10px; left: 10px; }}
  aside {{ width: 300px; overflow: auto; padding: 12px 16px; border-left: 1px solid #d0d7de; font-size: 13px; }}
  h1 {{ font-size: 15px; margin: 0 0 4px; }} h2 {{ font-size: 13px; margin: 16px 0 4px; }}
  ul {{ margin: 0; padding-left: 18px; }} li.none {{ list-style: none; margin-left: -18px; color: #656d76; }}
  dl {{ display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }}
  dt {{ color: #656d76; }} dd {{ margin: 0; word-break: break-word; }}
  .legend span {{ display: inline-block; width: 26px; border-top: 2px solid #57606a; vertical-align: middle; margin-right: 6px; }}
  .node rect {{ fill: #ffffff; stroke: #57606a; stroke-width: 1.4; }}
  .node.supervisor rect {{ fill: #ddf4ff; }}
  .node.tool rect {{ fill: #f6f8fa; stroke: #afb8c1; }}
  .node.escalation rect {{ fill: #fff1e5; stroke: {ESCALATE_COLOUR}; }}
  .node.remote rect, .node.missing rect {{ fill: #f6f8fa; stroke-dasharray: 3 3; }}
  .node.unreachable rect {{ stroke-dasharray: 6 4; fill: #f6f8fa; }}
  .node.problem rect {{ stroke: {PROBLEM_COLOUR}; stroke-width: 2.6; }}
  .node text {{ text-anchor: middle; font-size: 12px; pointer-events: none; }}
  .node, .edge {{ cursor: pointer; }}
  .edge .line {{ fill: none; stroke: #57606a; stroke-width: 1.5; }}
  .edge .hit {{ fill: none; stroke: transparent; stroke-width: 12; }}
  .edge.returnable .line {{ stroke: {RETURNABLE_COLOUR}; stroke-dasharray: 7 4; }}
  .edge.return .line {{ stroke: {RETURN_COLOUR}; stroke-dasharray: 2 4; }}
  .edge.delegate .line {{ stroke-width: 3; }}
  .edge.escalate .line {{ stroke: {ESCALATE_COLOUR}; }}
  .edge.tool .line {{ stroke: #afb8c1; }}
  .edge.problem .line {{ stroke: {PROBLEM_COLOUR}; stroke-width: 2.6; }}
  .edge .label {{ font-size: 10px; fill: #656d76; text-anchor: middle; pointer-events: none;
                 paint-order: stroke; stroke: #fbfbfc; stroke-width: 3px; stroke-linejoin: round; }}
  .edge.problem .label {{ fill: {PROBLEM_COLOUR}; }}
"""

_MARKERS = "".join(
    f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
    f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
    for name, colour in (
        ("plain", "#57606a"),
        ("returnable", RETURNABLE_COLOUR),
        ("return", RETURN_COLOUR),
        ("escalate", ESCALATE_COLOUR),
        ("problem", PROBLEM_COLOUR),
    )
)

_PAGE = (
    """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>@STYLE@</style>
</head>
<body>
<main>
<svg id="graph" xmlns="http://www.w3.org/2000/svg"><defs>"""
    + _MARKERS
    + """</defs></svg>
<button id="fit" type="button">Fit</button>
</main>
<aside>
<h1>@TITLE@</h1>
<div id="counts"></div>
<h2>Selected</h2>
<dl id="info"><dt>Click</dt><dd>a node or an edge to see where it is written and what is wrong with it.</dd></dl>
<h2>Unreachable agents</h2>
<ul id="unreachable"></ul>
<h2>Handoff loops</h2>
<ul id="cycles"></ul>
<h2>Legend</h2>
<div class="legend">
<div><span></span>permanent handoff</div>
<div><span style="border-top: 2px dashed """
    + RETURNABLE_COLOUR
    + """"></span>returnable handoff</div>
<div><span style="border-top: 2px dotted """
    + RETURN_COLOUR
    + """"></span>way back to the parent</div>
<div><span style="border-top-width: 4px"></span>delegate</div>
<div><span style="border-color: """
    + ESCALATE_COLOUR
    + """"></span>escalation</div>
<div><span style="border-color: """
    + PROBLEM_COLOUR
    + """"></span>has a problem</div>
</div>
</aside>
<script type="application/json" id="graph-data">@DATA@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""
)

"""A stable, readable dump of a tree, used by snapshot tests and `abl` debugging."""

from __future__ import annotations

from abl.syntax.cst import Node, SourceFile, TriviaKind


def dump(source: SourceFile) -> str:
    out: list[str] = []

    def trivia(node_or_list) -> None:
        for t in node_or_list:
            kind = "comment" if t.kind is TriviaKind.COMMENT else "blank"
            out.append(f"{'  ' * depth[0]}~{kind} {t.row + 1}: {source.text[t.start : t.end].strip()!r}")

    depth = [0]

    def node(n: Node) -> None:
        trivia(n.leading)
        pad = "  " * depth[0]
        r = n.head_range
        where = f"{r.start.line + 1}:{r.start.character + 1}"
        if n.is_entry:
            line = f"{pad}ENTRY {where} {n.key!r}"
            if n.is_pipe:
                line += f" pipe={n.value.strip()!r} text={n.pipe_text!r}"
            elif n.has_value:
                line += f" = {n.value!r}"
        elif n.is_item:
            line = f"{pad}ITEM {where}"
        else:
            line = f"{pad}TEXT {where} {n.value!r}"
        if n.comment_start >= 0:
            end = source.text.find("\n", n.comment_start)
            line += f" comment={source.text[n.comment_start : end if end >= 0 else len(source.text)].strip()!r}"
        out.append(line)
        depth[0] += 1
        for c in n.children:
            node(c)
        depth[0] -= 1

    for n in source.nodes:
        node(n)
    trivia(source.trailing)
    for d in source.diagnostics:
        r = d.range
        out.append(
            f"!{d.code} {r.start.line + 1}:{r.start.character + 1}-{r.end.line + 1}:{r.end.character + 1} {d.message}"
        )
    return "\n".join(out) + "\n"

"""Document links: file paths an ABL file names, linked only when the file exists.

Each link is written `line:start-end text -> target`, with the target relative to the project
folder and the text the link covers (the path alone, quotes excluded).
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.ide.links import document_links
from abl.text import LineIndex
from abl.workspace import Project, load_project

MAIN = """\
SUPERVISOR: Main
AGENTS:
  - REF: ./cards.agent.abl
    ALIAS: cards
  - REF: ./missing.agent.abl
TOOLS:
  file: "../tools/bank.tools.abl" [get_accounts, get_cards]
  file: '../tools/none.tools.abl'
  file: "https://example.com/x.tools.abl"
  file: "./{{ folder }}/x.tools.abl"
  file: "./工具.tools.abl"   # a name in CJK
NLU:
  EXAMPLES_FILE: "./nlu/examples.txt"
  config_file: "./nlu/config.yaml"
GOAL: "./cards.agent.abl is only text here"
"""

FILES = {
    "agents/main.agent.abl": MAIN,
    "agents/cards.agent.abl": "AGENT: Cards\n",
    "agents/工具.tools.abl": "TOOLS:\n  f() -> {a: string}\n",
    "agents/nlu/examples.txt": "hello\n",
    "tools/bank.tools.abl": "TOOLS:\n  get_accounts() -> {a: string}\n",
}


def render(project: Project, path: str, root: str) -> list[str]:
    index = LineIndex(project.texts[path])
    out = []
    for link in document_links(project, path):
        r = link.range
        assert r.start.line == r.end.line
        text = index.line_text(r.start.line)[r.start.character : r.end.character]
        target = os.path.relpath(link.target_path, root).replace(os.sep, "/")
        out.append(f"{r.start.line}:{r.start.character}-{r.end.character} {text} -> {target}")
    return out


def test_links_on_disk(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    project, problems = load_project([str(tmp_path)])
    assert not problems
    main = str(tmp_path / "agents" / "main.agent.abl")
    assert render(project, main, str(tmp_path)) == [
        "2:9-26 ./cards.agent.abl -> agents/cards.agent.abl",
        "6:9-32 ../tools/bank.tools.abl -> tools/bank.tools.abl",
        "10:9-23 ./工具.tools.abl -> agents/工具.tools.abl",
        "12:18-36 ./nlu/examples.txt -> agents/nlu/examples.txt",
    ]


def test_links_to_files_known_only_to_the_project() -> None:
    project = Project("/p")
    project.update("/p/a.agent.abl", 'AGENT: A\nTOOLS:\n  file: "./lib/b.tools.abl" [x]\n  file: "./lib/c.tools.abl"\n')
    project.update("/p/lib/b.tools.abl", "TOOLS:\n  x() -> {a: string}\n")
    assert render(project, "/p/a.agent.abl", "/p") == ["2:9-26 ./lib/b.tools.abl -> lib/b.tools.abl"]


def test_an_unknown_path_has_no_links() -> None:
    assert document_links(Project("/p"), "/p/none.abl") == []


FRAGMENTS = st.sampled_from(
    [
        "file: ",
        "REF: ",
        "x_file: ",
        '"',
        "'",
        "./",
        "../",
        "a.abl",
        "[",
        "]",
        "\n",
        "  ",
        "- ",
        "\x00",
        "漢",
        "|\n",
        "{{",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), st.lists(FRAGMENTS, max_size=30).map("".join)))
def test_any_text_gives_links_inside_their_line(text: str) -> None:
    project = Project("/p")
    project.update("/p/main.abl", text)
    project.update("/p/a.abl", "")
    index = LineIndex(text)
    for link in document_links(project, "/p/main.abl"):
        r = link.range
        assert r.start.line == r.end.line and 0 <= r.start.character < r.end.character
        assert r.end.character <= len(index.line_text(r.start.line))


def test_nesting_deeper_than_the_recursion_limit() -> None:
    depth = 3000
    text = (
        "AGENT: A\nX:\n"
        + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(depth))
        + "  " * (depth + 1)
        + "file: './a.abl'\n"
    )
    project = Project("/p")
    project.update("/p/main.abl", text)
    project.update("/p/a.abl", "")
    [link] = document_links(project, "/p/main.abl")
    assert link.target_path == "/p/a.abl"

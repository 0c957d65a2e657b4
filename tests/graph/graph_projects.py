"""Projects the graph tests draw: the bundled examples, generated projects and fixture texts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from abl.workspace import Project, load_projects
from fixture import parse_fixture

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def generator():  # type: ignore[no-untyped-def]
    """`bench/generate.py`, the generator of the benchmarks' projects."""
    spec = importlib.util.spec_from_file_location("abl_bench_generate", REPO / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("abl_bench_generate", module)
    spec.loader.exec_module(module)
    return module


def example(name: str) -> Project:
    projects, problems = load_projects([str(EXAMPLES / name)])
    assert not problems and len(projects) == 1
    return projects[0]


def fixture_project(text: str) -> Project:
    """A fixture text (`#- /path` headers split it into files) as a project."""
    fx = parse_fixture(text)
    project = Project("/")
    for path, body in fx.files.items():
        project.update(path, body)
    return project


def generated_project(root: Path, agents: int) -> Project:
    generator().write_project(root, agents)
    projects, problems = load_projects([str(root)])
    assert not problems
    return projects[0]

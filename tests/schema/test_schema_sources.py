"""Every keyword written in the reference material is known to the catalogue.

The reference examples, the ABL blocks of the two seeds and Appendix C of the language
reference are read in place from the shared folder beside the project (`../shared`, or
`ABL_SHARED_DIR` when set);
without it these tests skip and say why. The catalogue's own examples are checked always.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from schema_walk import walk

from abl.schema import DocumentKind, Section, all_sections, section

SHARED = Path(os.environ.get("ABL_SHARED_DIR", Path(__file__).resolve().parents[3] / "shared"))
EXAMPLES = SHARED / "spec" / "examples"
SEEDS = SHARED / "seeds"
REFERENCE = SHARED / "spec" / "ABL-REFERENCE.md"

# The line pattern of the brief: a column-0 keyword followed by a colon.
SECTION_LINE = re.compile(r"^([A-Z_][A-Z_ ]*):", re.MULTILINE)


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern)) if folder.is_dir() else []


def _skip_without(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} is not present; set ABL_SHARED_DIR to the folder holding spec/ and seeds/")


EXAMPLE_FILES = _files(EXAMPLES, "*.abl")
SEED_FILES = _files(SEEDS, "*.txt")


def test_the_walker_reports_what_the_catalogue_does_not_know() -> None:
    text = (
        "AGENT: A\nGOLA: x\nGATHER:\n  f:\n    TYPE: strng\n    PROMT: x\n"
        "HANDOFF:\n  - TO: B\n    CONTEXT:\n      histroy: full\n    HISTORY: recent\n"
        "    ON_FAILURE: retry\nAGENTS:\n  - REF: x\n"
    )
    assert [p.message for p in walk(text)] == [
        "unknown section GOLA",
        "value strng not allowed for type",
        "unknown key PROMT under <field>",
        "unknown key histroy under CONTEXT",
        "value recent not allowed for HISTORY",
        "value retry not allowed for ON_FAILURE",
        "AGENTS not allowed in agent",
    ]


def test_reference_material_is_found_or_skipped_clearly() -> None:
    _skip_without(EXAMPLES)
    assert EXAMPLE_FILES, f"{EXAMPLES} holds no .abl files"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def test_every_section_name_in_the_examples_is_known(path: Path) -> None:
    names = SECTION_LINE.findall(path.read_text(encoding="utf-8"))
    assert names, f"{path.name}: no sections found"
    unknown = [n for n in names if section(n) is None]
    assert not unknown, f"{path.name}: unknown sections {unknown}"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def test_every_key_and_simple_value_in_the_examples_is_known(path: Path) -> None:
    assert walk(path.read_text(encoding="utf-8")) == []


def _seed_blocks() -> list[tuple[str, str]]:
    blocks = []
    for path in SEED_FILES:
        text = path.read_text(encoding="utf-8")
        for i, block in enumerate(re.findall(r"```yaml[^\n]*\n(.*?)```", text, re.S)):
            blocks.append((f"{path.stem}#{i}", block))
    return blocks


SEED_BLOCKS = _seed_blocks()


def test_seed_blocks_are_found_or_skipped_clearly() -> None:
    _skip_without(SEEDS)
    assert len(SEED_BLOCKS) >= 8, "the two seeds hold at least eight ABL blocks"


@pytest.mark.parametrize(("name", "block"), SEED_BLOCKS, ids=[n for n, _ in SEED_BLOCKS])
def test_every_key_and_simple_value_in_the_seeds_is_known(name: str, block: str) -> None:
    assert walk(block) == [], name


def _appendix_c_blocks() -> list[str]:
    if not REFERENCE.exists():
        return []
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.find("## Appendix C")
    return re.findall(r"```\n(.*?)```", text[start:], re.S) if start >= 0 else []


APPENDIX_C = _appendix_c_blocks()


def test_appendix_c_is_found_or_skipped_clearly() -> None:
    _skip_without(REFERENCE)
    assert len(APPENDIX_C) == 3


@pytest.mark.parametrize("block", APPENDIX_C, ids=[f"appendix-c-{i}" for i in range(len(APPENDIX_C))])
def test_every_key_in_appendix_c_is_known(block: str) -> None:
    assert walk(block) == []


def test_section_inventory_of_the_reference_is_known() -> None:
    _skip_without(REFERENCE)
    text = REFERENCE.read_text(encoding="utf-8")
    inventory = text[text.index("### 3.0 Inventory") : text.index("### 3.1 ")]
    names = {m.rstrip(":") for m in re.findall(r"`([A-Z][A-Z_ ]*:?)`", inventory)}
    assert len(names) > 50
    assert sorted(n for n in names if section(n) is None) == []


def _header_for(sec: Section) -> str:
    if sec.opens is not None or DocumentKind.TOOLS_LIBRARY in sec.documents:
        return ""
    if DocumentKind.AGENT in sec.documents:
        return "AGENT: Example_Agent\n"
    if DocumentKind.SUPERVISOR in sec.documents:
        return "SUPERVISOR: Example_Supervisor\n"
    return "BEHAVIOR_PROFILE: example\n"


WITH_EXAMPLES = [s for s in all_sections() if s.key.example]


@pytest.mark.parametrize(
    "sec",
    WITH_EXAMPLES,
    ids=[f"{s.name}-{min(d.value for d in s.documents)}" for s in WITH_EXAMPLES],
)
def test_catalogue_examples_pass_the_catalogue(sec: Section) -> None:
    assert walk(_header_for(sec) + sec.key.example + "\n") == []

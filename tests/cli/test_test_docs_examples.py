"""The examples in docs/conversation-tests.md are real: every YAML block parses, whole files pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from abl.runtime.testing.loader import load_file
from abl.runtime.testing.runner import Runner

ROOT = Path(__file__).resolve().parents[1].parent
PAGE = ROOT / "docs" / "conversation-tests.md"
BLOCKS = re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
WHOLE_FILES = [b for b in BLOCKS if re.search(r"^project:", b, flags=re.M) and re.search(r"^tests:", b, flags=re.M)]


def test_the_page_has_examples():
    assert len(BLOCKS) >= 10
    assert WHOLE_FILES


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_every_yaml_block_parses(block: str):
    # Blocks that list alternatives repeat a key; PyYAML keeps the last, which is enough here.
    assert yaml.safe_load(block) is not None


@pytest.mark.parametrize("block", WHOLE_FILES, ids=[f"file{i}" for i in range(len(WHOLE_FILES))])
def test_whole_file_examples_run_and_pass(tmp_path: Path, block: str):
    text = re.sub(r"^project: \.(\s)", rf"project: {ROOT / 'examples' / 'loan-supervisor'}\1", block, flags=re.M)
    path = tmp_path / "example.abltest.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_file(path)
    runner = Runner()
    results = [runner.run(loaded, c) for c in loaded.conversations]
    assert [r.status for r in results] == ["passed"] * len(results), [r.error or r.turns for r in results]

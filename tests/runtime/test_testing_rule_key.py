"""A test's `rule:` block: the sentence it is written against, read as data and never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.runtime.testing import FormatError, load_file
from abl.runtime.testing.format import RuleRef

HEAD = "project: .\nagent: A\ntests:\n  - name: a\n    turns: [hi]\n    rule:\n"


def _load(tmp_path: Path, rule: str):
    path = tmp_path / "rule.abltest.yaml"
    path.write_text(HEAD + rule)
    return load_file(path), path


def test_a_rule_is_read_with_its_fields(tmp_path: Path):
    loaded, _ = _load(
        tmp_path,
        "      id: H-01\n      source: seed 000, Concept\n      quote: The default is full.\n"
        "      status: not run locally\n      reason: needs a remote agent\n      reading: one of two\n",
    )
    assert loaded.conversations[0].rule == RuleRef(
        id="H-01",
        source="seed 000, Concept",
        quote="The default is full.",
        status="not run locally",
        reason="needs a remote agent",
        reading="one of two",
    )


def test_a_test_without_a_rule_has_none(tmp_path: Path):
    path = tmp_path / "plain.abltest.yaml"
    path.write_text("project: .\nagent: A\ntests:\n  - name: a\n    turns: [hi]\n")
    assert load_file(path).conversations[0].rule is None


BAD = [
    ("      id: H-01\n      source: s\n      quote: q\n      status: hold\n", '10: `rule.status` must be "holds"'),
    ("      id: H-01\n      source: s\n      quote: q\n      status: not run locally\n", "10: a rule that is not run"),
    ("      id: H-01\n      source: s\n      status: holds\n", "7: missing `quote`"),
    (
        "      id: H-01\n      source: s\n      quote: q\n      status: holds\n      sorce: x\n",
        "11: unknown key `sorce`",
    ),
    ("      [a, b]\n", "6: `rule` must be a mapping"),
]


@pytest.mark.parametrize(("rule", "message"), BAD, ids=[m.split(": ", 1)[-1][:30] for _, m in BAD])
def test_a_malformed_rule_names_the_line(tmp_path: Path, rule: str, message: str):
    with pytest.raises(FormatError) as caught:
        _load(tmp_path, rule)
    assert message in str(caught.value)

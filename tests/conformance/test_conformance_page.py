"""docs/conformance.md is the suite's own page: regenerated, it must not change."""

from __future__ import annotations

import generate


def test_the_page_is_up_to_date():
    page = generate.PAGE.read_text(encoding="utf-8")
    assert page == generate.render(generate.suite_files(), generate.known_failures()), (
        "docs/conformance.md is out of date: run python tests/conformance/generate.py"
    )


def test_every_conversation_names_its_rule_once():
    ids: dict[str, str] = {}
    for loaded in generate.suite_files():
        for conv in loaded.conversations:
            assert conv.rule is not None, f"{loaded.path.name}: {conv.name!r} has no `rule`"
            assert conv.rule.id not in ids, f"rule {conv.rule.id} is checked by {ids[conv.rule.id]!r} and {conv.name!r}"
            ids[conv.rule.id] = conv.name
    for _, rows in generate.python_rules({}):
        for entry in rows:
            assert entry.rule.id not in ids, f"rule {entry.rule.id} is checked twice"
            ids[entry.rule.id] = entry.name


def test_every_expected_failure_names_a_test_of_the_suite():
    tests = {e.test_id for _, rows in generate.entries(generate.suite_files(), {}) for e in rows}
    for module in generate.SUITE.glob("test_*.py"):
        text = module.read_text(encoding="utf-8")
        tests.update(
            f"{module.name}::{line[4:].split('(')[0]}" for line in text.splitlines() if line.startswith("def test_")
        )
    unknown = sorted(set(generate.known_failures()) - tests)
    assert not unknown, f"conftest.py lists tests that do not exist: {unknown}"

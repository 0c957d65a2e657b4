"""The condition grammar ships with the package and has no hidden LALR conflicts."""

import logging

import lark

from abl import resources
from abl.expr.build import GRAMMAR_FILE, parser


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_grammar_is_loaded_through_resources():
    text = resources.grammar_text(GRAMMAR_FILE)
    assert "?start" in text and "IS_NOT_SET" in text


def test_grammar_has_no_shift_reduce_conflicts():
    collect = _Collect()
    logger = lark.logger
    old_level = logger.level
    logger.addHandler(collect)
    logger.setLevel(logging.DEBUG)
    try:
        lark.Lark(resources.grammar_text(GRAMMAR_FILE), parser="lalr", debug=True)
    finally:
        logger.removeHandler(collect)
        logger.setLevel(old_level)
    conflicts = [m for m in collect.messages if "conflict" in m.lower()]
    assert conflicts == []


def test_parser_is_built_once():
    assert parser() is parser()

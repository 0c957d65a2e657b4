"""Syntax: text → lossless concrete syntax tree plus syntax diagnostics. Never raises."""

from abl.syntax.cst import Node, NodeKind, SourceFile, Trivia
from abl.syntax.parser import parse
from abl.syntax.values import Value, ValueKind, read_value, unquote

__all__ = ["Node", "NodeKind", "SourceFile", "Trivia", "Value", "ValueKind", "parse", "read_value", "unquote"]

"""The semantic model: typed agents, routes, history specs and returns, with source ranges."""

from abl.gcpause import paused_gc
from abl.model.fields import (
    WriteAccess,
    WriteRefusal,
    declared_variables,
    handoff_assignments,
    own_assignments,
    produced_fields,
    set_targets,
)
from abl.model.lower import lower, parse_failure
from abl.model.types import *  # noqa: F403  (the model's vocabulary is its public API)
from abl.model.types import Agent, Document
from abl.syntax.parser import parse


def load_document(text: str, path: str = "<memory>") -> Document:
    """Parse and lower one file. Never raises."""
    with paused_gc():
        return lower(parse(text), path)


__all__ = [
    "Agent",
    "Document",
    "WriteAccess",
    "WriteRefusal",
    "declared_variables",
    "handoff_assignments",
    "load_document",
    "lower",
    "own_assignments",
    "parse_failure",
    "produced_fields",
    "set_targets",
]

"""The ABL condition language: parse (`parse_condition`), inspect (`names`, ...), evaluate.

`grammar/condition.lark` is the syntax; `values` holds the null-safe coercion rules;
`functions` the pure built-ins. Nothing here raises on bad input: problems come back as
`ExprError(span, message)` with offsets into the condition text.
"""

from .ast import (
    Binary,
    Call,
    Compare,
    Expr,
    Group,
    In,
    Index,
    IsNumber,
    IsSet,
    ListLiteral,
    Literal,
    Member,
    ObjectEntry,
    ObjectLiteral,
    Path,
    RegexLiteral,
    Span,
    Ternary,
    TextOp,
    Unary,
    format_path,
    walk,
)
from .evaluate import EvalResult, evaluate, evaluate_text
from .functions import Environment, is_known_function
from .parse import ConditionParse, ExprError, parse_condition
from .query import (
    EmptyStringComparison,
    NameRef,
    compared_texts,
    empty_string_comparisons,
    function_calls,
    mixes_routing_state,
    names,
)
from .scope import ChainScope, DictScope, Scope
from .show import show
from .values import UNDEFINED, is_missing, truthy

__all__ = [
    "UNDEFINED",
    "Binary",
    "Call",
    "ChainScope",
    "Compare",
    "ConditionParse",
    "DictScope",
    "EmptyStringComparison",
    "Environment",
    "EvalResult",
    "Expr",
    "ExprError",
    "Group",
    "In",
    "Index",
    "IsNumber",
    "IsSet",
    "ListLiteral",
    "Literal",
    "Member",
    "NameRef",
    "ObjectEntry",
    "ObjectLiteral",
    "Path",
    "RegexLiteral",
    "Scope",
    "Span",
    "Ternary",
    "TextOp",
    "Unary",
    "compared_texts",
    "empty_string_comparisons",
    "evaluate",
    "evaluate_text",
    "format_path",
    "function_calls",
    "is_known_function",
    "is_missing",
    "mixes_routing_state",
    "names",
    "parse_condition",
    "show",
    "truthy",
    "walk",
]

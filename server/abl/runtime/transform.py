"""`TRANSFORM`: reshape a list (filter, map, sort, limit) into a variable, without code.

Inside `FILTER` and `MAP` the element is reachable by the `AS` name (`item` by default), and
the thread's values by their own names. Sorting puts numbers before texts and missing values
last, so any list sorts without an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from abl.expr import Environment
from abl.model.steps import TransformSpec
from abl.runtime.evaluation import check, lookup_path, value_of


def run_transform(spec: TransformSpec, values: Mapping[str, Any], env: Environment) -> tuple[list[Any] | None, str]:
    """The reshaped list, or None and why it could not be made."""
    source, problems = value_of(spec.source, values, env)
    if source is None:
        return None, f"`{spec.source}` has no value" + (f" ({'; '.join(problems)})" if problems else "")
    if not isinstance(source, list):
        return None, f"`{spec.source}` is not a list"
    out: list[Any] = []
    for element in source:
        bound = {spec.item: element}
        if spec.filter is not None and not check(spec.filter.parse, values, bound, env).result:
            continue
        if spec.map_expression is not None:
            element, _ = value_of(spec.map_expression, values, env, bound)
        elif spec.map:
            element = {field: value_of(expression, values, env, bound)[0] for field, expression in spec.map}
        out.append(element)
    if spec.sort_by is not None:
        key = spec.sort_by

        def order(element: Any) -> tuple[int, Any]:
            value = lookup_path(element, None, key) if isinstance(element, Mapping) else None
            if isinstance(value, bool) or value is None:
                return (2, 0) if value is None else (1, str(value))
            return (0, value) if isinstance(value, (int, float)) else (1, str(value))

        present = [e for e in out if order(e)[0] != 2]
        missing = [e for e in out if order(e)[0] == 2]
        present.sort(key=order, reverse=spec.descending)
        out = present + missing
    if spec.limit is not None:
        out = out[: spec.limit]
    return out, ""

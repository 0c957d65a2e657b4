"""Mutations of valid files, the way hostile or broken input looks: bytes flipped, lines
deleted, duplicated, swapped or re-indented, the text cut short, keywords and brackets typed in
random places, lines repeated into very long runs, and bracket or indentation towers.

Every mutator takes the file's bytes and a `random.Random` (a plain one in the fuzz runner, one
driven by hypothesis in tests, so that a failure shrinks) and returns new bytes.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Callable

from abl.schema import all_sections

Mutator = Callable[[bytes, random.Random], bytes]

# Tokens that open, close or mean something in ABL, inserted at random places.
TOKENS = [
    b"[",
    b"]",
    b"{",
    b"}",
    b"(",
    b")",
    b'"',
    b"'",
    b":",
    b"- ",
    b"|",
    b">",
    b"#",
    b"//",
    b"{{",
    b"}}",
    b"\t",
    b"\r",
    b"\n",
    b"  ",
    b"\\",
    b"->",
    b"==",
    b" AND ",
    b" NOT ",
    b"IS SET",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\x00",
    # Line breaks to Python's `str.splitlines`, ordinary characters to ABL and the protocol.
    b"\x0b",
    b"\x0c",
    b"\x1c",
    b"\x1d",
    b"\x1e",
    "\u0085".encode(),
    "\u2028".encode(),
    "\u2029".encode(),
    b"HANDOFF:",
    b"TO:",
    b"WHEN:",
    b"RETURN: true",
    b"ON_RETURN:",
    b"MAP:",
    b"FLOW:",
    b"GATHER:",
    b"AGENT: X",
    b"SUPERVISOR: Hub",
    b"THEN:",
    b"REASONING: false",
    b"\xe2\x80\xa8",
    b"9" * 40,
    b"-1",
    b"1e999",
    b"\xf0\x9f\x98\x80",
]


def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(out))
        out[at] ^= 1 << rng.randrange(8)
    return bytes(out)


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def delete_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    del lines[at : at + rng.randint(1, 3)]
    return b"".join(lines)


def duplicate_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    chunk = lines[at : at + rng.randint(1, 4)]
    lines[at:at] = chunk * rng.randint(1, 3)
    return b"".join(lines)


def swap_lines(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def shift_indentation(data: bytes, rng: random.Random) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    for k in range(at, min(len(lines), at + rng.randint(1, 5))):
        body = lines[k].lstrip(b" \t")
        indent = rng.choice([b"", b" ", b"  ", b"   ", b"    ", b"\t", b" \t", b"        ", b"      "])
        lines[k] = indent + body
    return b"".join(lines)


def indent_with_tabs(data: bytes, rng: random.Random) -> bytes:
    """Each run of `unit` spaces of indentation written as a tab, in the whole file or from a
    line on: the same nesting to the parser when the file has no list items with keys, and
    tabs mixed with spaces when it has (what a fix must then still nest correctly)."""
    unit = rng.choice([1, 2, 4, 8])
    lines = _lines(data)
    start = rng.choice([0, rng.randrange(len(lines))])
    for k in range(start, len(lines)):
        body = lines[k].lstrip(b" ")
        spaces = len(lines[k]) - len(body)
        lines[k] = b"\t" * (spaces // unit) + b" " * (spaces % unit) + body
    return b"".join(lines)


# A line `KEY: value` (or `- KEY: value`) with a value on it: what `nest_under_value` nests under.
_VALUED = re.compile(rb"^([ \t]*(?:- +)*)([A-Za-z_][\w.\-]*[ \t]*:[ \t]+[^\s#|>].*?)\r?$")


@functools.cache
def _key_kinds() -> tuple[bytes, ...]:
    """One line (or small block) for each key of the catalogue, written as its kind is: every
    kind of key an author may nest one level too deep (`{indent}` is the nested column)."""
    samples = {"bool": b"true", "int": b"3", "number": b"1.5", "condition": b"amount > 1", "list": b"[a, b]"}
    lines: set[bytes] = {b"{indent}- order_id", b"{indent}total = amount + 1", b'{indent}"free text"'}
    stack = [section.key for section in all_sections()]
    seen: set[int] = set()
    while stack:
        key = stack.pop()
        if id(key) in seen:
            continue
        seen.add(id(key))
        name = key.name.encode()
        if key.kind.is_container:
            lines.add(b"{indent}" + name + b":\n{indent}  total: amount")
        else:
            lines.add(b"{indent}" + name + b": " + samples.get(key.kind.value, b'"value"'))
        stack.extend(key.children)
    return tuple(sorted(lines))


def nest_under_value(data: bytes, rng: random.Random) -> bytes:
    """A key of any kind written under a key that holds a value, or the lines after such a key
    indented one step deeper (a list item's keys written deeper than `TO`, as a mechanical
    four-space indentation does): lines that nothing reads, which must be reported."""
    lines = _lines(data)
    valued = [k for k, line in enumerate(lines) if _VALUED.match(line)]
    if not valued:
        return data
    k = rng.choice(valued)
    match = _VALUED.match(lines[k])
    assert match is not None
    column = len(match.group(1).expandtabs(8)) + 2
    ending = b"\r\n" if lines[k].endswith(b"\r\n") else b"\n"
    if rng.random() < 0.3:
        # The lines after it, deeper by two columns up to the first line that is not deeper.
        depth = len(match.group(1)) - len(match.group(1).lstrip(b" \t"))
        # An item's own keys sit deeper than its dash; any other key's block is its siblings.
        depth += 1 if b"-" in match.group(1) else 0
        end = k + 1
        while end < len(lines) and len(lines[end]) - len(lines[end].lstrip(b" \t")) >= depth and lines[end].strip():
            lines[end] = b"  " + lines[end]
            end += 1
        return b"".join(lines)
    block = rng.choice(_key_kinds()).replace(b"{indent}", b" " * column).replace(b"\n", ending)
    if not lines[k].endswith(b"\n"):
        lines[k] += ending
    lines.insert(k + 1, block + ending)
    return b"".join(lines)


def nest_under_every_value(data: bytes, first_kind: int = 0) -> bytes:
    """A key under every line that holds a value, the kinds of `_key_kinds` taken in turn from
    `first_kind`: one file that asks the question of each of its values at once."""
    kinds = _key_kinds()
    out: list[bytes] = []
    turn = first_kind
    for line in _lines(data):
        match = _VALUED.match(line)
        out.append(line)
        if match is None:
            continue
        ending = b"\r\n" if line.endswith(b"\r\n") else b"\n"
        if not line.endswith(b"\n"):
            out[-1] = line + ending
        column = len(match.group(1).expandtabs(8)) + 2
        out.append(kinds[turn % len(kinds)].replace(b"{indent}", b" " * column).replace(b"\n", ending) + ending)
        turn += 1
    return b"".join(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def insert_token(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(TOKENS) + data[at:]


def delete_span(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[at + rng.randint(1, 16) :]


def repeat_span(data: bytes, rng: random.Random) -> bytes:
    """A piece of a line repeated many times: long lines, long lists, long names."""
    if not data:
        return data
    at = rng.randrange(len(data))
    piece = data[at : at + rng.randint(1, 12)]
    return data[:at] + piece * rng.randint(2, 400) + data[at:]


def tower(data: bytes, rng: random.Random) -> bytes:
    """Deep nesting at a random place: brackets, braces, `NOT`s, or indented items."""
    depth = rng.choice([8, 33, 65, 200, 1200])
    kind = rng.randrange(4)
    if kind == 0:
        piece = b"[" * depth + b"a" + b"]" * rng.choice([0, depth])
    elif kind == 1:
        piece = b"{a: " * depth + b"1" + b"}" * rng.choice([0, depth])
    elif kind == 2:
        piece = b"NOT (" * depth + b"a" + b")" * depth
    else:
        piece = b"\n" + b"".join(b"  " * (i + 1) + b"- a\n" for i in range(min(depth, 300)))
    at = rng.randrange(len(data) + 1)
    return data[:at] + piece + data[at:]


def splice(data: bytes, rng: random.Random, other: bytes | None = None) -> bytes:
    """Lines of another file (or of this one) pasted in."""
    donor = _lines(other if other else data)
    start = rng.randrange(len(donor))
    piece = b"".join(donor[start : start + rng.randint(1, 8)])
    lines = _lines(data)
    at = rng.randrange(len(lines) + 1)
    return b"".join(lines[:at]) + piece + b"".join(lines[at:])


MUTATORS: list[Mutator] = [
    flip_bytes,
    delete_lines,
    duplicate_lines,
    swap_lines,
    shift_indentation,
    indent_with_tabs,
    nest_under_value,
    nest_under_value,
    truncate,
    insert_token,
    insert_token,
    delete_span,
    repeat_span,
    tower,
    splice,
]


def mutate(data: bytes, rng: random.Random, rounds: int | None = None) -> bytes:
    """One to four mutations in a row (or `rounds`)."""
    for _ in range(rounds if rounds is not None else rng.randint(1, 4)):
        data = rng.choice(MUTATORS)(data, rng)
    return data


# --- the runtime's files ------------------------------------------------------------------------

HOSTILE_VALUES: list[object] = [
    10**12,
    -(10**12),
    float("inf"),
    "<huge number>",  # written as 5,000 digits (json cannot write so long an int itself)
    "\ud800",
    "",
    None,
    True,
    [],
    {},
    "x" * 5000,
    1e308,
    -1,
    0.5,
    {"nested": [[[[[[]]]]]]},
]


def _pick_container(value: object, rng: random.Random) -> object:
    """A random list or object inside `value` (walking down a few levels)."""
    current = value
    for _ in range(rng.randint(0, 6)):
        children = list(current.values()) if isinstance(current, dict) else current if isinstance(current, list) else []
        children = [c for c in children if isinstance(c, (dict, list)) and c]
        if not children:
            break
        current = rng.choice(children)
    return current


def mutate_json(data: bytes, rng: random.Random) -> bytes:
    """A JSON document with one value replaced by a hostile one (huge numbers, a lone
    surrogate, the wrong type), a key dropped, or a deep nest added; bytes mutations when the
    input is not JSON."""
    try:
        value = json.loads(data.decode("utf-8"))
    except ValueError:
        return mutate(data, rng)
    target = _pick_container(value, rng)
    choice = rng.randrange(4)
    if isinstance(target, dict) and target:
        key = rng.choice(list(target))
        if choice == 0:
            del target[key]
        elif choice == 1:
            target[key] = [target[key]] * rng.randint(2, 5)
        else:
            target[key] = rng.choice(HOSTILE_VALUES)
    elif isinstance(target, list) and target:
        at = rng.randrange(len(target))
        target[at] = rng.choice(HOSTILE_VALUES) if choice else target[at]
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5, allow_nan=True)
    text = text.replace('"<huge number>"', "9" * 5000)
    if rng.random() < 0.1:
        text = text.replace("{", "[" * 3000 + "{", 1)
    return text.encode("utf-8", "surrogatepass")


def hostile_yaml(data: bytes, rng: random.Random) -> bytes:
    """YAML that expands (anchors of anchors), nests deeply, or uses tags and odd keys."""
    kind = rng.randrange(8)
    if kind == 5:  # each anchor one level deeper than the last: deep only once aliases are followed
        lines = [b"a0: &a0 [x]"] + [b"a%d: &a%d [*a%d]" % (i, i, i - 1) for i in range(1, rng.choice([50, 70, 3000]))]
        return b"\n".join(lines) + b"\n"
    if kind == 6:  # merge keys: of a scalar, of itself, in chains, overridden
        return rng.choice(
            [
                b"a: {<<: x}\n",
                b"a: &a {<<: *a}\n",
                b"a: &a {k: 1}\nb: {<<: [*a, 2]}\n",
                b"a: &a {k: 1, j: 2}\nb: &b {k: 3}\nc:\n  <<: [*b, *a]\n  j: 4\n",
                b"a0: &a0 {k: x}\n"
                + b"".join(b"a%d: &a%d {<<: *a%d, k%d: y}\n" % (i, i, i - 1, i) for i in range(1, 600)),
            ]
        )
    if kind == 7:
        return mutate(b"base: &base {status: ok, eta: 2}\nget_order:\n  <<: *base\n  eta: 5\n", rng)
    if kind == 0:
        lines = [b"a: &a [x, x, x, x, x, x, x, x, x]"]
        for i in range(1, rng.randint(3, 12)):
            prev = b"a" if i == 1 else b"a%d" % (i - 1)
            lines.append(b"a%d: &a%d [" % (i, i) + b", ".join([b"*" + prev] * 9) + b"]")
        return b"\n".join(lines) + b"\n"
    if kind == 1:
        depth = rng.choice([100, 1000, 5000])
        return b"key: " + b"[" * depth + b"]" * rng.choice([0, depth]) + b"\n"
    if kind == 2:
        return b"!!python/object/apply:os.system ['echo hi']\n"
    if kind == 3:
        return b"? [complex, key]\n: value\n1: number key\nnull: null key\n"
    return mutate(data, rng)


def mutate_runtime_file(data: bytes, rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.45:
        return mutate_json(data, rng)
    if roll < 0.6:
        return hostile_yaml(data, rng)
    return mutate(data, rng)

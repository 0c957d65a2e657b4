"""Hypothesis strategies for valid ABL projects: supervisors and agents with the sections the
language reference describes (GOAL, PERSONA, GATHER, MEMORY, TOOLS, INTENTS, HANDOFF with every
route option, DELEGATE, ESCALATE, COMPLETE, ON_START, FLOW with steps), conditions and
templates, in the layouts authors use (upper and lower case keys, comments, blank lines, CRLF,
a byte order mark).

Names come from small pools shared by every document of a project, so routes, maps, passes and
tool calls usually point at something that exists: the checks then reach their deep paths
instead of stopping at "unknown name".
"""

from __future__ import annotations

from hypothesis import strategies as st

AGENTS = ["Front_Desk", "Billing_Agent", "Orders_Agent", "Refund_Agent", "Income_Agent", "Offer_Agent"]
VARIABLES = ["order_id", "amount", "customer_id", "email", "city", "total", "reason", "phone", "annual_income"]
TOOLS = ["lookup_order", "refund", "get_balance", "send_email"]
INTENTS = ["billing", "orders", "refund", "greeting", "cancel"]
STEPS = ["start", "ask", "confirm", "finish"]
TYPES = ["string", "number", "boolean", "date", "email", "phone", "enum"]
HISTORY = ["full", "none", "summary_only", "auto", "last_5", "last_12"]
# Extraction patterns, one of them with catastrophic backtracking.
PATTERNS = ["[0-9]+", "(a+)+$", "[A-Z]{2}-\\\\d+"]
WORDS = ["order", "refund", "the customer", "asks", "about", "café", "ünïcode", "日本", "value", "x"]

names = st.sampled_from(AGENTS)
variables = st.sampled_from(VARIABLES)


@st.composite
def quoted(draw: st.DrawFn, allow_templates: bool = True) -> str:
    """A double-quoted string, sometimes with `{{ }}` templates and escaped quotes."""
    parts = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
    if allow_templates and draw(st.booleans()):
        inner = draw(
            st.one_of(
                variables,
                variables.map(lambda v: f"UPPER({v})"),
                variables.map(lambda v: f"FORMAT_CURRENCY({v}, 'GBP')"),
                st.just("session.id"),
            )
        )
        parts.insert(draw(st.integers(0, len(parts))), "{{" + inner + "}}")
    if draw(st.integers(0, 9)) == 0:
        parts.append('\\"quoted\\"')
    return '"' + " ".join(parts) + '"'


def _comparison() -> st.SearchStrategy[str]:
    literal = st.one_of(
        st.integers(-5, 10_000).map(str),
        st.sampled_from(['"gold"', '"x"', "true", "false", "null", "3.5"]),
    )
    return st.one_of(
        st.tuples(variables, st.sampled_from(["==", "!=", ">", "<", ">=", "<="]), literal).map(" ".join),
        variables.map(lambda v: f"{v} IS SET"),
        variables.map(lambda v: f"{v} IS NOT SET"),
        st.sampled_from(INTENTS).map(lambda i: f'intent.category == "{i}"'),
        variables.map(lambda v: f"LENGTH({v}) > 0"),
        variables.map(lambda v: f'{v} IN ["a", "b"]'),
        variables.map(lambda v: f'{v} CONTAINS "x"'),
        st.just("true"),
    )


conditions = st.recursive(
    _comparison(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["AND", "OR", "and", "&&", "||"]), inner).map(" ".join),
        inner.map(lambda c: f"NOT ({c})"),
        inner.map(lambda c: f"({c})"),
    ),
    max_leaves=6,
)
natural_language = st.sampled_from(
    ['"the customer asks about a refund"', '"the customer wants to talk to a person"', '"they mention billing"']
)
any_condition = st.one_of(conditions, conditions, natural_language)


def _block(key: str, lines: list[str], indent: int) -> list[str]:
    pad = " " * indent
    return [f"{pad}{key}:", *lines]


@st.composite
def gather(draw: st.DrawFn, indent: int = 2) -> list[str]:
    pad = " " * indent
    out = []
    for field in draw(st.lists(variables, min_size=1, max_size=4, unique=True)):
        out.append(f"{pad}{field}:")
        kind = draw(st.sampled_from(TYPES))
        out.append(f"{pad}  PROMPT: {draw(quoted(allow_templates=False))}")
        out.append(f"{pad}  TYPE: {kind}")
        if kind == "enum":
            out.append(f"{pad}  OPTIONS: [gold, silver, bronze]")
        out.append(f"{pad}  REQUIRED: {draw(st.sampled_from(['true', 'false']))}")
        if draw(st.integers(0, 4)) == 0:
            out.append(f"{pad}  sensitive: true")
            out.append(f"{pad}  sensitive_display: {draw(st.sampled_from(['mask', 'redact', 'replace']))}")
        if draw(st.integers(0, 5)) == 0:
            pattern = draw(st.sampled_from(PATTERNS))
            out.append(f'{pad}  extraction_pattern: "{pattern}"')
        if draw(st.integers(0, 5)) == 0:
            out.append(f"{pad}  VALIDATE: {draw(st.sampled_from(['min(1)', 'max(100)', 'email()', 'enum(a,b)']))}")
    return out


@st.composite
def memory(draw: st.DrawFn) -> list[str]:
    out = ["  session:"]
    for name in draw(st.lists(variables, min_size=1, max_size=3, unique=True)):
        out.append(f"    - {name}")
        if draw(st.booleans()):
            out.append(f"      TYPE: {draw(st.sampled_from(['string', 'number', 'boolean', 'array', 'object']))}")
        if draw(st.integers(0, 3)) == 0:
            initial = draw(st.sampled_from(["0", "[]", "null", '""']))
            out.append(f"      INITIAL: {initial}")
    if draw(st.integers(0, 3)) == 0:
        out += ["  persistent:", "    - user.preferences", "      ACCESS: read"]
    return out


@st.composite
def tools(draw: st.DrawFn) -> list[str]:
    out = []
    for name in draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=3, unique=True)):
        params = ", ".join(
            f"{v}: {t}"
            for v, t in draw(
                st.lists(st.tuples(variables, st.sampled_from(TYPES[:4])), max_size=3, unique_by=lambda p: p[0])
            )
        )
        ret = draw(
            st.sampled_from(["", " -> string", " -> {ok: boolean, reference: string}", " -> {items: {id: string}[]}"])
        )
        out.append(f"  {name}({params}){ret}")
        out.append(f"    description: {draw(quoted(allow_templates=False))}")
        out.append(f"    type: {draw(st.sampled_from(['http', 'mcp', 'sandbox']))}")
        if draw(st.booleans()):
            out += [f'    endpoint: "/api/{name}"', f"    method: {draw(st.sampled_from(['GET', 'POST']))}"]
    return out


@st.composite
def route(draw: st.DrawFn) -> list[str]:
    out = [f"  - TO: {draw(names)}", f"    WHEN: {draw(any_condition)}"]
    if draw(st.integers(0, 3)) == 0:
        out.append(f"    PRIORITY: {draw(st.integers(0, 9))}")
    if draw(st.booleans()):
        out.append(f"    PASS: [{', '.join(draw(st.lists(variables, max_size=3, unique=True)))}]")
    history = draw(st.sampled_from([*HISTORY, "map"]))
    if history == "map":
        out += ["    HISTORY:", "      mode: last_n", f"      count: {draw(st.integers(0, 30))}"]
    elif draw(st.integers(0, 4)):
        out.append(f"    HISTORY: {history}")
    if draw(st.booleans()):
        out.append(f"    SUMMARY: {draw(quoted())}")
    returnable = draw(st.sampled_from(["true", "false", "True", None]))
    if returnable is not None:
        out.append(f"    RETURN: {returnable}")
    if returnable == "true" and draw(st.booleans()):
        out.append("    ON_RETURN:")
        out.append(f"      action: {draw(st.sampled_from(['continue', 'resume_intent']))}")
        if draw(st.booleans()):
            out.append(
                f"      resume_with: {draw(st.sampled_from(['original_handoff_utterance', 'latest_child_user_utterance']))}"
            )
        if draw(st.booleans()):
            out.append("      MAP:")
            out += [
                f"        {a}: {b}" for a, b in draw(st.lists(st.tuples(variables, variables), min_size=1, max_size=3))
            ]
        if draw(st.integers(0, 2)) == 0:
            out += ["      SET:", f"        {draw(variables)}: {draw(quoted(allow_templates=False))}"]
    if draw(st.integers(0, 3)):
        failure = draw(st.sampled_from(["CONTINUE", "escalate", 'RESPOND "Sorry, try later"']))
        out.append(f"    ON_FAILURE: {failure}")
    return out


@st.composite
def delegate(draw: st.DrawFn) -> list[str]:
    child, parent = draw(variables), draw(variables)
    return [
        f"  - AGENT: {draw(names)}",
        f"    WHEN: {draw(conditions)}",
        f"    PURPOSE: {draw(quoted(allow_templates=False))}",
        f"    INPUT: {{{draw(variables)}}}",
        f"    RETURNS: {{{child}: {parent}}}",
        f"    USE_RESULT: {draw(quoted(allow_templates=False))}",
        f'    TIMEOUT: "{draw(st.integers(1, 60))}s"',
        f"    ON_FAIL: {draw(st.sampled_from(['respond', 'continue', 'escalate']))}",
    ]


@st.composite
def flow(draw: st.DrawFn) -> list[str]:
    steps = draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=4, unique=True))
    out = [f"  entry_point: {steps[0]}", f"  steps: {' -> '.join(steps)}"]
    for i, step in enumerate(steps):
        nxt = steps[i + 1] if i + 1 < len(steps) else "COMPLETE"
        out += ["", f"  {step}:", f"    REASONING: {draw(st.sampled_from(['false', 'true']))}"]
        kind = draw(st.sampled_from(["respond", "gather", "call", "input", "set"]))
        if kind == "respond":
            out.append(f"    RESPOND: {draw(quoted())}")
        elif kind == "gather":
            out += [
                "    GATHER:",
                f"      - {draw(variables)}: required",
                f"        PROMPT: {draw(quoted(allow_templates=False))}",
            ]
        elif kind == "call":
            out += [
                f"    CALL: {draw(st.sampled_from(TOOLS))}",
                "    WITH:",
                f"      {draw(variables)}: {draw(variables)}",
                "    AS: result",
            ]
        elif kind == "input":
            out += [
                "    ON_INPUT:",
                f"      - IF: {draw(conditions)}",
                f"        RESPOND: {draw(quoted())}",
                f"        THEN: {draw(st.sampled_from(steps))}",
                "      - ELSE:",
                f"        THEN: {nxt}",
            ]
            continue
        else:
            value = draw(st.sampled_from(["1", "total + 1", '"x"', "UPPER(city)"]))
            out += ["    SET:", f"      {draw(variables)} = {value}"]
        if draw(st.integers(0, 4)) == 0:
            out += [
                "    DIGRESSIONS:",
                f'      - INTENT: "{draw(st.sampled_from(INTENTS))}"',
                f"        RESPOND: {draw(quoted())}",
                "        RESUME: true",
            ]
        out.append(f"    THEN: {nxt}")
    return out


@st.composite
def agent(draw: st.DrawFn, name: str, supervisor: bool) -> str:
    lines = [f"{'SUPERVISOR' if supervisor else 'AGENT'}: {name}", f"GOAL: {draw(quoted(allow_templates=False))}"]
    if draw(st.booleans()):
        lines += [
            "PERSONA: |",
            f"  {' '.join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8)))}",
            "  Calm and precise.",
        ]
    sections = draw(
        st.lists(
            st.sampled_from(
                [
                    "GATHER",
                    "MEMORY",
                    "TOOLS",
                    "INTENTS",
                    "HANDOFF",
                    "DELEGATE",
                    "ESCALATE",
                    "COMPLETE",
                    "ON_START",
                    "FLOW",
                    "LIMITATIONS",
                ]
            ),
            max_size=6,
            unique=True,
        )
    )
    if supervisor and "HANDOFF" not in sections:
        sections.append("HANDOFF")
    for section in sections:
        if draw(st.integers(0, 3)) == 0:
            lines.append("")
        if draw(st.integers(0, 6)) == 0:
            lines.append(f"# {draw(st.sampled_from(WORDS))} notes")
        if section == "GATHER":
            lines += _block("GATHER", draw(gather()), 0)
        elif section == "MEMORY":
            lines += _block("MEMORY", draw(memory()), 0)
        elif section == "TOOLS":
            lines += _block("TOOLS", draw(tools()), 0)
        elif section == "INTENTS":
            lines += _block(
                "INTENTS",
                [
                    f'  {i}: "{i} requests"'
                    for i in draw(st.lists(st.sampled_from(INTENTS), min_size=1, max_size=3, unique=True))
                ],
                0,
            )
        elif section == "HANDOFF":
            lines += _block("HANDOFF", [line for r in draw(st.lists(route(), min_size=1, max_size=4)) for line in r], 0)
        elif section == "DELEGATE":
            lines += _block(
                "DELEGATE", [line for d in draw(st.lists(delegate(), min_size=1, max_size=2)) for line in d], 0
            )
        elif section == "ESCALATE":
            lines += _block(
                "ESCALATE",
                [
                    "  triggers:",
                    f"    - WHEN: {draw(any_condition)}",
                    f"      REASON: {draw(quoted(allow_templates=False))}",
                    f"      PRIORITY: {draw(st.sampled_from(['low', 'high', 'critical', '2']))}",
                ],
                0,
            )
        elif section == "COMPLETE":
            rules = []
            for _ in range(draw(st.integers(1, 2))):
                rules += [f"  - WHEN: {draw(conditions)}", f"    RESPOND: {draw(quoted())}"]
                if draw(st.integers(0, 3)) == 0:
                    rules += [
                        "    SET:",
                        f"      {draw(variables)} = {draw(st.sampled_from(['1', 'true', 'amount * 2']))}",
                    ]
            lines += _block("COMPLETE", rules, 0)
        elif section == "ON_START":
            lines += _block("ON_START", ["  SET:", f"    {draw(variables)} = 0", f"  RESPOND: {draw(quoted())}"], 0)
        elif section == "FLOW":
            lines += _block("FLOW", draw(flow()), 0)
        else:
            lines.append(f'LIMITATIONS: ["{draw(st.sampled_from(WORDS))}", "{draw(st.sampled_from(WORDS))}"]')
    return "\n".join(lines)


@st.composite
def document(draw: st.DrawFn) -> str:
    """One file: one to three agents (the first may be a supervisor), in one of the layouts."""
    chosen = draw(st.lists(names, min_size=1, max_size=3, unique=True))
    text = "\n\n".join(draw(agent(name, supervisor=(i == 0 and draw(st.booleans())))) for i, name in enumerate(chosen))
    text += "\n"
    if draw(st.integers(0, 5)) == 0:
        text = "\n".join(_lower_keys(line) for line in text.split("\n"))
    if draw(st.integers(0, 7)) == 0:
        text = text.replace("\n", "\r\n")
    if draw(st.integers(0, 15)) == 0:
        text = "\ufeff" + text
    return text


def _lower_keys(line: str) -> str:
    """`  GOAL: x` → `  goal: x` (the platform accepts either case for most keys)."""
    stripped = line.lstrip(" -")
    key, colon, rest = stripped.partition(":")
    if not colon or not key.isupper() or " " in key:
        return line
    return line[: len(line) - len(stripped)] + key.lower() + colon + rest


@st.composite
def project(draw: st.DrawFn) -> dict[str, str]:
    """One to three files of one project: `{path: text}`."""
    count = draw(st.integers(1, 3))
    return {f"/project/agents/part{i}.agent.abl": draw(document()) for i in range(count)}

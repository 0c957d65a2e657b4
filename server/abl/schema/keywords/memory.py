"""MEMORY: session variables, persistent facts, and the remember / recall triggers.

Source: ABL-REFERENCE §3.6. Sub-block names and item properties are matched
case-insensitively, so `SESSION:` and `session:` are the same key.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

SESSION_TYPES = ("string", "number", "boolean", "date", "array", "object")

# An array of one type, written as the tool signatures write it (`object[]`, `string[]`;
# ABL-REFERENCE §3.4 and Appendix B `type_expr`): a more precise spelling of `array`.
_ARRAY_OF = r"(?:string|number|boolean|date|datetime|object)\[\]"


def _memory_type(doc: str) -> Key:
    return Key("TYPE", V.ENUM, doc, values=SESSION_TYPES, value_pattern=_ARRAY_OF, value_hint="<type>[]")


_SESSION_VARIABLE = (
    _memory_type("Type of the variable; `<type>[]` (`object[]`) is an array of that type."),
    Key("DESCRIPTION", V.TEXT, "What the variable holds."),
    Key("INITIAL", V.ANY, "Starting value.", aliases=("initial_value",), default="null"),
    Key(
        "RESET",
        V.ENUM,
        "When the variable goes back to its starting value.",
        values=("per_session", "per_activation", "per_step", "never"),
        default="per_session",
    ),
    Key("DERIVED", V.CONDITION, "Expression the value is computed from."),
)

_SESSION = Key(
    "session",
    V.LIST_OF_BLOCKS,
    "Variables that live for the session. Each item is a name, optionally followed by "
    "indented `TYPE`, `DESCRIPTION`, `INITIAL` and `RESET` (a `name:` entry with the same "
    "properties declares one too).",
    also=(V.MAP,),
    item_head=V.NAME,
    free_keys=True,
    entry=Key(
        "<variable>",
        V.BLOCK,
        "One session variable, written as a map entry.",
        also=(V.MAP,),
        map_of_own_keys=True,
        children=_SESSION_VARIABLE,
    ),
    items=Key(
        "<variable>",
        V.LIST_OF_BLOCKS,
        "One session variable.",
        item_head=V.NAME,
        children=(
            Key(
                "NAME",
                V.NAME,
                "The variable's name, in the object form `- name: order_id` with the properties "
                "below it (the same as `- order_id`).",
            ),
            *_SESSION_VARIABLE,
        ),
    ),
    example='session:\n  - order_id\n    TYPE: string\n    DESCRIPTION: "Order number"',
)

_READS = Key("READS", V.LIST, "Shorthand: persistent paths the agent only reads.", item_kind=V.NAME)
_WRITES = Key("WRITES", V.LIST, "Shorthand: persistent paths the agent only writes.", item_kind=V.NAME)

_FACT_PROPERTIES = (
    Key(
        "SCOPE",
        V.ENUM,
        "Who the fact belongs to; `execution_tree` is shared within one handoff tree.",
        values=("user", "project", "execution_tree"),
        default="user",
    ),
    Key(
        "ACCESS",
        V.ENUM,
        "Whether the agent may read, write or both.",
        values=("read", "write", "readwrite"),
        default="readwrite",
    ),
    _memory_type("Type of the value; `<type>[]` (`object[]`) is an array of that type."),
    Key("UNIT", V.STRING, "Unit of a numeric value."),
    Key("DEFAULT_VALUE", V.ANY, "Value used when nothing is stored.", aliases=("DEFAULT",)),
    Key("DESCRIPTION", V.TEXT, "What the fact holds."),
    Key("SENSITIVE", V.BOOL, "Mask the value in output and traces."),
    Key(
        "SENSITIVE_DISPLAY",
        V.ENUM,
        "How a sensitive value is shown.",
        values=("redact", "mask", "replace"),
    ),
    Key("MASK_CONFIG", V.BLOCK, "Masking settings.", open=True),
)

_PERSISTENT_FACT = Key(
    "<fact>",
    V.LIST_OF_BLOCKS,
    "One persistent fact: a dotted path, optionally followed by indented properties.",
    item_head=V.NAME,
    children=(
        Key(
            "PATH",
            V.NAME,
            "The fact's dotted path, in the object form `- PATH: user.x` with the properties "
            "below it (the same as `- user.x`; grants name paths the same way, `{path, access}`).",
        ),
        *_FACT_PROPERTIES,
    ),
)

_PERSISTENT = Key(
    "persistent",
    V.LIST_OF_BLOCKS,
    "Facts kept beyond the session, named by dotted paths (`user.preferred_chain`). The "
    "first path segment usually implies the scope. The `READS:` and `WRITES:` sub-blocks are "
    "a shorthand for read-only and write-only paths.",
    also=(V.BLOCK,),
    item_head=V.NAME,
    items=_PERSISTENT_FACT,
    children=(_READS, _WRITES),
    free_keys=True,
    entry=Key(
        "<fact>",
        V.BLOCK,
        "One persistent fact, written as a map entry.",
        also=(V.MAP,),
        map_of_own_keys=True,
        children=_FACT_PROPERTIES,
    ),
    example="persistent:\n  - user.last_code",
)

_REMEMBER = Key(
    "remember",
    V.LIST_OF_BLOCKS,
    "Writes to persistent memory, checked after every turn: when `WHEN` holds, `STORE` saves a value to a path.",
    children=(
        Key("WHEN", V.CONDITION, "When to store.", required=True),
        Key(
            "STORE",
            V.STRING,
            "`value -> target.path`, or a block with `value`, `target`, `operation` "
            "(`overwrite|set|append`), `unique` and `maxSize`.",
            also=(V.BLOCK,),
            children=(
                Key("value", V.CONDITION, "Expression to store."),
                Key("target", V.STRING, "Persistent path written."),
                Key(
                    "operation",
                    V.ENUM,
                    "How the value is written.",
                    values=("overwrite", "set", "append"),
                ),
                Key("unique", V.BOOL, "Skip values already in the target array."),
                Key("maxSize", V.INT, "Longest the target array may grow."),
            ),
        ),
        Key(
            "TTL",
            V.DURATION,
            "How long the stored value lives (`90d`; units s, m, h, d).",
            value_pattern=r"\d+[smhd]",
            value_hint="<n>s|m|h|d",
        ),
    ),
    example='remember:\n  - WHEN: code IS SET\n    STORE: code -> user.last_code\n    TTL: "30d"',
)

_LEGACY_RECALL = "legacy recall events are rejected at compile time; write `- ON: session:start` (or another event)"

_RECALL = Key(
    "recall",
    V.LIST_OF_BLOCKS,
    "Loads memory at lifecycle events (`session:start`, `agent:<name>:before`, "
    "`tool:<name>:after`, `step:enter:<name>`, ...).",
    children=(
        Key(
            "ON",
            V.STRING,
            "The event that triggers the recall.",
            required=True,
            value_examples=("session:start", "session:end"),
        ),
        Key(
            "ACTION",
            V.ENUM,
            "Inject paths into context, load a memory domain, or add an instruction to the prompt.",
            values=("inject_context", "load_memory", "prompt_llm"),
            default="prompt_llm",
        ),
        Key("INSTRUCTION", V.TEXT, "Instruction added to the prompt."),
        Key("PATHS", V.LIST, "Memory paths to inject.", item_kind=V.NAME),
        Key("DOMAIN", V.STRING, "Memory domain to load."),
        Key("ON_START", V.TEXT, "Older recall form.", removed=_LEGACY_RECALL),
        Key("ON_SEARCH", V.TEXT, "Older recall form.", removed=_LEGACY_RECALL),
    ),
    example=("recall:\n  - ON: session:start\n    ACTION: inject_context\n    PATHS: [user.last_code]"),
)

_MAP_VARIABLE = Key(
    "<variable>",
    V.BLOCK,
    "A session variable written as a map entry (`customer_id: {type: string, source: "
    "session}`), a form some how-to guides use instead of a `session` list.",
    also=(V.MAP,),
    open=True,
    children=(
        _memory_type("Type of the variable."),
        Key("source", V.STRING, "Where the value comes from."),
        Key("description", V.TEXT, "What the variable holds."),
        Key("initial", V.ANY, "Starting value.", aliases=("initial_value",)),
    ),
)

MEMORY = Key(
    "MEMORY",
    V.BLOCK,
    "Variables and facts the agent keeps: `session` variables, `persistent` facts, and "
    "`remember` / `recall` triggers. A session variable needs a source (a gather field, a "
    "`SET`, a tool result or a return `MAP`), or `W801` is reported. Any other name with a "
    "map of properties declares one session variable.",
    free_keys=True,
    entry=_MAP_VARIABLE,
    children=(
        _SESSION,
        _PERSISTENT,
        _REMEMBER,
        _RECALL,
        _READS,
        _WRITES,
    ),
    example="MEMORY:\n  session:\n    - annual_income\n      TYPE: number",
    source="§3.6",
)

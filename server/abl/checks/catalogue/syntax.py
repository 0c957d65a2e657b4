"""Syntax and structure codes: the text cannot be read, or its shape is not an ABL project.

The syntax layer and the model emit most of these; they name the code and its registered
severity without importing this package (see `abl.diagnostics`).
"""

from __future__ import annotations

from abl.checks.catalogue import project, route
from abl.checks.catalogue.agents import EXCHANGES_AGENT, RETURNS_AGENT
from abl.checks.code import Code, FixSafety, Group
from abl.diagnostics import Severity

_REJECTED = "Nothing runs: the platform refuses to compile or deploy a project with this error."

_PARCEL_TRACKER = project(
    """
    AGENT: Parcel_Tracker
    GOAL: "Tell the customer where their parcel is"
    """
)

_RETAIL_HUB = project(
    """
    SUPERVISOR: Retail_Hub
    GOAL: "Route retail requests to the right specialist"

    INTENTS:
      return_item: "Returns, exchanges, or refunds."
    """
)

_RETURNS_ROUTE = route(
    "TO: Returns_Agent",
    'WHEN: intent.category == "return_item"',
    "HISTORY: full",
    "ON_FAILURE: continue",
)


def _tracker(*sections: str) -> str:
    """The parcel tracker's header followed by the given sections, a blank line apart."""
    return project(_PARCEL_TRACKER + "".join("\n" + project(s) for s in sections))


SYNTAX_ERROR = Code(
    code="SYNTAX_ERROR",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="The text cannot be read",
    summary=(
        "A line cannot be read as ABL: a dedent to no enclosing level, an unterminated quote, an "
        "unclosed `[` or `{`, or a line that should be `KEY: value` but has no colon."
    ),
    explanation=(
        "The parser reads the line structure first and the values second. When a line cannot be "
        "read, the message says what was expected there; the parser keeps the line as an error "
        "and carries on with the next one, so the rest of the file is still checked. The "
        "platform's parser rejects such a file.\n\n"
        "Indentation with tabs whose nesting depends on the tab width is reported separately, "
        "as TAB_INDENTATION.\n\n"
        "A value is one line (quoted or bare) or a `|` block: a key that takes one value, written "
        "with nothing after its colon and text on the lines below (`GOAL:` over two lines), has "
        "no value, and nothing reads those lines."
    ),
    bad_example=_tracker('PERSONA: "Brief, cheerful courier assistant\n'),
    good_example=_tracker('PERSONA: "Brief, cheerful courier assistant"\n'),
    fix=(
        "Text nested under a key of prose written with nothing after its colon is made the key's "
        "`|` block (unsafe: the text becomes the value, which changes what runs). Otherwise no "
        "quick fix: the message says what the parser expected at that point."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("TAB_INDENTATION",),
)

UNKNOWN_SECTION = Code(
    code="UNKNOWN_SECTION",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Unknown section",
    summary="A top-level section keyword that ABL does not know.",
    explanation=(
        "Every top-level line of an agent document opens a section the schema knows (`GOAL`, "
        "`GATHER`, `HANDOFF`, ...). An unknown name is usually a typo, and nothing under it takes "
        "effect; the platform's parser rejects it. The message suggests the closest known "
        "section.\n\n"
        "`TESTS:` is accepted and ignored, as on the platform. `MODE:` and a top-level `MODEL:` "
        "have their own code, REMOVED_KEYWORD, and a FLOW step written at column 0 has "
        "FLOW_STEP_AT_COLUMN_ZERO."
    ),
    bad_example=_tracker(
        """
        LIMITATION:
          - "Cannot change delivery addresses"
        """
    ),
    good_example=_tracker(
        """
        LIMITATIONS:
          - "Cannot change delivery addresses"
        """
    ),
    fix="Replaces the name with the suggested section. Unsafe: the section's content starts to take effect.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("UNKNOWN_KEY", "REMOVED_KEYWORD", "SECTION_KEYWORD_CASE"),
)

UNKNOWN_KEY = Code(
    code="UNKNOWN_KEY",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="Unknown key",
    summary="A key inside a section that the schema does not know at that place.",
    explanation=(
        "Keys inside sections are matched against the schema without regard to case "
        "(`prompt:` and `PROMPT:` are the same key), except inside `CONTEXT`, where only "
        "lowercase keys count (CONTEXT_KEY_IGNORED). A key the schema does not know is ignored, "
        "so a typo such as `RETRY_PROMT` silently drops the setting. The message suggests the "
        "closest key allowed at that place."
    ),
    bad_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: string
            RETRY_PROMT: "That does not look like a tracking code. Please check it and try again."
        """
    ),
    good_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: string
            RETRY_PROMPT: "That does not look like a tracking code. Please check it and try again."
        """
    ),
    fix="Replaces the key with the suggestion. Unsafe: the setting starts to take effect.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The key and everything under it are ignored.",
    see_also=("UNKNOWN_SECTION", "CONTEXT_KEY_IGNORED"),
)

DUPLICATE_SECTION = Code(
    code="DUPLICATE_SECTION",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Section appears twice",
    summary="The same section appears twice in one agent document.",
    explanation=(
        "Each section may appear once per `AGENT:` or `SUPERVISOR:` document, with all its entries "
        "in one block. The platform documents no rule for merging two blocks, so one of them "
        "would be lost without a word; this is an error so that the author decides.\n\n"
        "This tool reads the later block, as it does for a repeated key, so that the other checks "
        "still run."
    ),
    bad_example=_tracker(
        """
        LIMITATIONS:
          - "Cannot change delivery addresses"
        """,
        """
        LIMITATIONS:
          - "Cannot issue refunds"
        """,
    ),
    good_example=_tracker(
        """
        LIMITATIONS:
          - "Cannot change delivery addresses"
          - "Cannot issue refunds"
        """
    ),
    fix="No quick fix: merge the two blocks by hand and decide which entries to keep.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("DUPLICATE_KEY",),
)

DUPLICATE_KEY = Code(
    code="DUPLICATE_KEY",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="Key appears twice in one block",
    summary="The same key appears twice in one block; the later value wins.",
    explanation=(
        "Only one value can hold. The later one is used and the earlier one is ignored, in line "
        "with the platform's rule for identity settings (the value set last in document order "
        "wins). The message names the line that wins.\n\n"
        "A child field mapped twice in one `ON_RETURN.MAP` is reported too. The platform reads "
        "`MAP` as one entry per child field, so only one of the two copies survives there, while "
        "this tool's runtime applies both; the project then behaves differently in the two places."
    ),
    bad_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: string
            PROMPT: "Please type the tracking code from your receipt."
        """
    ),
    good_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "Please type the tracking code from your receipt."
            TYPE: string
        """
    ),
    fix=(
        "Deletes the earlier line. Safe: it had no effect. Not offered for a child field mapped "
        "twice in `MAP`, where which copy the author needs is a choice."
    ),
    fix_safety=FixSafety.SAFE,
    runtime=(
        "The later value is used; the earlier line has no effect. For a repeated `MAP` child "
        "field, this tool's runtime copies the value into both parent variables."
    ),
    see_also=("DUPLICATE_SECTION",),
)

DUPLICATE_AGENT_NAME = Code(
    code="DUPLICATE_AGENT_NAME",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Two agents share a name",
    summary="Two documents in the project declare the same `AGENT` or `SUPERVISOR` name.",
    explanation=(
        "Agents and supervisors share one registry per project, keyed by name, and every `TO:` "
        "and delegate `AGENT:` is looked up there. Two documents with one name make those "
        "references ambiguous, so names must be unique across the project. The check covers "
        "every file of the workspace, open or not; the platform rejects the project."
    ),
    bad_example=project(
        _RETAIL_HUB + "\nHANDOFF:\n" + _RETURNS_ROUTE,
        RETURNS_AGENT,
        """
        AGENT: Returns_Agent
        GOAL: "Exchange an item for another size or colour"
        """,
    ),
    good_example=project(_RETAIL_HUB + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT, EXCHANGES_AGENT),
    fix="No quick fix: rename one of the agents and update the routes that should reach it.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
)

INVALID_AGENT_NAME = Code(
    code="INVALID_AGENT_NAME",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Invalid agent name",
    summary=(
        "An agent or supervisor name does not start with a letter, or contains characters other "
        "than letters, digits and `_`."
    ),
    explanation=(
        "Agent names are identifiers: they appear in `TO:` lines, in traces and in tool names such "
        "as `handoff_to_<Agent>`. They must start with a letter and contain only letters, digits "
        "and underscores; the convention is capitalised words joined by underscores "
        "(`Returns_Agent`). Studio also limits names to 100 characters. The platform rejects "
        "other names."
    ),
    bad_example=project(
        """
        AGENT: Returns-Agent
        GOAL: "Start a return for one order"
        """
    ),
    good_example=RETURNS_AGENT,
    fix=(
        "Replaces each invalid character with `_`, at the declaration and at every reference in "
        "the workspace. Unsafe: deployments or other projects may still use the old name."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
)

MISSING_GOAL = Code(
    code="MISSING_GOAL",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Agent without a GOAL",
    summary="An agent or supervisor has no `GOAL`.",
    explanation=(
        "`GOAL` is the one section every agent needs besides its header: it drives the agent's "
        "reasoning and its completion detection, it is part of every system prompt built for it, "
        "and it is the goal of reasoning FLOW steps that do not set their own. The platform "
        "rejects an agent without one."
    ),
    bad_example=project(
        """
        AGENT: Parcel_Tracker
        PERSONA: "Brief, cheerful courier assistant"
        """
    ),
    good_example=_tracker('PERSONA: "Brief, cheerful courier assistant"\n'),
    fix="No quick fix: write the goal in the agent's own words.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
)

REMOVED_KEYWORD = Code(
    code="REMOVED_KEYWORD",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Removed keyword",
    summary="A `MODE:` section or a top-level `MODEL:`, both removed from the language.",
    explanation=(
        "There is no global execution mode any more: an agent reasons unless it has a `FLOW:`, "
        "and inside a flow each step says `REASONING: true` or `false`. The model is chosen under "
        "`EXECUTION:` as `model:` (per-operation models go under `EXECUTION.models`). The "
        "platform's parser rejects both old keywords, and the message says what replaces the one "
        "found."
    ),
    bad_example=_tracker('MODEL: "gpt-4o-mini"\n'),
    good_example=_tracker(
        """
        EXECUTION:
          model: "gpt-4o-mini"
        """
    ),
    fix=(
        "For a top-level `MODEL:`, moves the value under `EXECUTION:` as `model:`. Safe: the "
        "agent uses the model the author named. `MODE:` has no quick fix: delete it, and add a "
        "`FLOW:` if the agent was meant to follow steps."
    ),
    fix_safety=FixSafety.SAFE,
    runtime=_REJECTED,
    see_also=("UNKNOWN_SECTION",),
)

SECTION_KEYWORD_CASE = Code(
    code="SECTION_KEYWORD_CASE",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="Section keyword not in uppercase",
    summary="A known section keyword is written in lowercase or mixed case in an `.abl` file.",
    explanation=(
        "The platform's current reference requires uppercase section keywords in `.agent.abl` "
        "files (lowercase belongs to the `.agent.yaml` format) and does not support mixed case; "
        "older documentation called them case-insensitive. This tool reads the section as meant "
        "and warns, so that the file does not depend on a lenient parser. Keys inside sections "
        "are not affected: they are case-insensitive."
    ),
    bad_example=_tracker('persona: "Brief, cheerful courier assistant"\n'),
    good_example=_tracker('PERSONA: "Brief, cheerful courier assistant"\n'),
    fix="Writes the keyword in uppercase. Safe: this tool already reads it as that section.",
    fix_safety=FixSafety.SAFE,
    runtime=(
        "A lenient parser reads it as the section; a strict one does not, and then everything in the section is lost."
    ),
    see_also=("UNKNOWN_SECTION",),
)

INVALID_VALUE = Code(
    code="INVALID_VALUE",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Value not allowed here",
    summary=("A value outside the schema's allowed set or of the wrong kind, such as `TYPE: strng` or `count: five`."),
    explanation=(
        "The schema knows, for each key, the kind of value it takes (number, boolean, agent name, "
        "...) and, where there is one, the set of allowed words. The message suggests the closest "
        "allowed word.\n\n"
        "Values that have a code of their own are reported under that code instead: history "
        "modes (E330 in the block form, HISTORY_FALLS_BACK_TO_FULL on one line), a zero, "
        "negative or fractional history count (HISTORY_FALLS_BACK_TO_FULL), `RETURN` "
        "(RETURN_NOT_LOWERCASE_TRUE), `ON_RETURN.action`, `ON_FAILURE`, `ON_TIMEOUT` and "
        "timeouts. A count that is not a number at all, such as `five`, is reported here."
    ),
    bad_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: strng
        """
    ),
    good_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: string
        """
    ),
    fix="Replaces the value with the suggestion. Unsafe: it changes how the value is read.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
)

ROUTING_NOT_EXECUTED = Code(
    code="ROUTING_NOT_EXECUTED",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="ROUTING is never executed",
    summary="A `ROUTING:` section: it is read, but none of its rules ever runs.",
    explanation=(
        "Older supervisor documentation describes a `ROUTING:` block of rules with `ROUTE_TO` "
        "actions. The newer guides state that `HANDOFF` is the only routing the runtime executes, "
        "and one says the parser rejects `ROUTING:` outright. This tool reads the block, so that "
        "it can be shown and pointed at, and warns that it does nothing. The `AGENTS:` roster "
        "does not route either."
    ),
    bad_example=project(
        _RETAIL_HUB
        + "\n"
        + project(
            """
            ROUTING:
              - NAME: returns
                WHEN: intent.category == "return_item"
                THEN: ROUTE_TO Returns_Agent
            """
        ),
        RETURNS_AGENT,
    ),
    good_example=project(_RETAIL_HUB + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT),
    fix="No quick fix: rewrite each rule as a `HANDOFF` route with `TO`, `WHEN`, `HISTORY` and `ON_FAILURE`.",
    fix_safety=FixSafety.NONE,
    runtime="Nothing in the block runs; conversations are routed by `HANDOFF` routes only.",
)

TAB_INDENTATION = Code(
    code="TAB_INDENTATION",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="Nesting depends on the tab width",
    summary="Indentation uses tabs in a way that makes a line's nesting depend on the tab width.",
    explanation=(
        "Nesting in ABL is decided by indentation. This tool expands a tab to the next multiple "
        "of 8 columns, but editors show tabs 2, 4 or 8 columns wide and other readers count a tab "
        "as a single column. When those readings give the same lines different nesting, the "
        "structure on screen may not be the one that runs. The platform accepts tabs but "
        "discourages them. The warning is given once per file, at the first line concerned, and says "
        "what is true of it: tabs and spaces mixed in its indentation, tabs only in a block that "
        "starts after spaces or a `- ` (a tab-indented list item's keys), or spaces in a block "
        "indented with tabs."
    ),
    bad_example=_tracker(
        """
        GATHER:
          tracking_code:
        \tPROMPT: "What is your tracking code?"
        \tTYPE: string
        """
    ),
    good_example=_tracker(
        """
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: string
        """
    ),
    fix=(
        "Writes the tabs of every line's indentation as the spaces this tool reads them as (a tab "
        "reaches the next multiple of 8 columns), so the file keeps the nesting that runs here and "
        "every reader sees that nesting. Safe: what this tool runs does not change. If you meant "
        "another nesting, indent those lines where you meant them (KEY_UNDER_VALUE often points "
        "at them)."
    ),
    fix_safety=FixSafety.SAFE,
    runtime=(
        "This tool reads tabs as 8 columns; a reader that counts them differently nests the line "
        "elsewhere, and the keys under it then belong to another block."
    ),
    see_also=("SYNTAX_ERROR", "KEY_UNDER_VALUE"),
)

KEY_UNDER_VALUE = Code(
    code="KEY_UNDER_VALUE",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="Line nested under a value",
    summary="A line indented under a key that already holds a one-line value: nothing reads it.",
    explanation=(
        "A key written with its value on the same line (`TO: Returns_Agent`, `TYPE: number`, "
        "`action: continue`) is a value, not a block: the lines indented under it belong to no "
        "block, and nothing reads them. The usual cause is indentation one step too deep: the "
        "keys of a `- TO:` item written deeper than `TO` (a project indented four spaces per "
        "level mechanically), `REQUIRED: true` under `TYPE: number`, `MAP` under "
        "`action: continue`. The route then has no `WHEN` and never matches, the field is not "
        "required, the map is empty. Each such line is reported. `CALL: tool` is the one key "
        "that takes keys (`WITH`, `AS`) under its value."
    ),
    bad_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        HANDOFF:
          - TO: Returns_Agent
              WHEN: intent.category == "return_item"
            HISTORY: full
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    good_example=project(project(_RETAIL_HUB) + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT),
    fix=(
        "When the lines are keys, moves them out to the value's own level, where the block that "
        "holds it reads them. Unsafe: the lines start to take effect. A list item or a line of "
        "text under a value has no fix: it has no place beside a key."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="The lines are ignored: the route, field or block runs as if they were not written.",
    see_also=("UNKNOWN_KEY", "TAB_INDENTATION"),
)

NESTING_TOO_DEEP = Code(
    code="NESTING_TOO_DEEP",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Nested too deeply",
    summary="Blocks or `[`/`{` brackets nested more than 64 levels deep.",
    explanation=(
        "Indentation levels, and brackets inside one value, are read up to 64 levels deep. No "
        "agent needs more; a file that goes deeper is generated or damaged, and reading it "
        "further would let one file exhaust the tools' memory and stack. Lines nested deeper "
        "are read as siblings of the deepest level, and a value nested deeper is not read. The "
        "error is given once per top-level section, at the first line concerned."
    ),
    bad_example=_tracker("LIMITATIONS: " + "[" * 65 + '"No refunds"' + "]" * 65 + "\n"),
    good_example=_tracker('LIMITATIONS: [["No refunds", "No address changes"]]\n'),
    fix="No quick fix: flatten the structure, for example by naming the inner parts.",
    fix_safety=FixSafety.NONE,
    runtime="The deeper levels are not read; the platform refuses such a file.",
    see_also=("SYNTAX_ERROR",),
)

LIMIT_EXCEEDED = Code(
    code="LIMIT_EXCEEDED",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Beyond an input limit",
    summary=(
        "A line longer than 100,000 characters, a list or map of more than 1,000 items, or more "
        "than 50,000 agents in one file."
    ),
    explanation=(
        "The tools read files from anywhere (an editor opens whatever is opened), so what one file "
        "can make them do is bounded. No agent comes near these limits; a file that does is "
        "generated or damaged. What goes past a limit is not read, and the error says where: a "
        "line's value past 100,000 characters, the items of one `[...]` list or `{...}` map after "
        "the 1,000th, the agents, supervisors and profiles of one file after the 50,000th. Files "
        "over 10 MB are not read at all (`abl check` says so), and nesting has its own code, "
        "`NESTING_TOO_DEEP`."
    ),
    bad_example=_tracker("LIMITATIONS: [" + ", ".join(f"r{i}" for i in range(1001)) + "]\n"),
    good_example=_tracker('LIMITATIONS: ["No refunds", "No address changes"]\n'),
    fix="No quick fix: split the file, the line or the list.",
    fix_safety=FixSafety.NONE,
    runtime="What goes past the limit is not read; the platform refuses files of this size.",
    see_also=("NESTING_TOO_DEEP",),
)

RULE_FAILED = Code(
    code="RULE_FAILED",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="A check could not run",
    summary="One of the checks failed with an internal error on this file.",
    explanation=(
        "A check that fails is a bug in the checker, not in the file. The other checks still "
        "run, but the failed one may have missed problems, so the file is reported as not "
        "checked rather than as clean: `abl check` exits with 1. The message names the check "
        "and the error; please report it with the file."
    ),
    bad_example=_tracker('PERSONA: "Brief, cheerful courier assistant"\n'),
    good_example=_tracker(),
    fix="No quick fix: the checker must be fixed. `# abl: ignore[RULE_FAILED]` silences it meanwhile.",
    fix_safety=FixSafety.NONE,
    runtime="Nothing: the file itself may be fine; whether it runs is unknown until every check runs.",
)

INVALID_ENCODING = Code(
    code="INVALID_ENCODING",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="File is not UTF-8",
    summary="The file is not valid UTF-8; bytes that do not decode were read as U+FFFD replacement characters.",
    explanation=(
        "ABL files are UTF-8. A file saved in another encoding, such as Latin-1 or Windows-1252, "
        "contains bytes that do not decode. They are read as the replacement character (U+FFFD) "
        "so that the rest of the file can still be checked, but every text that contains them "
        "(prompts, replies, names) is damaged: what the author sees in the editor is not what "
        "the platform would receive. `abl check --fix` does not fix such a file (writing it back "
        "would turn the bytes into replacement characters for good), so the other problems "
        "reported in it are shown without their fixes until it is saved as UTF-8."
    ),
    bad_example=_tracker('PERSONA: "Friendly courier of Café Lumière"\n'),
    good_example=_tracker('PERSONA: "Friendly courier of Café Lumière"\n'),
    bad_example_encoding="latin-1",
    fix="No quick fix: save the file again as UTF-8.",
    fix_safety=FixSafety.NONE,
    runtime="Every text that contains the bytes carries replacement characters instead of the intended letters.",
)

SECTION_OUTSIDE_AGENT = Code(
    code="SECTION_OUTSIDE_AGENT",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Section before the first agent header",
    summary=(
        "A section appears before the first `AGENT:` or `SUPERVISOR:` header of an `.abl` file "
        "that is not a tool library."
    ),
    explanation=(
        "Each `AGENT:` or `SUPERVISOR:` line opens a document, and the sections after it belong "
        "to that document. A section above the first header belongs to no agent at all. Tool "
        "libraries (`.tools.abl` files) are the exception: their root `TOOLS:` section has no "
        "header, and a behavior profile file opens with its own `BEHAVIOR_PROFILE:` header."
    ),
    bad_example=project(
        """
        PERSONA: "Brief, cheerful courier assistant"

        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        """
    ),
    good_example=_tracker('PERSONA: "Brief, cheerful courier assistant"\n'),
    fix="Moves the section below the first header. Unsafe: it starts to apply to that agent.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
)

FLOW_STEP_AT_COLUMN_ZERO = Code(
    code="FLOW_STEP_AT_COLUMN_ZERO",
    severity=Severity.WARNING,
    group=Group.SYNTAX,
    title="FLOW step written at column 0",
    summary="A FLOW step block is written at column 0 instead of indented under `FLOW:`.",
    explanation=(
        "Steps belong inside `FLOW:`. Two of the platform's own how-to guides print step blocks "
        "at column 0 after `FLOW:`, where they read as new top-level sections. When a column-0 "
        "block's name is listed in that agent's `FLOW.steps`, this tool reads it as that step "
        "(instead of reporting UNKNOWN_SECTION) and warns, because a strict parser would not."
    ),
    bad_example=project(
        """
        AGENT: Fee_Calculator
        GOAL: "Work out the fee for a money transfer"

        FLOW:
          steps: [ask_amount, quote]

        ask_amount:
          REASONING: false
          GATHER:
            - amount: required
              prompt: "How much do you want to send?"
          THEN: quote

        quote:
          REASONING: false
          RESPOND: "The fee for this transfer is 2 EUR."
          THEN: COMPLETE
        """
    ),
    good_example=project(
        """
        AGENT: Fee_Calculator
        GOAL: "Work out the fee for a money transfer"

        FLOW:
          steps: [ask_amount, quote]

          ask_amount:
            REASONING: false
            GATHER:
              - amount: required
                prompt: "How much do you want to send?"
            THEN: quote

          quote:
            REASONING: false
            RESPOND: "The fee for this transfer is 2 EUR."
            THEN: COMPLETE
        """
    ),
    fix="Indents the block under `FLOW:`. Safe: this tool already reads it as that step.",
    fix_safety=FixSafety.SAFE,
    runtime=(
        "This tool runs the block as the step. A strict parser reads it as an unknown top-level "
        "section, and the flow then lacks that step."
    ),
    see_also=("UNKNOWN_SECTION",),
)

MISSING_HANDOFF_TARGET = Code(
    code="MISSING_HANDOFF_TARGET",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Route without a target",
    summary="A `HANDOFF` route has no `TO:`.",
    explanation=(
        "`TO:` names the agent that takes the conversation; a route without one has nowhere to "
        "go. The usual causes are a misspelt `TO` (also reported as UNKNOWN_KEY) or the target "
        "written as `AGENT:`, which is the DELEGATE spelling."
    ),
    bad_example=project(
        _RETAIL_HUB
        + "\nHANDOFF:\n"
        + route('WHEN: intent.category == "return_item"', "HISTORY: full", "ON_FAILURE: continue"),
        RETURNS_AGENT,
    ),
    good_example=project(_RETAIL_HUB + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT),
    fix="No quick fix: add `TO:` with the agent that should take the conversation.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("INVALID_HANDOFF_TARGET",),
)

_RETURN_FLOW = """
    AGENT: Returns_Flow
    GOAL: "Take a product return"

    FLOW:
      entry_point: ask_order
      ask_order:
        REASONING: false
        GATHER:
          - order_id: required
            prompt: "What is your order number?"
        THEN: {then}
      confirm:
{reasoning}        RESPOND: "Your return for order {{{{order_id}}}} is booked."
        THEN: COMPLETE
    """


def _return_flow(then: str = "confirm", reasoning: bool = True) -> str:
    return project(_RETURN_FLOW.format(then=then, reasoning="        REASONING: false\n" if reasoning else ""))


MISSING_REASONING = Code(
    code="MISSING_REASONING",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="FLOW step without REASONING",
    summary="A `FLOW` step does not say `REASONING: true` or `REASONING: false`.",
    explanation=(
        "Every step must declare whether the model drives it (`REASONING: true`, working toward "
        "the step or agent goal) or its actions run in order (`REASONING: false`). There is no "
        'default: the validator rejects a step without it ("a step must declare reasoning").'
    ),
    bad_example=_return_flow(reasoning=False),
    good_example=_return_flow(),
    fix="Adds `REASONING: false` to the step. Unsafe: whether the model drives the step is the author's choice.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("FLOW_STEP_AT_COLUMN_ZERO", "UNKNOWN_FLOW_STEP", "REASONING_STEP_KEY_IGNORED"),
)

UNKNOWN_FLOW_STEP = Code(
    code="UNKNOWN_FLOW_STEP",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Transition to a step that does not exist",
    summary="A `THEN`, `GOTO`, `ON_FAIL`, `ON_EXHAUSTED`, `entry_point` or `steps` entry names no step of the flow.",
    explanation=(
        "Steps move with `THEN: <step>` (also `GOTO`, a one-line `ON_FAIL` or `ON_SUCCESS`, "
        "`ON_EXHAUSTED`), and the flow starts at `entry_point`. A name that matches no step "
        "block of the same `FLOW` is an undefined step reference, which the validator rejects. "
        "The keywords `COMPLETE`, `ESCALATE`, `HANDOFF <agent>`, `CONTINUE`, `RETRY`, "
        "`RETRY_STEP` and `BACKTRACK` are not step names and are always allowed."
    ),
    bad_example=_return_flow(then="confrim"),
    good_example=_return_flow(),
    fix="Replaces the name with the closest step name, when one is close. Unsafe: it changes where the flow goes.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("MISSING_REASONING", "FLOW_STEP_AT_COLUMN_ZERO"),
)

_VIP_PROFILE = """
    BEHAVIOR_PROFILE: vip_guest
{priority}{when}    INSTRUCTIONS: "Greet the guest by name and offer the lounge."
    """

_CONCIERGE = """
    AGENT: Concierge
    GOAL: "Help hotel guests with their stay"
    USE BEHAVIOR_PROFILE: {profile}
    """


def _vip_profile(priority: bool = True, when: bool = True) -> str:
    return project(
        _VIP_PROFILE.format(
            priority="    PRIORITY: 50\n" if priority else "",
            when='    WHEN: user.tier == "vip"\n' if when else "",
        )
    )


INCOMPLETE_BEHAVIOR_PROFILE = Code(
    code="INCOMPLETE_BEHAVIOR_PROFILE",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Behavior profile without PRIORITY or WHEN",
    summary="A `BEHAVIOR_PROFILE` document has no `PRIORITY` or no `WHEN`.",
    explanation=(
        "A profile file must say how it ranks against other profiles (`PRIORITY`, a "
        "non-negative number, higher wins) and when it applies (`WHEN`, a condition; `true` "
        'makes it the default). The import rejects a profile without them: "BEHAVIOR_PROFILE '
        'requires a PRIORITY declaration", "BEHAVIOR_PROFILE requires a WHEN declaration".'
    ),
    bad_example=project(_CONCIERGE.format(profile="vip_guest"), _vip_profile(when=False)),
    good_example=project(_CONCIERGE.format(profile="vip_guest"), _vip_profile()),
    fix="No quick fix: the rank and the condition are the author's choice.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("UNKNOWN_BEHAVIOR_PROFILE",),
)

UNKNOWN_BEHAVIOR_PROFILE = Code(
    code="UNKNOWN_BEHAVIOR_PROFILE",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Attached behavior profile does not exist",
    summary="`USE BEHAVIOR_PROFILE` names a profile that no file of the project declares.",
    explanation=(
        "`USE BEHAVIOR_PROFILE: <name>` attaches a profile by the exact name in its "
        "`BEHAVIOR_PROFILE:` header (names are case-sensitive). The import resolves every "
        "reference and reports the ones that name no profile of the project."
    ),
    bad_example=project(_CONCIERGE.format(profile="vip_guests"), _vip_profile()),
    good_example=project(_CONCIERGE.format(profile="vip_guest"), _vip_profile()),
    fix="Replaces the name with the closest profile name, when one is close. Unsafe: it attaches another profile.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("INCOMPLETE_BEHAVIOR_PROFILE",),
)

_TRACKER_WITH_TOOL = """
    AGENT: Parcel_Tracker
    GOAL: "Tell the customer where their parcel is"

    TOOLS:
      track_parcel(code: string) -> {{status: string}}
        description: "Look up a parcel by tracking code"
        type: http
        endpoint: "/parcels/{{code}}"
        method: GET

    GATHER:
      tracking_code:
        PROMPT: "What is your tracking code?"
        TYPE: string
        REQUIRED: true

    FLOW:
      look:
        REASONING: false
        CALL: {call}
          WITH:
            code: tracking_code
          AS: parcel
        RESPOND: "Your parcel is {{{{parcel.status}}}}."
        THEN: COMPLETE
    """

UNKNOWN_TOOL = Code(
    code="UNKNOWN_TOOL",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Reference to a tool that does not exist",
    summary="A `CALL`, an `AVAILABLE_TOOLS` entry or an import names a tool the agent does not have.",
    explanation=(
        "An agent can use the tools it declares under `TOOLS`, the tools its `file:` imports "
        "bring from a tool library, and the platform's built-in tools. Any other name is an "
        "unknown tool reference, which the validator rejects; usually it is a typo. When an "
        "import points at a library the project does not hold, the agent is not checked."
    ),
    bad_example=project(_TRACKER_WITH_TOOL.format(call="track_parcle")),
    good_example=project(_TRACKER_WITH_TOOL.format(call="track_parcel")),
    fix="Replaces the name with the closest tool name, when one is close. Unsafe: it calls another tool.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("UNKNOWN_FLOW_STEP",),
)

_ROLE_HUB = """
    SUPERVISOR: Support_Hub
    GOAL: "Send each customer to the right support team"

    BEHAVIOR:
      role: {role}

    INTENTS:
      return_item: "Returns, exchanges, or refunds."
    """

INVALID_EXECUTION_ROLE = Code(
    code="INVALID_EXECUTION_ROLE",
    severity=Severity.ERROR,
    group=Group.SYNTAX,
    title="Execution role the document cannot have",
    summary="A `SUPERVISOR` with `role: assistant`, or a `router` without any `HANDOFF` target.",
    explanation=(
        "`BEHAVIOR.role` decides what an agent may do. An `assistant` is a leaf agent, so a "
        "supervisor cannot be one; a `router` never answers itself, so it must hand off to at "
        "least one agent. The compiler rejects both."
    ),
    bad_example=project(project(_ROLE_HUB.format(role="assistant")) + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT),
    good_example=project(project(_ROLE_HUB.format(role="router")) + "\nHANDOFF:\n" + _RETURNS_ROUTE, RETURNS_AGENT),
    fix="No quick fix: pick the role that matches what the agent does (`router` or `orchestrator`).",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR",),
)

CODES: tuple[Code, ...] = (
    SYNTAX_ERROR,
    UNKNOWN_SECTION,
    UNKNOWN_KEY,
    DUPLICATE_SECTION,
    DUPLICATE_KEY,
    DUPLICATE_AGENT_NAME,
    INVALID_AGENT_NAME,
    MISSING_GOAL,
    REMOVED_KEYWORD,
    SECTION_KEYWORD_CASE,
    INVALID_VALUE,
    ROUTING_NOT_EXECUTED,
    TAB_INDENTATION,
    KEY_UNDER_VALUE,
    NESTING_TOO_DEEP,
    LIMIT_EXCEEDED,
    RULE_FAILED,
    INVALID_ENCODING,
    SECTION_OUTSIDE_AGENT,
    FLOW_STEP_AT_COLUMN_ZERO,
    MISSING_HANDOFF_TARGET,
    MISSING_REASONING,
    UNKNOWN_FLOW_STEP,
    INCOMPLETE_BEHAVIOR_PROFILE,
    UNKNOWN_BEHAVIOR_PROFILE,
    UNKNOWN_TOOL,
    INVALID_EXECUTION_ROLE,
)

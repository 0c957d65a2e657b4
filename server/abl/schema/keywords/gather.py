"""GATHER: the fields an agent collects from the customer, and their properties.

Source: ABL-REFERENCE §3.5 (and §3.22 for the behavior-profile form). Field properties are
matched case-insensitively; the seeds write them in uppercase (`PROMPT`, `TYPE`, `REQUIRED`).
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import GATHER_TYPES

FIELD_PROPERTIES = (
    Key(
        "prompt",
        V.TEMPLATE,
        "The question asked when the field is missing.",
        required=True,
        example='PROMPT: "What is your order number?"',
    ),
    Key("message_key", V.STRING, "Localised message key used instead of `prompt`."),
    Key("description", V.TEXT, "What the field means, for the model that extracts it."),
    Key(
        "type",
        V.ENUM,
        "Kind of value, which decides how it is extracted and validated.",
        values=GATHER_TYPES,
        default="string",
        example="TYPE: number",
    ),
    Key(
        "required",
        V.BOOL,
        "The agent keeps asking until the field has a value.",
        default="true",
        example="REQUIRED: true",
    ),
    Key(
        "default",
        V.ANY,
        "Value used when the customer gives none. Pointless together with `required: false` (`W822`).",
    ),
    Key(
        "entity_ref",
        V.NAME,
        "Takes type, values and validation from an `ENTITIES` entry.",
        refers_to="entity",
    ),
    Key(
        "options",
        V.LIST,
        "Allowed values for `enum` fields, inline or as a block.",
        also=(V.LIST_OF_BLOCKS,),
        item_kind=V.STRING,
    ),
    Key(
        "validate",
        V.STRING,
        "A validation rule: `min(n)`, `max(n)`, `enum(a, b)`, `email()`, `pattern(regex)`, or "
        "a block `{type, rule, error, max_retries}`.",
        also=(V.BLOCK,),
        open=True,
    ),
    Key("validation_process", V.ENUM, "How the rule is checked.", values=("REGEX", "CODE", "LLM")),
    Key("retry_prompt", V.TEMPLATE, "Asked again after an invalid answer."),
    Key("max_retries", V.INT, "Most re-asks after invalid answers."),
    Key("infer", V.BOOL, "Let the model infer the value from context.", default="false"),
    Key(
        "infer_confidence",
        V.NUMBER,
        "Below this confidence an inferred value is asked instead.",
        default="0.8",
        min_value=0,
        max_value=1,
    ),
    Key("infer_confirm", V.BOOL, "Confirm inferred values with the customer.", default="true"),
    Key("extraction_hints", V.LIST, "Phrases that help extraction.", item_kind=V.STRING),
    Key(
        "prompt_mode",
        V.ENUM,
        "`extract_only` never asks; it only picks the value up when mentioned.",
        values=("ask", "extract_only"),
        default="ask",
    ),
    Key("range", V.BOOL, "Collect a `{low, high}` range.", default="false"),
    Key("list", V.BOOL, "Collect several values as a list.", default="false"),
    Key(
        "preferences",
        V.BOOL,
        "Collect `{accept, desire, avoid, refuse}` preferences.",
        default="false",
    ),
    Key(
        "activation",
        V.ENUM,
        "When the field is collected; `progressive` becomes required once its `depends_on` "
        "fields are collected, and `{when: <condition>}` activates on a condition.",
        also=(V.BLOCK,),
        values=("required", "optional", "progressive"),
        default="required",
        children=(Key("when", V.CONDITION, "Condition that activates the field."),),
    ),
    Key("WHEN", V.CONDITION, "Collect the field only while this holds."),
    Key(
        "depends_on",
        V.LIST,
        "Fields that must be collected first.",
        item_kind=V.NAME,
        refers_to="gather_field",
    ),
    Key(
        "satisfied_by",
        V.LIST,
        "Which sources may fill the field.",
        item_kind=V.ENUM,
        values=("user_input", "authoritative_tool", "system"),
    ),
    Key(
        "sensitive",
        V.BOOL,
        "Mask the value outside collection and keep it out of handoff history.",
        default="false",
    ),
    Key(
        "sensitive_display",
        V.ENUM,
        "How a sensitive value is shown.",
        values=("redact", "mask", "replace"),
    ),
    Key("mask_config", V.BLOCK, "Masking: `showFirst`, `showLast`, `char`.", open=True),
    Key(
        "pii_type",
        V.ENUM,
        "Kind of personal data.",
        values=("email", "phone", "ssn", "credit_card", "address", "name", "custom"),
    ),
    Key("pii_pattern_ref", V.NAME, "Named PII pattern from the project configuration."),
    Key("transient", V.BOOL, "Clear the value once collection is over.", default="false"),
    Key("extraction_pattern", V.STRING, "Regular expression that extracts the value."),
    Key("extraction_group", V.INT, "Capture group of `extraction_pattern` to use.", default="0"),
    Key(
        "strategy",
        V.ENUM,
        "Extraction strategy.",
        values=("auto", "ml", "llm", "hybrid", "pattern"),
        default="auto",
    ),
    Key(
        "semantics",
        V.BLOCK,
        "Meaning of the value: format, unit, lookup table, locale, temporal direction, ...",
        open=True,
        children=(
            Key("format", V.STRING, "Expected format."),
            Key("components", V.LIST, "Parts of a compound value."),
            Key("unit", V.STRING, "Unit of a number."),
            Key(
                "lookup",
                V.NAME,
                "Validate against a `LOOKUP_TABLES` entry.",
                refers_to="lookup_table",
            ),
            Key("convert_to", V.STRING, "Unit or format to convert to."),
            Key("locale", V.STRING, "Locale for parsing."),
            Key("temporal", V.ENUM, "Allowed direction of dates.", values=("future", "past", "any")),
            Key("enum_set", V.NAME, "Named set of enum values."),
            Key("kore_entity_type", V.STRING, "Platform entity type to map to."),
        ),
    ),
    Key("max_file_size", V.INT, "Largest accepted attachment in bytes (attachment fields)."),
)

GATHER_FIELD = Key(
    "<field>",
    V.BLOCK,
    "One field to collect. Its name is the variable that holds the answer.",
    children=FIELD_PROPERTIES,
)

GATHER = Key(
    "GATHER",
    V.MAP,
    "Fields the agent collects over several turns. Values are picked up from any message, "
    "and missing required fields are asked for with their `prompt`.",
    free_keys=True,
    entry=GATHER_FIELD,
    example=('GATHER:\n  order_id:\n    PROMPT: "What is your order number?"\n    TYPE: string\n    REQUIRED: true'),
    source="§3.5",
)

GATHER_PROFILE = Key(
    "GATHER",
    V.BLOCK,
    "Changes how agents using this profile collect fields.",
    children=(
        Key("validation_style", V.STRING, "How validation problems are phrased."),
        Key("confirmation", V.ANY, "How collected values are confirmed."),
        Key(
            "FIELD_OVERRIDES",
            V.MAP,
            "Per-field overrides of prompt, requiredness, validation and hints.",
            free_keys=True,
            entry=Key(
                "<field>",
                V.BLOCK,
                "Overrides for one field.",
                children=(
                    Key("prompt", V.TEMPLATE, "Replacement question."),
                    Key("required", V.BOOL, "Replacement requiredness."),
                    Key("skip", V.BOOL, "Do not collect the field under this profile."),
                    Key("validation", V.ANY, "Replacement validation."),
                    Key("extraction_hints", V.LIST, "Replacement hints.", item_kind=V.STRING),
                ),
            ),
        ),
    ),
    example=('GATHER:\n  FIELD_OVERRIDES:\n    account_id:\n      prompt: "Please say your account number."'),
    source="§3.22",
)

"""Understanding the customer: NLU, INTENTS, ENTITIES, MULTI_INTENT.

Source: ABL-REFERENCE §3.20.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import GATHER_TYPES

NLU_ENTITY_TYPES = ("enum", "pattern", "location", "date", "number", "free_text")

NLU = Key(
    "NLU",
    V.BLOCK,
    "Pattern and example based intent and entity recognition, embeddings, languages and evaluation settings.",
    camel_case_keys=True,
    children=(
        Key(
            "intents",
            V.LIST_OF_BLOCKS,
            "Intents recognised by patterns and examples.",
            children=(
                Key("NAME", V.NAME, "Intent name.", required=True),
                Key(
                    "PATTERNS",
                    V.LIST,
                    "Case-insensitive substrings that signal the intent.",
                    item_kind=V.STRING,
                    required=True,
                ),
                Key("EXAMPLES", V.LIST, "Example phrasings.", item_kind=V.STRING),
                Key("EXAMPLES_FILE", V.STRING, "File of example phrasings, one a line."),
                Key("ENTITIES", V.LIST, "Entities expected with the intent.", item_kind=V.NAME),
            ),
        ),
        Key(
            "categories",
            V.LIST_OF_BLOCKS,
            "Intent categories.",
            children=(
                Key("NAME", V.NAME, "Category name.", required=True),
                Key("PATTERNS", V.LIST, "Substrings that signal the category.", item_kind=V.STRING),
            ),
        ),
        Key(
            "entities",
            V.LIST_OF_BLOCKS,
            "Entities extracted from messages.",
            children=(
                Key("NAME", V.NAME, "Entity name.", required=True),
                Key("TYPE", V.ENUM, "Entity type.", values=NLU_ENTITY_TYPES, default="enum"),
                Key("VALUES", V.LIST, "Allowed values.", item_kind=V.STRING),
                Key("SYNONYMS", V.MAP, "`canonical: [alternatives]`."),
                Key("PATTERN", V.STRING, "Regular expression for `pattern` entities."),
                Key("VALIDATION", V.ANY, "Extra validation."),
                Key("SENSITIVE", V.BOOL, "Mask the value."),
            ),
        ),
        Key(
            "embeddings",
            V.BLOCK,
            "Embedding-based matching.",
            camel_case_keys=True,
            children=(
                Key("enabled", V.BOOL, "Use embeddings."),
                Key("provider", V.STRING, "Embedding provider."),
                Key("model", V.STRING, "Embedding model."),
                Key("base_url", V.STRING, "Provider URL.", aliases=("baseUrl",)),
                Key("threshold", V.NUMBER, "Similarity needed for a match."),
                Key("cache_ttl", V.INT, "How long embeddings are cached."),
            ),
        ),
        Key("languages", V.LIST, "Supported languages.", item_kind=V.STRING),
        Key("default_language", V.STRING, "Language assumed when none is detected."),
        Key("allow_code_switching", V.BOOL, "Allow mixed languages in one message.", default="false"),
        Key("language_models", V.MAP, "A model per language."),
        Key(
            "models",
            V.BLOCK,
            "`fast` and `balanced` models.",
            children=(
                Key("fast", V.STRING, "Model for quick classification."),
                Key("balanced", V.STRING, "Model for harder classification."),
            ),
        ),
        Key(
            "evaluation",
            V.BLOCK,
            "Prediction logging and tests.",
            children=(
                Key("log_predictions", V.BOOL, "Log every prediction."),
                Key("ab_test", V.ANY, "A/B test settings."),
                Key(
                    "confidence_threshold",
                    V.NUMBER,
                    "Lowest accepted confidence.",
                    min_value=0,
                    max_value=1,
                ),
            ),
        ),
        Key(
            "glossary",
            V.LIST,
            '`"term -- definition"` lines given to the model.',
            item_kind=V.STRING,
        ),
        Key("config_file", V.STRING, "YAML file merged into this block (inline wins)."),
    ),
    example='NLU:\n  intents:\n    - NAME: track\n      PATTERNS: ["where is", "tracking"]',
    source="§3.20",
)

INTENTS = Key(
    "INTENTS",
    V.MAP,
    "Routing categories, each with a short description (or a bare name on its own line). "
    "The classifier picks one per message and exposes it as `intent.category` for `HANDOFF` "
    "conditions.",
    also=(V.LIST,),
    free_keys=True,
    entry=Key("<intent>", V.TEXT, "What messages of this category are about.", refers_to="intent"),
    children=(
        Key(
            "LEXICAL_FALLBACK",
            V.ENUM,
            "When word matching stands in for the classifier.",
            values=("never", "when_unavailable", "always"),
        ),
    ),
    example='INTENTS:\n  tracking: "Where a parcel is."\n  claims: "Damage or loss claims."',
    source="§3.20",
)

ENTITIES = Key(
    "ENTITIES",
    V.MAP,
    "Reusable value definitions that GATHER fields reference with `entity_ref`.",
    free_keys=True,
    entry=Key(
        "<entity>",
        V.BLOCK,
        "One entity.",
        children=(
            Key("TYPE", V.ENUM, "Value type.", values=GATHER_TYPES, default="string"),
            Key("VALUES", V.LIST, "Allowed values.", item_kind=V.STRING),
            Key("SYNONYMS", V.MAP, "`canonical: [alternatives]`."),
            Key("PATTERN", V.STRING, "Regular expression the value must match."),
            Key("VALIDATION", V.ANY, "Extra validation."),
            Key("SENSITIVE", V.BOOL, "Mask the value."),
            Key("DESCRIPTION", V.TEXT, "What the value means."),
            Key("EXTRACTION_HINTS", V.LIST, "Phrases that help extraction.", item_kind=V.STRING),
        ),
    ),
    example="ENTITIES:\n  carrier:\n    TYPE: enum\n    VALUES: [royal_mail, dpd]",
    source="§3.20",
)

MULTI_INTENT = Key(
    "MULTI_INTENT",
    V.BLOCK,
    "What to do when one message carries several requests: queue them, run them one after "
    "another or in parallel, or ask which comes first. Agent settings override the project's.",
    children=(
        Key("enabled", V.BOOL, "Detect several intents per message.", default="true"),
        Key(
            "strategy",
            V.ENUM,
            "How several intents are handled.",
            values=("primary_queue", "sequential", "parallel", "disambiguate", "auto"),
            default="primary_queue",
        ),
        Key(
            "unknown_relationship_strategy",
            V.ENUM,
            "Strategy when the relationship between intents is unclear.",
            values=("sequential", "parallel", "disambiguate"),
            default="parallel",
        ),
        Key(
            "max_intents",
            V.INT,
            "Most intents kept per message.",
            default="3",
            min_value=1,
            max_value=10,
        ),
        Key(
            "confidence_threshold",
            V.NUMBER,
            "Intents below this confidence are dropped.",
            default="0.6",
            min_value=0,
            max_value=1,
        ),
        Key(
            "queue_max_age_ms",
            V.INT,
            "How long a queued intent stays valid.",
            default="600000",
            min_value=0,
            max_value=3_600_000,
        ),
        Key(
            "advance_on_primary_response",
            V.BOOL,
            "Move to the next queued intent after the first is answered.",
            default="true",
        ),
    ),
    example="MULTI_INTENT:\n  enabled: true\n  strategy: primary_queue\n  max_intents: 3",
    source="§3.20",
)

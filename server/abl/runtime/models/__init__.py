"""Models: the one interface for every non-deterministic decision, and its providers.

`create_model(name, **options)` builds a provider by name:
- `embedded` (default): offline and deterministic (`EmbeddedModel`);
- `scripted`: answers given by a test (`ScriptedModel`);
- `openai` (also `openai_compat`, `openai-compatible`): an OpenAI-compatible endpoint
  (`OpenAICompatModel`). It only sends anything when asked for by name.
"""

from __future__ import annotations

from typing import Any

from abl.runtime.models.base import (
    CallLog,
    ChatMessage,
    ConditionDecision,
    DetectedIntent,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    Model,
    ModelCallRecord,
    ModelContext,
    ModelError,
    MultiIntentDecision,
    ReplyRequest,
    ToolChoice,
    ToolDecision,
    ToolParamSpec,
    ToolRequest,
    ToolSpec,
)
from abl.runtime.models.embedded import EmbeddedModel
from abl.runtime.models.openai_compat import OpenAICompatModel
from abl.runtime.models.scripted import ScriptedModel, ScriptExhausted

PROVIDER_NAMES = ("embedded", "scripted", "openai")
_ALIASES = {"openai_compat": "openai", "openai-compatible": "openai", "openai_compatible": "openai"}


def create_model(name: str = "embedded", **options: Any) -> Model:
    """A model provider by name; `options` go to its constructor.

    Raises ModelError for an unknown name or a provider that is not configured.
    """
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key == "embedded":
        return EmbeddedModel(**options)
    if key == "scripted":
        return ScriptedModel(**options)
    if key == "openai":
        return OpenAICompatModel(**options)
    raise ModelError(f"unknown model provider {name!r}; choose one of: {', '.join(PROVIDER_NAMES)}")


__all__ = [
    "PROVIDER_NAMES",
    "CallLog",
    "ChatMessage",
    "ConditionDecision",
    "DetectedIntent",
    "EmbeddedModel",
    "Extraction",
    "FieldSpec",
    "IntentDecision",
    "IntentOption",
    "Model",
    "ModelCallRecord",
    "ModelContext",
    "ModelError",
    "MultiIntentDecision",
    "OpenAICompatModel",
    "ReplyRequest",
    "ScriptExhausted",
    "ScriptedModel",
    "ToolChoice",
    "ToolDecision",
    "ToolParamSpec",
    "ToolRequest",
    "ToolSpec",
    "create_model",
]

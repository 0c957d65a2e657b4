"""EXECUTION: model choice, limits, timeouts and the supervisor pre-classification pipeline.

Sources: ABL-REFERENCE §3.3 and §3.23 (pipeline), seed 004 (`pipeline.parentReturn`).
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

MODEL_OPERATIONS = (
    "extraction",
    "validation",
    "tool_selection",
    "response_gen",
    "summarization",
    "reasoning",
    "realtime_voice",
    "coordination",
    "embedding",
    "title",
)


def _enabled(default: str) -> Key:
    return Key("enabled", V.BOOL, "Turns this stage on or off.", default=default)


def _ratio(name: str, doc: str, default: str | None = None) -> Key:
    return Key(name, V.NUMBER, doc, default=default, min_value=0, max_value=1)


_PARENT_RETURN = Key(
    "parentReturn",
    V.BLOCK,
    "When a reasoning child's change of topic returns control to this supervisor. The "
    "supervisor's setting overrides the project's.",
    camel_case_keys=True,
    children=(
        _ratio(
            "minConfidence",
            "How sure the topic match must be (0 to 1) before the child returns to the supervisor.",
        ),
        Key(
            "ignoreAmbiguous",
            V.BOOL,
            "Ignore ambiguous topic matches instead of returning.",
            default="false",
        ),
    ),
    example="parentReturn:\n  minConfidence: 0.8\n  ignoreAmbiguous: true",
    source="seed 004",
)

PIPELINE = Key(
    "pipeline",
    V.BLOCK,
    "Supervisor pre-classification: classify the message first, hand off at once on a "
    "confident single intent, and otherwise narrow the tools before reasoning.",
    camel_case_keys=True,
    children=(
        _enabled("false"),
        Key(
            "mode",
            V.ENUM,
            "`sequential` skips the main model on a short-circuit; `parallel` runs both.",
            values=("parallel", "sequential"),
            default="parallel",
        ),
        Key(
            "shortCircuit",
            V.BLOCK,
            "Hand off directly when one intent is detected with enough confidence.",
            camel_case_keys=True,
            children=(
                _enabled("true"),
                _ratio("confidenceThreshold", "Confidence needed to short-circuit.", "0.85"),
            ),
        ),
        Key(
            "toolFilter",
            V.BLOCK,
            "Offer the model only the most relevant tools.",
            camel_case_keys=True,
            children=(
                _enabled("true"),
                Key("maxTools", V.INT, "Most tools offered after filtering.", default="6"),
            ),
        ),
        Key(
            "keywordVeto",
            V.BLOCK,
            "Keywords that prevent a short-circuit.",
            camel_case_keys=True,
            children=(
                _enabled("true"),
                Key(
                    "keywords",
                    V.LIST,
                    "Words that veto a short-circuit.",
                    item_kind=V.STRING,
                    default="[]",
                ),
            ),
        ),
        Key(
            "intentBridge",
            V.BLOCK,
            "How classifier results are passed to routing and reasoning.",
            camel_case_keys=True,
            children=(
                _enabled("true"),
                _ratio("programmaticThreshold", "Confidence for routing without the model.", "0.85"),
                _ratio("guidedThreshold", "Confidence for passing the intent as a hint.", "0.5"),
                Key(
                    "outOfScopeDecline",
                    V.BOOL,
                    "Decline messages classified out of scope.",
                    default="true",
                ),
                Key(
                    "multiIntentSignal",
                    V.BOOL,
                    "Report when a message carries several intents.",
                    default="true",
                ),
            ),
        ),
        _PARENT_RETURN,
        Key(
            "model",
            V.STRING,
            "Former classifier model setting.",
            ignored="the classifier model comes from the project configuration (`modelSource`, `tenantModelId`)",
        ),
    ),
    example="pipeline:\n  enabled: true\n  mode: sequential",
    source="§3.23",
)

_COMPACTION = Key(
    "compaction",
    V.BLOCK,
    "How old tool results, earlier turns and prompt context are shortened when the context grows.",
    open=True,
    children=(
        Key(
            "tool_results",
            V.BLOCK,
            "Shortening of tool results.",
            open=True,
            children=(
                Key(
                    "strategy",
                    V.ENUM,
                    "How tool results are shortened.",
                    values=("none", "truncate", "structured", "summarize"),
                ),
                Key("max_chars", V.INT, "Longest tool result kept."),
                Key("keep_recent", V.INT, "Most recent results kept in full."),
            ),
        ),
        Key(
            "prior_turns",
            V.BLOCK,
            "Shortening of earlier turns.",
            open=True,
            children=(
                Key(
                    "strategy",
                    V.ENUM,
                    "How earlier turns are shortened.",
                    values=("none", "placeholder", "compact", "summarize"),
                ),
                Key("assistant_preview_chars", V.INT, "Characters of each old reply kept."),
            ),
        ),
        Key(
            "prompt_context",
            V.BLOCK,
            "Shortening of values projected into the prompt.",
            open=True,
            children=(
                Key(
                    "projection_strategy",
                    V.ENUM,
                    "How values are projected.",
                    values=("preview", "summary", "metadata"),
                ),
                Key("value_max_chars", V.INT, "Longest single value."),
                Key("total_max_chars", V.INT, "Longest total projection."),
            ),
        ),
        Key(
            "model",
            V.STRING,
            "Former summarisation model.",
            deprecated="set `EXECUTION.models.summarization` instead",
        ),
    ),
)

_COORDINATOR_POLICY = Key(
    "coordinator_policy",
    V.BLOCK,
    "How a voice coordinator speaks while agents work.",
    open=True,
    camel_case_keys=True,
    children=(
        Key("language", V.STRING, "Language of coordinator speech."),
        Key("tone", V.ENUM, "Tone.", values=("neutral", "warm", "formal", "energetic")),
        Key("pace", V.ENUM, "Pace.", values=("slow", "normal", "fast")),
        Key("brevity", V.ENUM, "Length of coordinator lines.", values=("concise", "standard")),
        Key(
            "interruption",
            V.ENUM,
            "What happens on interruption.",
            values=("resume_latest", "acknowledge_then_resume"),
        ),
        Key(
            "greeting_style",
            V.ENUM,
            "How the coordinator greets.",
            values=("brief", "warm", "none"),
        ),
        Key(
            "accessibility",
            V.BLOCK,
            "`confirm_critical_values`, `spell_sensitive_values`.",
            open=True,
        ),
    ),
)

_EXECUTION_VOICE = Key(
    "voice",
    V.BLOCK,
    "Default voice settings for the agent (provider, voice, speed, coordinator policy).",
    open=True,
    children=(
        Key("provider", V.STRING, "Text-to-speech provider."),
        Key("voice_id", V.STRING, "Voice to speak with."),
        Key("speed", V.NUMBER, "Speaking rate; 1.0 is normal."),
        _COORDINATOR_POLICY,
        Key(
            "barge_in",
            V.ENUM,
            "Interruption setting.",
            values=("allow", "disallow"),
            removed="`barge_in` is not allowed on `EXECUTION.voice`; set `BARGE_IN` on a flow step's `VOICE`",
        ),
    ),
)


def _ms(name: str, doc: str, default: str | None = None) -> Key:
    return Key(name, V.INT, doc + " In milliseconds.", default=default, min_value=0)


EXECUTION = Key(
    "EXECUTION",
    V.BLOCK,
    "Runtime settings of the agent: which model it uses, sampling, limits, timeouts, "
    "per-operation models and (for supervisors) the pre-classification pipeline. Every key "
    "is optional.",
    camel_case_keys=True,
    children=(
        Key("model", V.STRING, "Main reasoning model.", example='model: "claude-haiku-4-5-20251001"'),
        _ratio("temperature", "Sampling temperature from 0 to 1."),
        Key("top_p", V.NUMBER, "Nucleus sampling cut-off."),
        Key("top_k", V.INT, "Top-k sampling cut-off."),
        Key("frequency_penalty", V.NUMBER, "Penalty for repeated tokens."),
        Key("presence_penalty", V.NUMBER, "Penalty for tokens already present."),
        Key("seed", V.INT, "Sampling seed, for repeatable output where the model supports it."),
        Key("stop_sequences", V.LIST, "Texts that end generation.", item_kind=V.STRING),
        Key(
            "reasoning_effort",
            V.ENUM,
            "How much the model thinks before answering.",
            values=("none", "minimal", "low", "medium", "high", "xhigh", "max"),
        ),
        Key(
            "verbosity",
            V.ENUM,
            "How long the model's answers are.",
            values=("low", "medium", "high"),
        ),
        Key("max_tokens", V.INT, "Longest reply the model may write."),
        _ms("tool_timeout", "How long a tool call may take.", "30000"),
        _ms("llm_timeout", "How long one model call may take.", "30000"),
        _ms("session_idle_timeout", "Idle time after which the session ends.", "1800000"),
        Key(
            "max_reasoning_iterations",
            V.INT,
            "Most model-tool round trips per turn.",
            aliases=("max_iterations",),
            default="10",
        ),
        Key("max_flow_iterations", V.INT, "Most flow step transitions per session.", default="100"),
        _ms("voice_latency_target", "Target response latency on voice."),
        Key("fallback_model", V.STRING, "Model used when the main model fails or is unavailable."),
        Key("enable_thinking", V.BOOL, "Let the model think before answering.", default="false"),
        Key("thinking_budget", V.INT, "Tokens the model may spend thinking."),
        Key("token_budget", V.INT, "Total tokens one execution may use."),
        _ratio("compaction_threshold", "Share of the context window that triggers compaction."),
        _COMPACTION,
        Key(
            "inline_gather",
            V.BOOL,
            "Collect gather fields inside reasoning instead of separate prompts.",
            default="false",
        ),
        Key(
            "concurrency",
            V.ENUM,
            "What happens when messages arrive while one is running: "
            "queue them, cancel the current one, or run them together.",
            values=("serial", "preemptive", "parallel"),
            default="serial",
        ),
        Key("max_queue_depth", V.INT, "Most messages waiting in the queue.", default="10"),
        Key("max_concurrent_messages", V.INT, "Most messages processed at once."),
        Key("conversation_history_window", V.INT, "How many earlier messages the model sees."),
        Key(
            "models",
            V.MAP,
            'A model per operation (`extraction: "model-name"`). Unknown operation names are '
            "accepted and used only if the runtime knows them.",
            free_keys=True,
            entry=Key("<operation>", V.STRING, "Model used for this operation."),
            children=tuple(Key(op, V.STRING, f"Model used for {op.replace('_', ' ')}.") for op in MODEL_OPERATIONS),
            example='models:\n  extraction: "claude-haiku-4-5-20251001"',
        ),
        _EXECUTION_VOICE,
        PIPELINE,
        Key(
            "timeouts",
            V.BLOCK,
            "Older grouped timeout settings, in milliseconds.",
            children=(
                _ms("tool_timeout_ms", "Tool call timeout."),
                _ms("llm_timeout_ms", "Model call timeout."),
                _ms("session_timeout_ms", "Session idle timeout."),
                _ms("voice_latency_target_ms", "Voice latency target."),
            ),
        ),
    ),
    example=('EXECUTION:\n  model: "claude-haiku-4-5-20251001"\n  temperature: 0.2\n  tool_timeout: 5000'),
    source="§3.3",
)

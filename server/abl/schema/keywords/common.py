"""Keys that appear under many sections: replies, assignments, rich output, history, timeouts.

Each is built once and shared, so a fix to its documentation reaches every place it is used.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

HISTORY_ONE_LINE_MODES = ("full", "none", "summary_only", "auto")
HISTORY_BLOCK_MODES = ("full", "none", "summary_only", "auto", "last_n")
HISTORY_VALUE_DOCS = (
    (
        "full",
        "The target receives the calling agent's whole conversation, plus the customer "
        "messages earlier child agents handled; messages of a child that gathered a sensitive "
        "field are left out. The default when `HISTORY` is not written.",
    ),
    (
        "none",
        "The target receives no messages: only `PASS` and `SET` values and the summary. "
        "A returnable child's prompts stay out of the parent conversation when it returns.",
    ),
    (
        "summary_only",
        "The target receives only the route's `SUMMARY` text, no messages. Without a `SUMMARY` it starts with nothing.",
    ),
    ("auto", "The target receives the route's `SUMMARY` when there is one, else the last 5 messages."),
    (
        "last_n",
        "The most recent `count` messages (block form only; on one line write "
        "`last_5`). A tool call and its result count as one unit and are never split; if the "
        "newest unit is larger than the count, no messages are sent.",
    ),
    (
        "last_<n>",
        "The most recent n messages, e.g. `last_5`; `last_0` sends none. A tool call and its result are never split.",
    ),
)
ON_RETURN_ACTION_DOCS = (
    (
        "continue",
        "The parent resumes without replaying anything and waits for the customer's "
        "next message. Any action word the platform does not know runs as `continue`.",
    ),
    (
        "resume_intent",
        "The parent replays one customer message (chosen by `resume_with`) through "
        "its routes, one level deep: a second replay in the same chain is refused "
        "(`resume_intent_depth_limit`).",
    ),
)
RESUME_WITH_DOCS = (
    ("original_handoff_utterance", "The message that made the parent hand off (the default)."),
    ("latest_child_user_utterance", "The last message the customer sent while the child was active."),
    ("latest_session_user_utterance", "The customer's last message in the whole session."),
    ("forwarded_return_message", "The message the child forwarded when it gave control back."),
)
RESUME_WITH_VALUES = (
    "original_handoff_utterance",
    "latest_child_user_utterance",
    "latest_session_user_utterance",
    "forwarded_return_message",
)
EXPERIENCE_MODES = (
    "shared_voice_handoff",
    "visible_handoff",
    "silent_delegate",
    "human_escalation",
)
GATHER_TYPES = (
    "string",
    "number",
    "boolean",
    "date",
    "email",
    "phone",
    "text",
    "free_text",
    "integer",
    "float",
    "currency",
    "datetime",
    "enum",
    "pattern",
    "location",
    "attachment",
)

RESPOND = Key(
    "RESPOND",
    V.TEMPLATE,
    "Text sent to the customer. `{{name}}` inserts a value; `TEMPLATE(name)` sends a named "
    "entry of `TEMPLATES` instead.",
    also=(V.TEXT,),
    example='RESPOND: "Your order {{order_id}} is on its way."',
)

MESSAGE_KEY = Key(
    "MESSAGE_KEY",
    V.STRING,
    "Looks the reply up in the localised message catalogue by this key instead of using the inline text.",
)

SET = Key(
    "SET",
    V.ASSIGNMENTS,
    "Assigns variables, one `name = expression` per line (or `SET: name = expression` on one "
    "line). A `name: value` line is read the same way.",
    also=(V.MAP,),
    example='SET:\n  status = "collecting"\n  attempts = 0',
)

CLEAR = Key(
    "CLEAR",
    V.LIST,
    "Variables to unset, as a list or a comma-separated line. Cleared fields are asked for "
    "again the next time they are needed.",
    item_kind=V.NAME,
    refers_to="variable",
    example="CLEAR: [amount, recipient_account]",
)

LOG = Key(
    "LOG",
    V.TEXT,
    "Writes a diagnostic line to the trace only; the customer never sees it. A block form takes `MESSAGE` and `LEVEL`.",
    also=(V.BLOCK,),
    children=(
        Key("MESSAGE", V.TEMPLATE, "The text written to the trace."),
        Key(
            "LEVEL",
            V.ENUM,
            "Trace level of the line.",
            values=("debug", "info", "warn", "error"),
        ),
    ),
)

WITH = Key(
    "WITH",
    V.MAP,
    "Arguments of the tool call: `parameter: value`, where the value is a variable, a "
    "literal, an expression or a nested block.",
)

AS = Key(
    "AS",
    V.NAME,
    "Stores the tool result under this variable name so later steps can read its fields.",
    refers_to="variable",
)

CALL = Key(
    "CALL",
    V.NAME,
    "Calls a declared tool. Give the arguments in `WITH` and the result name in `AS`, or "
    "write the call inline as `tool(arg = value)`.",
    children=(WITH, AS),
    refers_to="tool",
    example="CALL: check_inventory\n  WITH:\n    product_id: product_id\n  AS: stock",
)

SET_INTERACTION_LANGUAGE = Key(
    "SET_INTERACTION_LANGUAGE",
    V.STRING,
    "Switches the conversation language: a literal BCP-47 tag (checked when compiling) or a "
    "value resolved at runtime (`{{lang}}`, a dotted path).",
    example='SET_INTERACTION_LANGUAGE: "es-MX"',
)

CLEAR_INTERACTION_LANGUAGE = Key(
    "CLEAR_INTERACTION_LANGUAGE",
    V.BOOL,
    "Drops a language set earlier with `SET_INTERACTION_LANGUAGE` and returns to the agent's default language.",
)

RICH_CONTENT = Key(
    "RICH_CONTENT",
    V.BLOCK,
    "Channel-specific renderings of the reply (Markdown, cards, carousels, tables, feedback "
    "widgets...). Channels without a matching format fall back to plain text.",
    aliases=("FORMATS",),
    open=True,
    children=(
        Key("MARKDOWN", V.TEMPLATE, "Markdown rendering for web chat."),
        Key("HTML", V.TEMPLATE, "HTML rendering for web chat."),
        Key("ADAPTIVE_CARD", V.ANY, "An Adaptive Card payload, used by mobile and Teams clients."),
        Key("SLACK", V.ANY, "A Slack message payload."),
        Key("WHATSAPP", V.ANY, "A WhatsApp message payload."),
        Key("AG_UI", V.ANY, "An AG-UI payload for web clients that render it."),
        Key("CAROUSEL", V.ANY, "A row of cards; bind it to a list with `{from, template}`."),
        Key("QUICK_REPLIES", V.ANY, "Short tappable replies shown under the message."),
        Key("LIST", V.ANY, "A vertical list of items, optionally bound to a collection."),
        Key("IMAGE", V.ANY, "An image with its URL and alternative text."),
        Key("VIDEO", V.ANY, "A video attachment."),
        Key("AUDIO", V.ANY, "An audio attachment."),
        Key("FILE", V.ANY, "A downloadable file."),
        Key("KPI", V.ANY, "A headline number with a label."),
        Key("TABLE", V.ANY, "A table of rows, optionally bound to a collection."),
        Key("CHART", V.ANY, "A chart of a data series."),
        Key("FORM", V.ANY, "A form the customer fills in."),
        Key("PROGRESS", V.ANY, "A progress indicator."),
        Key(
            "FEEDBACK",
            V.BLOCK,
            "Asks the customer to rate the answer. Prefer naming a survey with "
            "`FEEDBACK_TEMPLATE`; the inline form is deprecated.",
            open=True,
            children=(
                Key("FEEDBACK_TEMPLATE", V.NAME, "Name of a survey defined in the project."),
                Key("prompt", V.TEMPLATE, "Question shown with the rating control."),
                Key("type", V.ENUM, "Rating control.", values=("thumbs", "star", "scale")),
                Key("max", V.INT, "Highest rating for `star` and `scale`."),
                Key(
                    "expires_after",
                    V.INT,
                    "Seconds the widget stays answerable (30-86400).",
                    default="300",
                    min_value=30,
                    max_value=86400,
                ),
            ),
        ),
    ),
    example='RICH_CONTENT:\n  MARKDOWN: "**Order {{order_id}}** shipped"',
)

VOICE = Key(
    "VOICE",
    V.BLOCK,
    "How the reply is spoken on voice channels: voice, speed, SSML or spoken instructions. "
    "The narrowest scope that sets a value wins.",
    open=True,
    children=(
        Key("provider", V.STRING, "Text-to-speech provider."),
        Key("voice_id", V.STRING, "Voice to speak with, as named by the provider."),
        Key("speed", V.NUMBER, "Speaking rate; 1.0 is normal.", default="1.0"),
        Key("ssml", V.TEXT, "SSML markup to speak instead of the text reply."),
        Key("instructions", V.TEXT, "Spoken-style guidance for speech models."),
        Key("plain_text", V.TEXT, "A plain text variant to speak instead of the reply."),
        Key("pace", V.STRING, "Speaking pace hint."),
        Key("temperature", V.NUMBER, "Sampling temperature for generative voices."),
        Key("auto_tts_language_switch", V.BOOL, "Switch the voice when the language changes."),
        Key(
            "BARGE_IN",
            V.ENUM,
            "Whether the caller may interrupt while this is spoken. Only valid on flow steps.",
            values=("allow", "disallow"),
        ),
        Key("STREAMING", V.BOOL, "Stream speech while the reply is still being produced."),
        Key(
            "END_OF_SPEECH_TURN_TYPE",
            V.ENUM,
            "What kind of answer is expected, which tunes end-of-speech detection.",
            values=(
                "simple_confirmation",
                "structured_value",
                "open_ended_question",
                "complex_explanation",
                "anything_else",
            ),
        ),
        Key(
            "END_OF_SPEECH_TIMEOUT_MS",
            V.INT,
            "Silence in milliseconds that ends the caller's turn.",
        ),
    ),
    example='VOICE:\n  instructions: "Speak slowly and clearly."',
)

ACTIONS = Key(
    "ACTIONS",
    V.LIST_OF_BLOCKS,
    "Buttons, selects and inputs shown with the reply. A choice arrives as an action id "
    "handled by `ON_ACTION` or `ACTION_HANDLERS`.",
    open=True,
    children=(
        Key(
            "id",
            V.STRING,
            "Action id delivered when the customer picks this element.",
            required=True,
        ),
        Key("type", V.ENUM, "Kind of control.", values=("button", "select", "input")),
        Key("label", V.STRING, "Text shown on the control."),
        Key("value", V.STRING, "Value sent with the action."),
        Key("url", V.STRING, "Link opened by a button.", aliases=("link", "web_url")),
        Key("description", V.STRING, "Secondary text under the label."),
        Key(
            "options",
            V.LIST_OF_BLOCKS,
            "Choices of a select: `{id, label, description}`.",
            open=True,
        ),
        Key(
            "inputType",
            V.ENUM,
            "Input control type.",
            values=("text", "number", "date", "time", "email"),
        ),
        Key("placeholder", V.STRING, "Hint text inside an empty input."),
        Key("required", V.BOOL, "The input must be filled before submitting."),
        Key(
            "SUBMIT_LABEL",
            V.STRING,
            "Label of the submit button for inputs.",
            aliases=("submitLabel",),
        ),
        Key("SUBMIT_ID", V.STRING, "Action id sent by the submit button.", aliases=("submitId",)),
        Key("RENDER_ID", V.STRING, "Id of the rendered action group."),
    ),
    example='ACTIONS:\n  - id: "yes"\n    type: button\n    label: "Confirm"',
)


_HISTORY_BLOCK_NOTE = "The block form takes `mode` and `count`."
_CONTEXT_HISTORY_BLOCK_NOTE = (
    "Write `last_n` as an indented block with `mode` and `count`; a one-line "
    "`{ mode: last_n }` is ignored and falls back to `full`."
)


def history_key(name: str) -> Key:
    """The `HISTORY` key; inside `CONTEXT` it is spelled `history` and only the indented block
    form is read (seed 000, seed 004)."""
    in_context = name == "history"
    return Key(
        name,
        V.HISTORY,
        "How many earlier messages the target agent receives when its thread is created. "
        "One line takes `full`, `none`, `summary_only`, `auto` or `last_<n>` (case and quotes "
        "ignored); an unrecognised one-line word silently becomes `full`. "
        + (_CONTEXT_HISTORY_BLOCK_NOTE if in_context else _HISTORY_BLOCK_NOTE),
        also=(V.BLOCK,),
        values=HISTORY_ONE_LINE_MODES,
        value_pattern=r"last_\d+",
        value_hint="last_<n>",
        value_examples=("last_5",),
        fallback="full",
        default="full",
        value_docs=HISTORY_VALUE_DOCS,
        children=(
            Key(
                "mode",
                V.ENUM,
                "History strategy. A mode outside this list is compile error `E330`.",
                values=HISTORY_BLOCK_MODES,
                value_docs=HISTORY_VALUE_DOCS,
                required=True,
                source="seed 000",
            ),
            Key(
                "count",
                V.INT,
                "How many of the most recent messages to copy with `mode: last_n` (messages, "
                "not turns). Required for `last_n` (`E331`); `0` silently becomes `full`.",
                min_value=1,
                fallback="full",
                source="seed 000",
            ),
        ),
        example=f"{name}:\n  mode: last_n\n  count: 6",
        source="seed 000",
    )


def timeout_key(name: str, doc: str) -> Key:
    return Key(
        name,
        V.DURATION,
        doc + " Write bare milliseconds or a number ending in `ms`, `s` or `m`.",
        value_pattern=r"\d+(ms|s|m)?",
        value_hint="<n>ms | <n>s | <n>m",
        example=f'{name}: "15s"',
    )


def experience_mode_key(default: str) -> Key:
    return Key(
        "EXPERIENCE_MODE",
        V.ENUM,
        "What the customer experiences during the transfer: one shared voice, a visible "
        "hand-over line, a silent internal call, or a hand-over to a human.",
        values=EXPERIENCE_MODES,
        default=default,
    )


REMOTE = Key(
    "REMOTE",
    V.BLOCK,
    "Runs the target on another service. Existence checks are skipped for remote targets.",
    children=(
        Key(
            "location",
            V.ENUM,
            "Where the target runs.",
            values=("local", "remote"),
            default="local",
        ),
        Key("endpoint", V.STRING, "URL of the remote agent service."),
        Key("protocol", V.ENUM, "Wire protocol of the remote agent.", values=("a2a", "rest")),
        Key("auth", V.ANY, "Credentials or auth profile for the remote call."),
        timeout_key("timeout", "How long to wait for the remote agent."),
        Key("service_url", V.STRING, "Older spelling of `endpoint`.", deprecated="use `endpoint`"),
        Key("auth_header", V.STRING, "Older way to pass credentials.", deprecated="use `auth`"),
    ),
    example=('REMOTE:\n  location: remote\n  endpoint: "https://agents.example.com/a2a"\n  protocol: a2a'),
)

MEMORY_GRANT_ITEM = (
    Key("path", V.STRING, "Persistent or execution-tree memory path to share.", required=True),
    Key(
        "access",
        V.ENUM,
        "Read only, or read and write (`readwrite` only for execution-tree paths).",
        values=("read", "readwrite"),
        default="read",
    ),
)

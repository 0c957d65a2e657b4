"""TOOLS: tool signatures and their binding properties, in agents and in `.tools.abl` libraries.

Source: ABL-REFERENCE §3.4. Tool properties are many and binding-specific, so the property
block is open: the documented keys get hover and completion, others are not reported.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

TOOL_BINDINGS = (
    "http",
    "mcp",
    "sandbox",
    "lambda",
    "async_webhook",
    "workflow",
    "searchai",
    "table",
)


_HINTS = Key(
    "hints",
    V.BLOCK,
    "Execution hints for the runtime.",
    children=(
        Key("cacheable", V.BOOL, "Results may be cached."),
        Key("latency", V.ENUM, "Expected speed.", values=("fast", "medium", "slow")),
        Key("side_effects", V.BOOL, "The call changes something outside the conversation."),
        Key("requires_auth", V.BOOL, "The call needs the customer to be authenticated."),
        Key("timeout", V.INT, "Timeout in milliseconds; overrides `EXECUTION.tool_timeout`."),
    ),
)

_PARAMETERS = Key(
    "parameters",
    V.MAP,
    "Extra detail per parameter: description, where the value comes from (`source`), a "
    "default, and whether the model may see it.",
    aliases=("params",),
    free_keys=True,
    entry=Key(
        "<parameter>",
        V.BLOCK,
        "Enrichment of one parameter.",
        open=True,
        children=(
            Key("description", V.STRING, "What the parameter means, for the model."),
            Key("required", V.BOOL, "The parameter must be supplied."),
            Key("default", V.ANY, "Value used when none is supplied."),
            Key(
                "source",
                V.ENUM,
                "Who supplies the value.",
                aliases=("default_source",),
                values=("model", "system", "runtime", "config", "auth", "expr", "lookup"),
            ),
            Key("value", V.ANY, "Fixed value or expression for non-model sources."),
            Key("key", V.STRING, "Key to read for `config`, `auth` or `lookup` sources."),
            Key("table", V.NAME, "Lookup table for the `lookup` source."),
            Key("hidden", V.BOOL, "Hide the parameter from the model."),
            Key("visibility", V.BLOCK, "Per-audience visibility (`model`, `trace`).", open=True),
            Key("properties", V.MAP, "Fields of an object parameter."),
            Key("items", V.ANY, "Item type of an array parameter."),
        ),
    ),
)

_RESULT_HANDLER_DOC = (
    "Runs after the call: a `set:` map, or an ordered `do:` list of actions (SET, CLEAR, LOG, "
    "RESPOND, CALL, GOTO, HANDOFF, DELEGATE, RETURN, COMPLETE, IF/ELSE)."
)

TOOL_PROPERTIES = Key(
    "<tool>",
    V.BLOCK,
    "Properties of one tool, indented under its signature `name(params) -> ReturnType`.",
    open=True,
    report_near_misses=True,
    children=(
        Key("description", V.TEXT, "What the tool does; the model reads it to choose tools."),
        Key("type", V.ENUM, "How the tool is executed.", values=TOOL_BINDINGS),
        _HINTS,
        _PARAMETERS,
        Key("on_result", V.BLOCK, _RESULT_HANDLER_DOC, open=True),
        Key(
            "on_error",
            V.BLOCK,
            _RESULT_HANDLER_DOC.replace("after the call", "when the call fails"),
            open=True,
        ),
        Key(
            "confirmation",
            V.BLOCK,
            "When the customer must confirm the call (`require: "
            "always|never|when_side_effects`) and how consent is obtained.",
            open=True,
        ),
        Key(
            "effect",
            V.ENUM,
            "What the call does to the world.",
            values=("read_only", "state_write", "side_effect"),
        ),
        Key("provides", V.LIST, "Fields this tool produces.", item_kind=V.NAME),
        Key("compaction", V.BLOCK, "How the result is shortened in context.", open=True),
        Key("process", V.BLOCK, "Checks and rewrites before and after the call.", open=True),
        Key(
            "pii_access",
            V.ENUM,
            "Who may see personal data in the result.",
            values=("original", "tools", "user", "logs", "llm"),
        ),
        Key("scrub_secrets", V.BOOL, "Remove secrets from the output.", default="true"),
        Key(
            "context_access",
            V.BLOCK,
            "Memory paths the tool reads and writes (`read`, `write`); must match the MEMORY access modes.",
            open=True,
        ),
        Key("store_result", V.BOOL, "Keep the result in the session.", default="true"),
        Key("RESULT_SECRETS", V.ANY, "Result paths stored as secrets: `path -> key (...)`."),
        Key(
            "SECRET_ACCESS",
            V.BLOCK,
            "Secret keys this tool may read (`READ: [keys]`); HTTP tools only.",
            open=True,
        ),
        # http
        Key("endpoint", V.STRING, "URL or path; `{param}` inserts a parameter."),
        Key("method", V.ENUM, "HTTP method.", values=("GET", "POST", "PUT", "PATCH", "DELETE")),
        Key(
            "auth",
            V.ENUM,
            "Authentication scheme.",
            values=("none", "bearer", "api_key", "oauth2_client", "oauth2_user", "saml", "custom"),
        ),
        Key("auth_config", V.BLOCK, "Token URL, client credentials, scopes, header name.", open=True),
        Key("auth_profile", V.NAME, "Project auth profile to use."),
        Key("tls_profile", V.NAME, "Project TLS profile to use."),
        Key("auth_jit", V.BOOL, "Ask for authorisation just in time."),
        Key("consent", V.ENUM, "When consent is asked.", values=("preflight", "inline")),
        Key("connection", V.ENUM, "Credential sharing.", values=("per_user", "shared")),
        Key("timeout", V.INT, "Timeout of the call."),
        Key("retry", V.INT, "How many times to retry."),
        Key("retry_delay", V.INT, "Delay between retries in milliseconds."),
        Key("retry_policy", V.BLOCK, "Backoff strategy, delays, jitter.", open=True),
        Key("headers", V.MAP, "Request headers; templates allowed."),
        Key("query_params", V.MAP, "Query parameters.", also=(V.LIST_OF_BLOCKS,)),
        Key("body_type", V.ENUM, "Body encoding.", values=("json", "form", "xml", "text")),
        Key("body_mode", V.ENUM, "Whether a body is sent.", values=("auto", "none")),
        Key("body_template", V.TEXT, "Request body template.", aliases=("body",)),
        Key("body_schema", V.ANY, "Schema of the request body."),
        Key("use_body_schema", V.BOOL, "Build the body from `body_schema`."),
        Key(
            "request_variants",
            V.LIST_OF_BLOCKS,
            "Alternative requests chosen by `when`.",
            open=True,
        ),
        Key("rate_limit", V.ANY, "Call rate limit."),
        Key("circuit_breaker", V.BLOCK, "`threshold`, `resetMs`.", open=True),
        Key("protocol", V.ENUM, "HTTP flavour.", values=("rest", "soap")),
        Key("soap_version", V.ENUM, "SOAP version.", values=("1.1", "1.2")),
        Key("soap_action", V.STRING, "SOAPAction header."),
        Key(
            "on_soap_fault",
            V.ENUM,
            "Treat a SOAP fault as an error or as data.",
            values=("error", "data"),
        ),
        *(
            Key(name, V.STRING, f"SOAP service description: {what}.")
            for name, what in (
                ("wsdl_asset", "the uploaded WSDL asset"),
                ("wsdl_version", "the WSDL version"),
                ("wsdl_operation", "the operation to call"),
                ("wsdl_asset_id", "the id of the WSDL asset"),
                ("wsdl_version_id", "the id of the WSDL version"),
                ("wsdl_service", "the service"),
                ("wsdl_port", "the port"),
                ("wsdl_binding", "the binding"),
                ("wsdl_target_namespace", "the target namespace"),
                ("wsdl_element", "the request element"),
            )
        ),
        # mcp
        Key("server", V.NAME, "Logical MCP server name."),
        Key("server_tool", V.NAME, "Tool name on the MCP server."),
        # sandbox and lambda
        Key("runtime", V.STRING, "Code runtime (`javascript`, `python`)."),
        Key("code", V.TEXT, "Sandbox source code."),
        Key("memory_mb", V.INT, "Sandbox memory limit."),
        Key("function", V.STRING, "Lambda function name."),
        # async_webhook
        Key(
            "callback_url_field",
            V.STRING,
            "Request field carrying the callback URL.",
            default="callbackUrl",
        ),
        Key("timeout_seconds", V.INT, "How long to wait for the callback.", default="3600"),
        # workflow
        Key("workflow_id", V.STRING, "Workflow to run."),
        Key("workflow_version", V.ANY, "Older workflow pin.", ignored="silently ignored; use `workflow_id`"),
        Key("trigger_id", V.ANY, "Older workflow trigger.", ignored="silently ignored; use `workflow_id`"),
        Key(
            "mode",
            V.ENUM,
            "Wait for the workflow or not.",
            values=("sync", "async"),
            default="sync",
        ),
        Key("timeout_ms", V.INT, "Workflow timeout in milliseconds."),
        Key("param_mapping", V.MAP, "Tool parameters to workflow inputs."),
        # searchai
        Key("index_id", V.STRING, "Search index."),
        Key("kb_name", V.STRING, "Knowledge base name."),
        Key("search_instructions", V.TEXT, "Guidance for the search."),
        Key("retrieval_profile", V.STRING, "Retrieval profile (`object-aware`)."),
        # table
        Key("table", V.NAME, "Data table to use.", aliases=("table_name",)),
        Key("scope", V.ENUM, "Whose rows are visible.", values=("project", "end_user", "session")),
        Key(
            "operations",
            V.LIST,
            "Allowed table operations (read-only by default).",
            item_kind=V.STRING,
        ),
        Key("tables", V.LIST, "Joined tables (at most 8).", item_kind=V.NAME),
        Key("query_template", V.ANY, "Query template."),
        # voice transfer
        Key("template", V.STRING, "Dynamic SIP destination template."),
        Key("approved_authorities", V.LIST, "SIP authorities a dynamic destination may use."),
        Key("returns", V.ANY, "Older block-style declaration of the return type."),
    ),
)

_IMPORT = Key(
    "file",
    V.STRING,
    "Imports tools from a `.tools.abl` file, relative to this file; `[a, b]` after the path "
    "picks tools, otherwise all are imported.",
    example='file: "./tools/hotels-api.tools.abl" [search_hotels, get_hotel]',
)

_TOOLS_DOC = (
    "Tools the agent may call, one signature per entry: `name(param: type, opt?: type = "
    "default) -> ReturnType`, followed by indented properties (`description`, `type`, "
    "binding settings)."
)
_TOOLS_EXAMPLE = (
    "TOOLS:\n"
    "  track(code: string) -> {status: string, eta?: date}\n"
    '    description: "Look up a parcel"\n'
    "    type: http\n"
    '    endpoint: "/parcels/{code}"\n'
    "    method: GET"
)

TOOLS = Key(
    "TOOLS",
    V.SIGNATURES,
    _TOOLS_DOC,
    children=(_IMPORT,),
    entry=TOOL_PROPERTIES,
    example=_TOOLS_EXAMPLE,
    source="§3.4",
)

TOOLS_LIBRARY = Key(
    "TOOLS",
    V.SIGNATURES,
    "A reusable tool library: shared defaults (`base_url`, `auth`, `timeout`, ...) followed "
    "by tool signatures that agents import with `file:`.",
    children=(
        _IMPORT,
        Key("base_url", V.STRING, "Prefix for every relative `endpoint`."),
        Key(
            "auth",
            V.ENUM,
            "Default authentication scheme.",
            values=("none", "bearer", "api_key", "oauth2_client", "oauth2_user", "saml", "custom"),
        ),
        Key("timeout", V.INT, "Default timeout."),
        Key("retry", V.INT, "Default retry count."),
        Key("retry_delay", V.INT, "Default delay between retries."),
        Key("rate_limit", V.ANY, "Default rate limit."),
        Key("headers", V.MAP, "Headers sent with every call."),
    ),
    entry=TOOL_PROPERTIES,
    example='TOOLS:\n  base_url: "https://api.example.com/v1"\n  auth: bearer',
    source="§3.4",
)

TOOLS_PROFILE = Key(
    "TOOLS",
    V.BLOCK,
    "Changes the tools of agents using this profile: hide some, add others.",
    children=(
        Key(
            "HIDE",
            V.LIST,
            "Tools the model may not use under this profile.",
            item_kind=V.NAME,
            refers_to="tool",
        ),
        Key("ADD", V.SIGNATURES, "Tools added under this profile.", entry=TOOL_PROPERTIES),
    ),
    example="TOOLS:\n  HIDE: [internal_debug_tool]",
    source="§3.22",
)

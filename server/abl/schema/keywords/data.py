"""Reference data: LOOKUP_TABLES, ATTACHMENTS, DESTINATIONS.

Source: ABL-REFERENCE §3.21.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

LOOKUP_TABLES = Key(
    "LOOKUP_TABLES",
    V.MAP,
    "Named value lists used to validate and normalise gathered values (inline, from a "
    "collection, or from an API). If the API fails, input is accepted unvalidated.",
    free_keys=True,
    entry=Key(
        "<table>",
        V.BLOCK,
        "One lookup table. A map of the author's own keys (one-line `{key: value}` or the same "
        "pairs indented) is a shorthand inline table.",
        also=(V.MAP,),
        children=(
            Key(
                "source",
                V.ENUM,
                "Where the values come from (`mongodb` and `http` are older names of `collection` and `api`).",
                values=("inline", "collection", "api", "mongodb", "http"),
                default="inline",
            ),
            Key(
                "values",
                V.LIST,
                "Inline values, or a map of value to normalised value.",
                also=(V.MAP,),
                item_kind=V.STRING,
            ),
            Key(
                "map",
                V.MAP,
                "Inline table as pairs of accepted value and normalised value "
                '(`nyc: "New York"`), instead of a `values` list.',
            ),
            Key("table_name", V.STRING, "Collection to read.", aliases=("collection",)),
            Key("endpoint", V.STRING, "API to call."),
            Key("field", V.STRING, "Field holding the value."),
            Key("headers", V.MAP, "Headers for the API call."),
            Key("timeout_ms", V.INT, "API timeout.", default="5000"),
            Key("case_sensitive", V.BOOL, "Match case exactly.", default="false"),
            Key("fuzzy_match", V.BOOL, "Accept near matches.", default="false"),
            Key(
                "fuzzy_threshold",
                V.NUMBER,
                "How near a fuzzy match must be.",
                default="0.85",
                min_value=0,
                max_value=1,
            ),
        ),
    ),
    example="LOOKUP_TABLES:\n  carriers:\n    source: inline\n    values: [royal_mail, dpd, evri]",
    source="§3.21",
)

ATTACHMENTS = Key(
    "ATTACHMENTS",
    V.MAP,
    "Files the agent asks the customer to upload, with size and type limits and optional "
    "OCR, transcription or key-frame extraction (`x.extracted_text`, `x.transcript`).",
    free_keys=True,
    entry=Key(
        "<attachment>",
        V.BLOCK,
        "One expected upload.",
        children=(
            Key("prompt", V.TEMPLATE, "Asks for the file."),
            Key(
                "category",
                V.ENUM,
                "Kind of file.",
                values=("document", "image", "audio", "video"),
                default="document",
            ),
            Key("required", V.BOOL, "The upload is required.", default="true"),
            Key("max_file_size_mb", V.NUMBER, "Largest accepted file.", aliases=("max_size_mb",)),
            Key("allowed_types", V.LIST, "Accepted file types.", item_kind=V.STRING),
            Key(
                "allowed_mime_types",
                V.LIST,
                "Older spelling of `allowed_types`.",
                ignored="not recognised by the `.agent.abl` parser; use `allowed_types`",
            ),
            Key("ocr_enabled", V.BOOL, "Extract text from documents and images."),
            Key(
                "transcription_enabled",
                V.BOOL,
                "Transcribe audio and video.",
                aliases=("transcription",),
            ),
            Key("key_frame_extraction", V.BOOL, "Extract key frames from video."),
        ),
    ),
    example=('ATTACHMENTS:\n  damage_photo:\n    prompt: "Please upload a photo."\n    category: image'),
    source="§3.21",
)

DESTINATIONS = Key(
    "DESTINATIONS",
    V.MAP,
    "Named outbound endpoints. URLs are checked against private and internal addresses when compiling.",
    free_keys=True,
    entry=Key(
        "<destination>",
        V.BLOCK,
        "One endpoint.",
        children=(
            Key("url", V.STRING, "Address to call.", required=True),
            Key("method", V.STRING, "HTTP method (upper-cased)."),
            Key("auth", V.ANY, "Credentials."),
            Key("headers", V.MAP, "Headers sent with each call."),
        ),
    ),
    example='DESTINATIONS:\n  crm:\n    url: "https://crm.example.com/hook"\n    method: post',
    source="§3.21",
)

"""The language server over raw stdio, sent what no well-behaved client sends: broken frames and
bodies, wrong types, unknown methods, requests about closed files, negative and far-away
positions, storms of requests and cancellations, a burst of small edits, a file over the size
limit. Each answer is a result or a JSON-RPC error, the server stays up, and its memory stays
bounded. (tests/lsp covers the well-formed protocol and the first cases of these.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.hardening.lspwire import WireServer, frame

from abl.syntax.limits import MAX_FILE_BYTES

TEXT = 'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Helper\n    WHEN: intent.category == "help"\n'
HELPER = 'AGENT: Helper\nGOAL: "Help"\n'
# Small edits sent back to back (tests/lsp/test_process.py sends 10,000 whole-text ones).
EDITS = 2_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("ws")
    (root / "helper.agent.abl").write_text(HELPER, encoding="utf-8")
    running = WireServer(root)
    running.root = root  # type: ignore[attr-defined]
    yield running
    assert running.shutdown() == 0, running.stderr()


def _open(server: WireServer, name: str, text: str, version: int = 1) -> str:
    uri = (server.root / name).as_uri()  # type: ignore[attr-defined]
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "abl", "version": version, "text": text}}
    )
    return uri


def _still_answers(server: WireServer, uri: str) -> None:
    reply = server.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 10}}
    )
    assert "error" not in reply and reply["result"] is not None, reply


def _answered(reply: dict) -> None:
    """A result, or an error object with an integer code and a message: never nothing."""
    if "error" in reply:
        assert isinstance(reply["error"]["code"], int) and reply["error"]["message"], reply
    else:
        assert "result" in reply, reply


BROKEN_FRAMES = [
    b"Content-Length: 12\r\n\r\n{not json!!}",
    frame(b"[]"),
    frame(b"[1, 2, 3]"),
    frame(b"42"),
    frame(b'"just a string"'),
    frame(b"null"),
    frame(b'{"jsonrpc": "2.0"}'),
    frame(b'{"id": 5}'),
    frame(b'{"jsonrpc": "2.0", "id": 6, "method": 17}'),
    frame(b'{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": "not an object"}'),
    frame(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 3}}'),
    frame(b'{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {"position": {"line": "x"}}}'),
    frame(b'{"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover", "params": null}'),
    frame(
        b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///\xff\xfe.abl", "text": "\xed\xa0\x80"}}}'
    ),
    b"Content-Type: application/json\r\n\r\n",
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: abc\r\n\r\n",
    b"\r\n\r\n",
]


def test_broken_frames_and_bodies_leave_the_server_up(server: WireServer) -> None:
    uri = _open(server, "frames.agent.abl", TEXT)
    for garbage in BROKEN_FRAMES:
        server.send_raw(garbage)
    for request_id in (6, 7, 8):
        _answered(server.reply(request_id, timeout=60))
    assert server.alive()
    _still_answers(server, uri)


def test_unknown_methods_get_method_not_found(server: WireServer) -> None:
    for method in ("abl/noSuchThing", "textDocument/notAFeature", "workspace/whatever"):
        reply = server.request(method, {"x": 1})
        assert reply["error"]["code"] == -32601, reply
    server.notify("$/noSuchNotification", {})
    server.notify("abl/unknownNotification", None)
    assert server.alive()


def _position_requests(uri: str, line: int, character: int) -> list[tuple[str, dict]]:
    doc = {"uri": uri}
    pos = {"line": line, "character": character}
    rng = {"start": pos, "end": {"line": line - 3, "character": character - 3}}  # also reversed
    return [
        ("textDocument/hover", {"textDocument": doc, "position": pos}),
        ("textDocument/completion", {"textDocument": doc, "position": pos}),
        ("textDocument/definition", {"textDocument": doc, "position": pos}),
        ("textDocument/references", {"textDocument": doc, "position": pos, "context": {"includeDeclaration": True}}),
        ("textDocument/documentHighlight", {"textDocument": doc, "position": pos}),
        ("textDocument/prepareRename", {"textDocument": doc, "position": pos}),
        ("textDocument/rename", {"textDocument": doc, "position": pos, "newName": "Renamed"}),
        ("textDocument/selectionRange", {"textDocument": doc, "positions": [pos]}),
        ("textDocument/prepareCallHierarchy", {"textDocument": doc, "position": pos}),
        ("textDocument/codeAction", {"textDocument": doc, "range": rng, "context": {"diagnostics": []}}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": rng}),
        ("textDocument/semanticTokens/range", {"textDocument": doc, "range": rng}),
        (
            "textDocument/rangeFormatting",
            {"textDocument": doc, "range": rng, "options": {"tabSize": 2, "insertSpaces": True}},
        ),
    ]


@pytest.mark.parametrize(
    "line,character",
    [(-1, 0), (0, -1), (-5, -5), (3, 10_000), (10_000, 3), (2**31 - 1, 2**31 - 1)],
)
def test_negative_and_out_of_range_positions(server: WireServer, line: int, character: int) -> None:
    uri = _open(server, "positions.agent.abl", TEXT)
    ids = [server.send_request(method, params) for method, params in _position_requests(uri, line, character)]
    for request_id in ids:
        _answered(server.reply(request_id))
    _still_answers(server, uri)


def test_requests_about_a_closed_file_that_is_not_on_disk(server: WireServer) -> None:
    uri = _open(server, "closed.agent.abl", TEXT)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    requests = [
        *_position_requests(uri, 3, 10),
        ("textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
        ("textDocument/foldingRange", {"textDocument": {"uri": uri}}),
        ("textDocument/semanticTokens/full", {"textDocument": {"uri": uri}}),
        ("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}),
        ("textDocument/codeLens", {"textDocument": {"uri": uri}}),
        ("textDocument/documentLink", {"textDocument": {"uri": uri}}),
    ]
    for method, params in requests:
        reply = server.request(method, params)
        _answered(reply)
        assert "error" not in reply, (method, reply)
    # A change to a closed file and a second close are ignored.
    server.notify(
        "textDocument/didChange", {"textDocument": {"uri": uri, "version": 9}, "contentChanges": [{"text": "x"}]}
    )
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert server.alive()


def test_a_storm_of_requests_and_cancellations(server: WireServer) -> None:
    uri = _open(server, "storm.agent.abl", TEXT)
    ids = []
    for i in range(400):
        request_id = server.send_request(
            "textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": i % 5, "character": i % 9}}
        )
        ids.append(request_id)
        server.notify("$/cancelRequest", {"id": request_id if i % 3 else request_id + 10_000})  # some unknown ids
    for request_id in ids:
        reply = server.reply(request_id)
        _answered(reply)
        if "error" in reply:
            assert reply["error"]["code"] == -32800, reply  # RequestCancelled, and nothing else
    _still_answers(server, uri)


def test_a_burst_of_small_edits_keeps_memory_bounded(server: WireServer) -> None:
    uri = _open(server, "burst.agent.abl", TEXT)
    _still_answers(server, uri)
    before = server.memory_mb()
    burst = b"".join(
        frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [
                        {
                            "range": {"start": {"line": 1, "character": 7}, "end": {"line": 1, "character": 7}},
                            "text": "x",
                        }
                    ],
                },
            }
        )
        for version in range(2, EDITS + 2)
    )
    server.send_raw(burst)
    reply = server.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 2}}
    )
    _answered(reply)
    symbols = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert "error" not in symbols
    # Each edit makes a new version: what stays is one document, not the history.
    assert server.memory_mb() - before < 150, f"{before:.0f} MB before, {server.memory_mb():.0f} MB after"


def test_a_file_over_the_size_limit_is_refused_with_a_diagnostic(server: WireServer) -> None:
    huge = "#" * (MAX_FILE_BYTES + 1)
    uri = _open(server, "huge.agent.abl", huge)
    published = server.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri, timeout=120
    )
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["LIMIT_EXCEEDED"]
    reply = server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert "error" not in reply
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    _still_answers(server, _open(server, "after-huge.agent.abl", TEXT))


def test_the_server_exits_cleanly_after_all_that(tmp_path: Path) -> None:
    running = WireServer(tmp_path)
    running.send_raw(b"".join(BROKEN_FRAMES))
    assert running.shutdown() == 0, running.stderr()

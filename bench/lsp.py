"""Benchmark: the `abl lsp` server over stdio, against yaml-language-server, in one run.

    .venv/bin/python bench/lsp.py [--quick] [--only ours] [--json FILE]
    .venv/bin/python bench/lsp.py --profile {5k,workspace,20k,scale-200,scale-2000} [--quick]
    .venv/bin/python bench/lsp.py --profile {5k,20k} --over-lsp [--keep-profile FILE] [--quick]

Both servers are real processes driven as an editor drives them, by the raw JSON-RPC client in
`lspclient.py` (Content-Length framing; a reader thread stamps each message with
`time.perf_counter()` as soon as its body is read; `workspace/configuration` is answered with
each server's settings, `client/registerCapability` and `window/workDoneProgress/create` with
null). Our client does not advertise `textDocument.diagnostic`, so both servers push.

Content. `generate.py` renders the same agents as ABL and as YAML. yaml-language-server gets a
draft-07 JSON schema for the YAML (enums, patterns, `additionalProperties: false`, a
description on every property), so its validation, completion and hover do real work. It is
installed by this script into `bench/.cache/` with npm and run as shipped (its validation has a
fixed 200 ms debounce). It has no workspace index, so it only takes part in single-file rows.

Scenarios (every latency runs from the moment the client wrote its message to the moment the
answer's body was read):

1. Edit → diagnostics. Single-character edits spread over the file (agent k = (i//2)·37 mod n),
   alternately inserting and deleting `x` inside a quoted GOAL string, each waiting for its
   diagnostics before the next. Edits that change the diagnostics: a route's `HISTORY: none`
   toggled to `recent` and back (an extra warning for us, a schema error for the peer; the
   count is verified), and a returnable route's `RETURN: true` toggled to `True` and back, one
   character each (ours: one RETURN_NOT_LOWERCASE_TRUE more, then one fewer, verified, besides
   the findings of a route that no longer returns; the peer: no change, verified, as `True` is a
   YAML 1.2 boolean, so the edit is timed to its next publish as a GOAL edit is). Enter pressed
   at the end of a GOAL line, then the new line taken away again (every line below moves, and
   the diagnostics on them). Our server sends `version` with its diagnostics, so an edit is
   matched on it; the peer sends none, so the next publish for the file is the edit's. A
   first unmeasured edit checks that the server publishes even when an edit leaves the
   diagnostics unchanged; if it does not, string edits are timed to the answer of a
   `textDocument/hover` on a blank line sent right after the `didChange` instead (our server
   finishes the edit's analysis before answering any request), and the report says so. Two
   unmeasured warm-up edits come first.
   Sizes: a 5,000-line file, a 200-file workspace of 20,000 lines (edits in 20 open files, all
   files indexed), a 20,000-line file.
2. Completion and hover at 5,000 lines: at rest (values after `HISTORY:` and `TO:`, and keys in
   a route; hover on keys and on agent names), and sent right after a GOAL-string `didChange`.
   The edit's own diagnostics are awaited before the next sample, so samples do not overlap
   (a publish that never comes is reported). Also checked once: an edit that changes the
   diagnostics, followed at once by a completion request, still has them published.
3. Workspace index: a fresh server per run, from `initialized` to the last of the first
   publishDiagnostics of every file; files published and files with diagnostics are checked
   against `abl check`'s own count, computed in this process.
4. Memory: VmRSS and VmHWM from /proc/<pid>/status, after the server has seen 1,000 edits (the
   scenario-1 edits, then bursts of ten edits each followed by its diagnostics).
5. Scale, ours only: does an edit cost more in a bigger project? The same generated agents,
   ten to a file (each linked to the next, returnable, and to the seventh after it, permanent),
   as 200 agents over 20 files (`scale-200`, 8,200 lines) and as 2,000 agents over 200 files
   (`scale-2000`, 82,000 lines); a fresh server indexes each (the files' first publishes are
   checked against `abl check`'s count), then 20 open files take the GOAL-string, HISTORY and
   RETURN edits of scenario 1 (not Enter, whose cost is the file's, not the project's). Each
   is reported like the 200-file workspace, and the 2,000-agent p50 over the 200-agent p50
   is the growth of an edit's cost, the goal being at most 1.5×.

Statistics: p50 is the median; p95 is nearest-rank (the ⌈0.95·n⌉-th smallest sample); a
ratio is of two figures of the same statistic measured in the same run.

`--profile` runs the edits of one scenario (for `scale-200` and `scale-2000`, those of scenario
5) in this process on `abl.ide.host.AnalysisHost` (`open`, `set_text`, `analyse`) under
cProfile, and prints the top functions by cumulative time; with `--over-lsp` (single-file
scenarios), the same edits go over stdio to our server running under cProfile, which shows the
protocol side (conversion, publishing) too.

Every server runs in a process group of its own and is ended on exit, error or Ctrl-C; every
wait is bounded and says what it waited for when it runs out.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import math
import os
import platform
import pstats
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(HERE))

from generate import agent_text, agents_for_lines, project, project_yaml, write_project  # noqa: E402
from lspclient import LspClient, LspTimeout, Published, ServerGone, close_all, file_uri  # noqa: E402

PEER_PACKAGE = "yaml-language-server"
PEER_VERSION = "1.25.0"
CACHE = HERE / ".cache"

# Bounded waits, in seconds: generous against a slow machine, short enough never to look hung.
DIAGNOSTICS_TIMEOUT = 60.0
REQUEST_TIMEOUT = 60.0
INDEX_TIMEOUT = 180.0
PROBE_TIMEOUT = 5.0  # does an edit that leaves the diagnostics alone get a publish?
NPM_TIMEOUT = 600.0

WORKSPACE_FILES = 200
OPEN_FILES = 20
MEMORY_EDITS = 1_000
BURST = 10
# Does a keystroke cost more in a bigger project? The same agents, ten to a file, at two sizes.
SCALES = {"scale-200": 200, "scale-2000": 2_000}  # scenario → agents
AGENTS_PER_FILE = 10
SCALE_KINDS = ("string", "toggle", "return")  # Enter's cost is the file's, not the project's

TARGETS = {  # ours, p95 (or the figure itself)
    "edit_5k": 25.0,
    "edit_ws": 25.0,
    "edit_20k": 50.0,
    "scale_ratio": 1.5,  # p50 at 2,000 agents over p50 at 200
    "request": 10.0,
    "index_s": 1.5,
    "rss_mib": 150.0,
}


# --- the two languages ------------------------------------------------------------------------


@dataclass(frozen=True)
class Flavour:
    """Where things are in one language's rendering of the generated agents. A pattern is
    (line prefix, character): every line starting with the prefix gives a position."""

    key: str  # "ours" or "peer"
    language_id: str
    suffix: str
    goal: tuple[str, int]  # just inside the quoted GOAL text
    history_none: tuple[str, int]  # the start of the value `none`
    return_true: tuple[str, int]  # the `t` of a returnable route's `true`
    # The code a route's `True` is reported with; None: `True` is a valid boolean, nothing is reported.
    return_true_code: str | None
    completions: tuple[tuple[str, int], ...]
    hovers: tuple[tuple[str, int], ...]
    # True when the server finishes pending analysis before answering any request (ours).
    analyses_before_requests: bool


OURS = Flavour(
    key="ours",
    language_id="abl",
    suffix=".agent.abl",
    goal=('GOAL: "', 7),
    history_none=("    HISTORY: none", 13),
    return_true=("    RETURN: true", 12),
    return_true_code="RETURN_NOT_LOWERCASE_TRUE",
    completions=(("    HISTORY: ", 13), ("  - TO: ", 8), ("    RETURN: ", 4)),
    hovers=(("    HISTORY: ", 6), ("  - TO: ", 5), ("GOAL: ", 1), ("  - TO: ", 10)),
    analyses_before_requests=True,
)
PEER = Flavour(
    key="peer",
    language_id="yaml",
    suffix=".yaml",
    goal=('    goal: "', 11),
    history_none=("        history: none", 17),
    return_true=("        return: true", 16),
    return_true_code=None,  # YAML 1.2: `True` is the boolean true, which the schema's "boolean" accepts
    completions=(("        history: ", 17), ("      - to: ", 12), ("        return: ", 8)),
    hovers=(("        history: ", 10), ("      - to: ", 9), ("    goal: ", 5), ("      - to: ", 14)),
    analyses_before_requests=False,
)

HISTORY_ENUM = ["full", "none", "last_5", "last_10", "summary_only"]


def yaml_schema() -> dict:
    """The JSON schema the peer validates the YAML rendering against."""

    def text(description: str, **extra: Any) -> dict:
        return {"type": "string", "description": description, **extra}

    name = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$"}
    field_ = {
        "type": "object",
        "additionalProperties": False,
        "required": ["prompt", "type"],
        "properties": {
            "prompt": text("What the agent asks to obtain the value."),
            "type": text("The value's type.", enum=["string", "number", "boolean", "date", "email", "phone"]),
            "required": {"type": "boolean", "description": "Whether the agent must gather it before completing."},
        },
    }
    route = {
        "type": "object",
        "additionalProperties": False,
        "required": ["to"],
        "properties": {
            "to": {**name, "description": "The agent this route hands the conversation to."},
            "when": text("The condition under which the route is taken."),
            "pass": {"type": "array", "items": {"type": "string"}, "description": "Values handed to the target."},
            "history": text("How much of the conversation the target receives.", enum=HISTORY_ENUM),
            "summary": text("A summary given to the target instead of the full history."),
            "return": {"type": "boolean", "description": "Whether the target returns control when done."},
            "on_return": {
                "type": "object",
                "description": "What happens when a returnable target hands control back.",
                "additionalProperties": False,
                "properties": {
                    "action": text("What the parent does next.", enum=["resume_intent", "continue", "complete"]),
                    "map": {
                        "type": "object",
                        "description": "Child values copied back into the parent.",
                        "additionalProperties": {"type": "string"},
                    },
                    "set": {"type": "object", "description": "Parent values set on return."},
                },
            },
            "on_failure": text("What happens when the handoff fails.", enum=["CONTINUE", "ESCALATE", "RETRY"]),
        },
    }
    agent = {
        "type": "object",
        "additionalProperties": False,
        "required": ["name", "goal"],
        "properties": {
            "name": {**name, "description": "The agent's name, unique in the project."},
            "goal": text("What the agent is for, in one sentence."),
            "persona": text("How the agent speaks."),
            "gather": {"type": "object", "description": "Fields the agent collects.", "additionalProperties": field_},
            "memory": {
                "type": "object",
                "description": "Values kept between turns.",
                "properties": {
                    "session": {
                        "type": "array",
                        "description": "Values kept for the session.",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "name": {**name, "description": "The value's name."},
                                "type": text("The value's type.", enum=["string", "number", "boolean"]),
                            },
                        },
                    }
                },
            },
            "handoff": {"type": "array", "description": "Routes to other agents.", "items": route},
            "complete": {
                "type": "array",
                "description": "When the agent is done, and what it answers.",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"when": text("The completion condition."), "respond": text("The final answer.")},
                },
            },
        },
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Agents",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "version": {"type": "integer", "description": "The format version.", "enum": [1]},
            "agents": {"type": "array", "description": "The agents of the project.", "items": agent},
        },
    }


# --- statistics -------------------------------------------------------------------------------


def p95(xs: list[float]) -> float:
    """Nearest-rank 95th percentile."""
    ordered = sorted(xs)
    return ordered[max(1, math.ceil(0.95 * len(ordered))) - 1]


def summary(ms: list[float]) -> dict:
    if not ms:
        return {"n": 0}
    return {
        "n": len(ms),
        "p50": statistics.median(ms),
        "p95": p95(ms),
        "min": min(ms),
        "max": max(ms),
        "samples_ms": ms,
    }


# --- documents ----------------------------------------------------------------------------------


@dataclass
class Doc:
    """One open document: the client's copy of its text, its version and its diagnostics."""

    client: LspClient
    path: Path
    lines: list[str]
    flavour: Flavour
    version: int = 1
    edits: int = 0
    current: list[dict] = field(default_factory=list)  # the diagnostics of the last publish
    blank_row: int = 0  # a line with nothing to hover, for barrier requests

    @property
    def uri(self) -> str:
        return file_uri(self.path)

    @property
    def diagnostics(self) -> int:
        return len(self.current)

    def take_last_published(self) -> None:
        """The last publish the client has for this document holds its current diagnostics."""
        self.current = next((p.diagnostics for p in reversed(self.client.published) if p.uri == self.uri), [])

    def sites(self, pattern: tuple[str, int]) -> list[tuple[int, int]]:
        prefix, col = pattern
        return [(row, col) for row, line in enumerate(self.lines) if line.startswith(prefix)]

    def open(self) -> float:
        text = "\n".join(self.lines)
        self.blank_row = next((r for r, line in enumerate(self.lines) if not line.strip()), 0)
        return self.client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": self.flavour.language_id,
                    "version": self.version,
                    "text": text,
                }
            },
        )

    def change(self, row: int, start: int, end: int, text: str) -> float:
        """Send one incremental change; returns the time it was written."""
        line = self.lines[row]
        self.lines[row] = line[:start] + text + line[end:]
        self.version += 1
        self.edits += 1
        return self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [
                    {
                        "range": {"start": {"line": row, "character": start}, "end": {"line": row, "character": end}},
                        "text": text,
                    }
                ],
            },
        )

    def enter(self, row: int, insert: bool) -> float:
        """Press Enter at the end of `row` (a new empty line below it), or take that line away
        again; returns the time the change was written."""
        end = len(self.lines[row])
        if insert:
            self.lines.insert(row + 1, "")
            change = {"start": {"line": row, "character": end}, "end": {"line": row, "character": end}}
        else:
            del self.lines[row + 1]
            change = {"start": {"line": row, "character": end}, "end": {"line": row + 1, "character": 0}}
        self.version += 1
        self.edits += 1
        return self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": change, "text": "\n" if insert else ""}],
            },
        )

    def position(self, row: int, col: int) -> dict:
        return {"textDocument": {"uri": self.uri}, "position": {"line": row, "character": col}}

    def wait_diagnostics(self, since: int, timeout: float = DIAGNOSTICS_TIMEOUT) -> Published:
        """The publish for this document's current version (or, without versions, the next one)."""
        version = self.version
        found, _ = self.client.wait_published(
            since,
            lambda p: p.uri == self.uri and (p.version is None or p.version == version),
            timeout,
            f"{self.path.name} version {version}",
        )
        self.current = found.diagnostics
        return found

    def barrier(self) -> float:
        """Time at which a hover on a blank line was answered: the server has finished the
        analysis of every change sent before it."""
        at, _ = self.client.response(
            self.client.send_request("textDocument/hover", self.position(self.blank_row, 0))[0],
            REQUEST_TIMEOUT,
            "textDocument/hover (barrier)",
        )
        return at


def string_edit(site: tuple[int, int], insert: bool) -> tuple[int, int, int, str]:
    row, col = site
    return (row, col, col, "x") if insert else (row, col, col + 1, "")


def toggle_edit(site: tuple[int, int], to_recent: bool) -> tuple[int, int, int, str]:
    row, col = site
    return (row, col, col + 4, "recent") if to_recent else (row, col, col + 6, "none")


def return_edit(site: tuple[int, int], capital: bool) -> tuple[int, int, int, str]:
    row, col = site
    return (row, col, col + 1, "T" if capital else "t")


def code_changes(before: list[dict], after: list[dict]) -> dict[str, int]:
    """How many more (or, below zero, fewer) diagnostics of each code `after` holds than `before`."""
    diff = Counter(str(d.get("code")) for d in after)
    diff.subtract(Counter(str(d.get("code")) for d in before))
    return {code: n for code, n in sorted(diff.items()) if n}


def spread(i: int, n: int) -> int:
    """Which of n sites the i-th edit of an insert/delete pair goes to: spread over the file."""
    return (i // 2 * 37) % n


@dataclass
class EditRun:
    """How a session's string edits are timed: to their publish, or to a barrier request."""

    mode: str = "publish"  # or "barrier"


def timed_edit(doc: Doc, edit: tuple[int, int, int, str], run: EditRun) -> float:
    """Send one edit and wait until the client sees its effect; returns milliseconds."""
    since = doc.client.mark()
    sent = doc.change(*edit)
    if run.mode == "barrier":
        return (doc.barrier() - sent) * 1e3
    return (doc.wait_diagnostics(since).at - sent) * 1e3


def detect_mode(doc: Doc, site: tuple[int, int]) -> EditRun:
    """Send an unmeasured string edit (and undo it): does the server publish diagnostics for an
    edit that leaves them unchanged?"""
    since = doc.client.mark()
    doc.change(*string_edit(site, True))
    try:
        doc.wait_diagnostics(since, PROBE_TIMEOUT)
        run = EditRun("publish")
    except LspTimeout:
        run = EditRun("barrier")
    timed_edit(doc, string_edit(site, False), run)
    return run


def string_edits(sites: list[tuple[Doc, tuple[int, int]]], count: int, runs: dict[int, EditRun]) -> list[float]:
    times = []
    for i in range(count):
        doc, site = sites[spread(i, len(sites))]
        times.append(timed_edit(doc, string_edit(site, i % 2 == 0), runs[id(doc)]))
    return times


def published_after(doc: Doc, edit: tuple[int, int, int, str]) -> tuple[float, Published]:
    """Send one edit and wait for the next publish of the file: milliseconds, and the publish."""
    since = doc.client.mark()
    sent = doc.change(*edit)
    found = doc.wait_diagnostics(since)
    return (found.at - sent) * 1e3, found


def toggle_edits(sites: list[tuple[Doc, tuple[int, int]]], count: int) -> tuple[list[float], int]:
    """Toggle HISTORY none → recent → none on spread-out routes. Returns the times and how
    many publishes did not hold the expected number of diagnostics."""
    times, wrong = [], 0
    for i in range(count):
        doc, site = sites[spread(i, len(sites))]
        before = doc.diagnostics
        ms, found = published_after(doc, toggle_edit(site, i % 2 == 0))
        times.append(ms)
        if len(found.diagnostics) != before + (1 if i % 2 == 0 else -1):
            wrong += 1
    return times, wrong


def return_toggles(
    sites: list[tuple[Doc, tuple[int, int]]], count: int, flavour: Flavour
) -> tuple[list[float], int, dict[str, int]]:
    """Toggle a returnable route's `RETURN: true` to `True` and back, one keystroke each, each
    timed to the next publish. Returns the times, how many publishes did not change as expected
    (ours: one more diagnostic of the flavour's code, then one fewer; the peer: none changed) and
    what the first toggle changed, by code."""
    code = flavour.return_true_code
    times: list[float] = []
    first: dict[str, int] = {}
    wrong = 0
    for i in range(count):
        doc, site = sites[spread(i, len(sites))]
        before = doc.current
        ms, found = published_after(doc, return_edit(site, i % 2 == 0))
        times.append(ms)
        changes = code_changes(before, found.diagnostics)
        if i == 0:
            first = changes
        # Ours: only the flavour's own code is counted, the route's other findings follow from it.
        ok = not changes if code is None else changes.get(code) == (1 if i % 2 == 0 else -1)
        wrong += not ok
    return times, wrong, first


def enter_edits(sites: list[tuple[Doc, tuple[int, int]]], count: int, runs: dict[int, EditRun]) -> list[float]:
    """Enter at the end of a GOAL line, then the new line taken away: every line below moves
    down and back up, and so do the diagnostics on them."""
    times = []
    for i in range(count):
        doc, (row, _) = sites[spread(i, len(sites))]
        since = doc.client.mark()
        sent = doc.enter(row, i % 2 == 0)
        if runs[id(doc)].mode == "barrier":
            times.append((doc.barrier() - sent) * 1e3)
        else:
            times.append((doc.wait_diagnostics(since).at - sent) * 1e3)
    return times


def burst_edits(docs: list[Doc], total: int, runs: dict[int, EditRun]) -> None:
    """Edits in bursts of ten (typing a word), each burst followed by its diagnostics, until
    the session has sent `total` edits."""
    b = 0
    while sum(d.edits for d in docs) < total:
        doc = docs[b % len(docs)]
        sites = doc.sites(doc.flavour.goal)
        count = min(BURST, total - sum(d.edits for d in docs))
        count -= count % 2  # insert/delete pairs leave the text as it was
        if count == 0:
            count = 2
        since = doc.client.mark()
        for i in range(count):
            doc.change(*string_edit(sites[spread(b * BURST + i, len(sites))], i % 2 == 0))
        if runs[id(doc)].mode == "barrier":
            doc.barrier()
        else:
            doc.wait_diagnostics(since)
        b += 1


# --- servers ------------------------------------------------------------------------------------


def ours_argv() -> tuple[list[str], dict[str, str]]:
    script = Path(sys.executable).parent / "abl"
    env = dict(os.environ)
    if script.is_file():
        return [str(script), "lsp"], env
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "server"), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "abl", "lsp"], env


OURS_SETTINGS = {
    "diagnostics": {"ignore": [], "hints": True},
    "inlayHints": {"enable": True},
    "codeLens": {"enable": True},
    "run": {"traceLevel": "standard"},
}


def peer_settings(schema: Path) -> dict:
    return {
        "validate": True,
        "hover": True,
        "completion": True,
        "format": {"enable": False},
        "schemas": {file_uri(schema): "*.yaml"},
        "schemaStore": {"enable": False},
    }


def capabilities() -> dict:
    # No `textDocument.diagnostic`: both servers push their diagnostics.
    return {
        "workspace": {
            "configuration": True,
            "workspaceFolders": True,
            "didChangeConfiguration": {"dynamicRegistration": True},
            "didChangeWatchedFiles": {"dynamicRegistration": True},
        },
        "window": {"workDoneProgress": True},
        "textDocument": {
            "synchronization": {"didSave": True, "dynamicRegistration": False},
            "publishDiagnostics": {"versionSupport": True, "relatedInformation": True},
            "completion": {
                "completionItem": {"snippetSupport": True, "documentationFormat": ["markdown", "plaintext"]}
            },
            "hover": {"contentFormat": ["markdown", "plaintext"]},
        },
    }


class Servers:
    """Starts the servers under test, with their settings, logs in the work folder."""

    def __init__(self, work: Path, peer_command: list[str] | None, server_profile: Path | None = None) -> None:
        self.work = work
        self.peer_command = peer_command
        self.server_profile = server_profile  # run ours under cProfile, writing here
        self.schema = work / "agents.schema.json"
        self.schema.write_text(json.dumps(yaml_schema(), indent=1), encoding="utf-8")
        self.started = 0
        self.notes: list[str] = []

    def start(self, flavour: Flavour, root: Path) -> tuple[LspClient, float]:
        """A server with `root` as its workspace folder, initialized; returns it and the time
        `initialized` was sent."""
        self.started += 1
        log = self.work / f"{flavour.key}-{self.started}.stderr.log"
        if flavour is OURS:
            argv, env = ours_argv()
            if self.server_profile is not None:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "server"), env.get("PYTHONPATH")]))
                argv = [sys.executable, "-m", "cProfile", "-o", str(self.server_profile), "-m", "abl", "lsp"]
            settings = OURS_SETTINGS

            def config(section: str | None) -> Any:
                return settings if section == "abl" else None

        else:
            assert self.peer_command is not None
            argv, env = self.peer_command, dict(os.environ)
            sections = {"yaml": peer_settings(self.schema), "http": {}, "[yaml]": {}, "editor": {"tabSize": 2}}

            def config(section: str | None) -> Any:
                return sections.get(section or "")

        client = LspClient(flavour.key, argv, root, config, log, env=env)
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "clientInfo": {"name": "abl-bench"},
                "rootUri": file_uri(root),
                "workspaceFolders": [{"uri": file_uri(root), "name": root.name}],
                "capabilities": capabilities(),
            },
            timeout=REQUEST_TIMEOUT,
        )
        since = len(client.server_requests)
        initialized = client.notify("initialized", {})
        if flavour is PEER:
            # The peer reads its settings when told they changed; wait until it has asked.
            client.notify("workspace/didChangeConfiguration", {"settings": {"yaml": peer_settings(self.schema)}})
            if not client.wait_server_request("workspace/configuration", since, 10.0):
                self.notes.append("The peer did not ask for its settings within 10 s of being told they changed.")
            time.sleep(0.3)
        return client, initialized


def stderr_tail(work: Path, lines: int = 15) -> str:
    logs = sorted(work.glob("*.stderr.log"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return ""
    text = logs[-1].read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
    return f"last lines of {logs[-1].name}:\n" + "\n".join(text)


# --- the peer's installation ---------------------------------------------------------------------


def install_peer(notes: list[str]) -> tuple[list[str] | None, str | None]:
    """The command that runs yaml-language-server, installing it into bench/.cache first if
    needed; (None, reason) when npm or the package is unavailable."""
    folder = CACHE / f"{PEER_PACKAGE}-{PEER_VERSION}"
    package = folder / "node_modules" / PEER_PACKAGE
    entry = package / "bin" / PEER_PACKAGE
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed"
    if _installed_version(package) != PEER_VERSION:
        npm = shutil.which("npm")
        if npm is None:
            return None, "npm is not installed"
        folder.mkdir(parents=True, exist_ok=True)
        # A package.json of its own keeps npm from looking for a project further up.
        (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        argv = [npm, "install", "--no-audit", "--no-fund", f"{PEER_PACKAGE}@{PEER_VERSION}"]
        print(f"installing the peer: {shlex.join(argv)} (in {folder.relative_to(ROOT)})", file=sys.stderr)
        code, output = run_bounded(argv, folder, NPM_TIMEOUT)
        if code != 0 or _installed_version(package) != PEER_VERSION:
            return None, f"`npm install {PEER_PACKAGE}@{PEER_VERSION}` failed: {output.strip()[-300:]}"
        notes.append(f"{PEER_PACKAGE} {PEER_VERSION} was installed into {folder.relative_to(ROOT)} by this run")
    return [node, str(entry), "--stdio"], None


def _installed_version(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def run_bounded(argv: list[str], cwd: Path, timeout: float) -> tuple[int, str]:
    """Run a command in its own process group, ended if it outlives `timeout` or we stop."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:.0f} s"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def version_of(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20).stdout.strip() or "?"
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unavailable ({err})"


# --- content ----------------------------------------------------------------------------------


@dataclass
class Corpus:
    """The generated files, written once and shared by every server of the run."""

    work: Path
    single: dict[str, dict[str, Path]] = field(default_factory=dict)  # size → flavour key → file
    agents: dict[str, int] = field(default_factory=dict)
    workspace: Path | None = None
    workspace_files: list[Path] = field(default_factory=list)
    scaled: dict[str, list[Path]] = field(default_factory=dict)  # scale scenario → its files

    def write_single(self, size: str, lines: int) -> None:
        n = agents_for_lines(lines)
        self.agents[size] = n
        self.single[size] = {}
        for flavour, text in ((OURS, project(n)), (PEER, project_yaml(n))):
            folder = self.work / f"{flavour.key}-{size}"
            folder.mkdir()
            path = folder / f"agents{flavour.suffix}"
            path.write_text(text, encoding="utf-8")
            self.single[size][flavour.key] = path

    def write_workspace(self, lines: int, files: int) -> None:
        """`files` files holding the agents of a `lines`-line project, as evenly as they go."""
        n = agents_for_lines(lines)
        self.agents["workspace"] = n
        self.workspace = self.work / "ours-workspace"
        self.workspace.mkdir()
        for f in range(files):
            names = range(f * n // files, (f + 1) * n // files)
            path = self.workspace / f"agents_{f:03d}.agent.abl"
            path.write_text("\n".join(agent_text(i, n) for i in names), encoding="utf-8")
            self.workspace_files.append(path)

    def write_scaled(self, scenario: str) -> None:
        """The scenario's agents, `AGENTS_PER_FILE` to a file, in a folder of their own."""
        n = SCALES[scenario]
        self.agents[scenario] = n
        self.scaled[scenario] = write_project(self.work / f"ours-{scenario}", n, AGENTS_PER_FILE)


def open_files(files: list[Path]) -> list[Path]:
    """The `OPEN_FILES` files of a workspace that take the edits, spread over it."""
    return files[:: max(1, len(files) // OPEN_FILES)][:OPEN_FILES]


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split("\n"))


def expected_diagnostics(root: Path) -> dict[str, int]:
    """How many diagnostics `abl check` finds in each file, computed in this process."""
    from abl.checks.engine import check_project
    from abl.workspace import load_project

    project_, _ = load_project([str(root)])
    return {str(Path(p).resolve()): len(d) for p, d in check_project(project_).items()}


# --- sessions ---------------------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, servers: Servers, corpus: Corpus) -> None:
        self.quick = args.quick
        self.servers = servers
        self.corpus = corpus
        self.results: dict[str, dict[str, Any]] = {}
        self.checks: dict[str, Any] = {}
        self.notes: list[str] = []
        self.errors: list[str] = []

    def n(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def record(self, key: str, flavour: Flavour, value: Any) -> None:
        self.results.setdefault(key, {})[flavour.key] = value

    def open_single(self, flavour: Flavour, size: str) -> tuple[LspClient, Doc, EditRun]:
        path = self.corpus.single[size][flavour.key]
        client, _ = self.servers.start(flavour, path.parent)
        doc = Doc(client, path, path.read_text(encoding="utf-8").split("\n"), flavour)
        since = client.mark()
        if flavour is OURS:  # it indexes its workspace folder first
            client.wait_published(0, lambda p: p.uri == doc.uri, INDEX_TIMEOUT, f"the index of {path.name}")
        opened = doc.open()
        if flavour is PEER:
            first = doc.wait_diagnostics(since)
            self.record(f"open_{size}", flavour, summary([(first.at - opened) * 1e3]))
        client.wait_quiet(0.5, 10.0)
        doc.take_last_published()
        goals = doc.sites(flavour.goal)
        run = detect_mode(doc, goals[0])
        # Two unmeasured warm-up edits (first-time code paths, caches).
        timed_edit(doc, string_edit(goals[1], True), run)
        timed_edit(doc, string_edit(goals[1], False), run)
        self.checks.setdefault("string_edit_timing", {})[f"{flavour.key} {size}"] = run.mode
        return client, doc, run

    def edits(
        self,
        key: str,
        flavour: Flavour,
        docs: list[Doc],
        runs: dict[int, EditRun],
        kinds: tuple[str, ...] = ("string", "toggle", "return", "enter"),
    ) -> None:
        goal_sites = interleave([[(d, s) for s in d.sites(flavour.goal)] for d in docs])
        toggle_sites = interleave([[(d, s) for s in d.sites(flavour.history_none)] for d in docs])
        return_sites = interleave([[(d, s) for s in d.sites(flavour.return_true)] for d in docs])
        mode = runs[id(docs[0])].mode
        if "string" in kinds:
            times = string_edits(goal_sites, self.n(200, 20), runs)
            self.record(f"{key}_string", flavour, {**summary(times), "timed_to": mode})
        if "toggle" in kinds:
            times, wrong = toggle_edits(toggle_sites, self.n(100, 10))
            self.record(f"{key}_toggle", flavour, {**summary(times), "wrong_counts": wrong})
            if wrong:
                self.errors.append(
                    f"{flavour.key} {key}: {wrong} toggles published an unexpected number of diagnostics"
                )
        if "return" in kinds:
            times, wrong, first = return_toggles(return_sites, self.n(100, 10), flavour)
            self.record(f"{key}_return", flavour, {**summary(times), "wrong_counts": wrong, "first_changes": first})
            if wrong:
                code = flavour.return_true_code
                expected = f"one {code} more, then one fewer" if code else "none"
                self.errors.append(
                    f"{flavour.key} {key}: {wrong} RETURN toggles did not change the diagnostics as expected ({expected})"
                )
        if "enter" in kinds:
            times = enter_edits(goal_sites, self.n(100, 10), runs)
            self.record(f"{key}_enter", flavour, {**summary(times), "timed_to": mode})

    def single_5k(self, flavour: Flavour) -> None:
        client, doc, run = self.open_single(flavour, "5k")
        try:
            self.edits("edit_5k", flavour, [doc], {id(doc): run})
            self.requests(flavour, doc, run)
            self.lost_publish_check(flavour, doc)
        finally:
            client.close()

    def single_20k(self, flavour: Flavour) -> None:
        client, doc, run = self.open_single(flavour, "20k")
        try:
            rss_open = client.rss_kib()
            self.edits("edit_20k", flavour, [doc], {id(doc): run})
            burst_edits([doc], self.n(MEMORY_EDITS, 200), {id(doc): run})
            self.record(
                "rss_20k",
                flavour,
                {"after_open_kib": rss_open, "after_edits_kib": client.rss_kib(), "edits": doc.edits},
            )
        finally:
            client.close()

    def requests(self, flavour: Flavour, doc: Doc, run: EditRun) -> None:
        """Scenario 2: completion and hover, at rest and right after an edit."""
        for method, patterns, key in (
            ("textDocument/completion", flavour.completions, "completion"),
            ("textDocument/hover", flavour.hovers, "hover"),
        ):
            positions = positions_for(doc, patterns, self.n(100, 20))
            times, answered = [], 0
            for row, col in positions:
                dt, result = doc.client.request(method, doc.position(row, col), REQUEST_TIMEOUT)
                times.append(dt * 1e3)
                answered += bool(items_of(result))
            self.record(f"{key}_rest", flavour, {**summary(times), "non_empty": answered})
            goals = doc.sites(flavour.goal)
            times, answered, lost = [], 0, 0
            for i, (row, col) in enumerate(positions):
                since = doc.client.mark()
                # The edit goes to a different agent than the request (offset half the file).
                doc.change(*string_edit(goals[(spread(i, len(goals)) + len(goals) // 2) % len(goals)], i % 2 == 0))
                dt, result = doc.client.request(method, doc.position(row, col), REQUEST_TIMEOUT)
                times.append(dt * 1e3)
                answered += bool(items_of(result))
                if not flavour.analyses_before_requests:
                    doc.wait_diagnostics(since)  # let the debounced validation finish first
                elif run.mode == "publish" and lost < 3:  # after three losses, stop paying the wait
                    try:
                        doc.wait_diagnostics(since, PROBE_TIMEOUT)
                    except LspTimeout:
                        lost += 1  # the request answered from this edit's analysis; its publish never came
            self.record(f"{key}_after_edit", flavour, {**summary(times), "non_empty": answered, "publishes_lost": lost})
            if lost:
                self.errors.append(
                    f"{flavour.key}: {lost} edits followed at once by a {key} request never had their diagnostics published"
                )

    def lost_publish_check(self, flavour: Flavour, doc: Doc) -> None:
        """An edit that changes the diagnostics, followed at once by a completion request: do
        its diagnostics still reach the client?"""
        site = doc.sites(flavour.history_none)[0]
        before = doc.diagnostics
        since = doc.client.mark()
        sent = doc.change(*toggle_edit(site, True))
        doc.client.request("textDocument/completion", doc.position(site[0], site[1]), REQUEST_TIMEOUT)
        try:
            found = doc.wait_diagnostics(since, PROBE_TIMEOUT)
            outcome = {
                "published": True,
                "ms": (found.at - sent) * 1e3,
                "count_ok": len(found.diagnostics) == before + 1,
            }
        except LspTimeout:
            outcome = {"published": False, "waited_s": PROBE_TIMEOUT}
        self.checks.setdefault("edit_then_request_publishes", {})[flavour.key] = outcome
        since = doc.client.mark()
        doc.change(*toggle_edit(site, False))
        doc.wait_diagnostics(since)

    def workspace(self) -> None:
        """Scenarios 3, 1(b) and 4 for ours: fresh servers indexing 200 files, the last of
        which then takes the edits."""
        root = self.corpus.workspace
        assert root is not None
        uris = {file_uri(p) for p in self.corpus.workspace_files}
        expected = expected_diagnostics(root)
        expected_with = sum(1 for p in self.corpus.workspace_files if expected.get(str(p.resolve()), 0))
        runs = self.n(5, 2)
        index_ms, client = [], None
        for r in range(runs):
            client, initialized = self.servers.start(OURS, root)
            try:
                seen = wait_all_published(client, uris, INDEX_TIMEOUT)
                first = {}
                for p in client.published:
                    first.setdefault(p.uri, p)
                index_ms.append((max(p.at for p in first.values()) - initialized) * 1e3)
                self.checks["index"] = {
                    "files": len(uris),
                    "files_published": len(seen),
                    "files_with_diagnostics": sum(1 for p in first.values() if p.diagnostics),
                    "files_with_diagnostics_expected": expected_with,
                    "diagnostics_published": sum(len(p.diagnostics) for p in first.values()),
                    "diagnostics_expected": sum(expected.values()),
                }
                if r < runs - 1:
                    client.close()
            except BaseException:
                client.close()
                raise
        assert client is not None
        self.record("index", OURS, {**summary(index_ms), "runs": runs})
        try:
            self.workspace_edits(client)
        finally:
            client.close()

    def open_docs(self, client: LspClient, files: list[Path], label: str) -> tuple[list[Doc], dict[int, EditRun]]:
        """Open the workspace's `OPEN_FILES` edited files, find how the server's string edits are
        timed, and warm up with two unmeasured edits."""
        docs = [Doc(client, p, p.read_text(encoding="utf-8").split("\n"), OURS) for p in open_files(files)]
        for doc in docs:
            doc.open()
        client.wait_quiet(0.5, 10.0)
        for doc in docs:
            doc.take_last_published()
        goals = docs[0].sites(OURS.goal)
        run = detect_mode(docs[0], goals[0])  # the server's behaviour, not the file's
        timed_edit(docs[0], string_edit(goals[1], True), run)
        timed_edit(docs[0], string_edit(goals[1], False), run)
        self.checks.setdefault("string_edit_timing", {})[f"ours {label}"] = run.mode
        return docs, {id(doc): run for doc in docs}

    def workspace_edits(self, client: LspClient) -> None:
        rss_index = client.rss_kib()
        docs, runs = self.open_docs(client, self.corpus.workspace_files, "workspace")
        self.edits("edit_ws", OURS, docs, runs)
        burst_edits(docs, self.n(MEMORY_EDITS, 200), runs)
        self.record(
            "rss_ws",
            OURS,
            {"after_index_kib": rss_index, "after_edits_kib": client.rss_kib(), "edits": sum(d.edits for d in docs)},
        )

    def scaled(self, scenario: str) -> None:
        """Scenario 5: a fresh server indexes the scale scenario's files, then 20 of them take
        the edits of `SCALE_KINDS`."""
        files = self.corpus.scaled[scenario]
        root = files[0].parent
        uris = {file_uri(p) for p in files}
        expected = expected_diagnostics(root)
        client, initialized = self.servers.start(OURS, root)
        try:
            seen = wait_all_published(client, uris, INDEX_TIMEOUT)
            first: dict[str, Published] = {}
            for p in client.published:
                first.setdefault(p.uri, p)
            index = {
                "index_ms": (max(p.at for p in first.values()) - initialized) * 1e3,
                "files": len(uris),
                "files_published": len(seen),
                "diagnostics_published": sum(len(p.diagnostics) for p in first.values()),
                "diagnostics_expected": sum(expected.values()),
                "after_index_kib": client.rss_kib(),
            }
            docs, runs = self.open_docs(client, files, scenario)
            self.edits(scale_key(scenario), OURS, docs, runs, SCALE_KINDS)
            self.checks[f"index {scenario}"] = {**index, "after_edits_kib": client.rss_kib()}
            if index["diagnostics_published"] != index["diagnostics_expected"]:
                self.errors.append(
                    f"{scenario}: the index published {index['diagnostics_published']} diagnostics, "
                    f"`abl check` finds {index['diagnostics_expected']}"
                )
        finally:
            client.close()


def scale_key(scenario: str) -> str:
    """The prefix of a scale scenario's results: `scale-200` → `edit_scale200`."""
    return "edit_" + scenario.replace("-", "")


def interleave(groups: list[list[Any]]) -> list[Any]:
    """Round-robin over the groups, so that consecutive sites fall in different files."""
    out = []
    for k in range(max((len(g) for g in groups), default=0)):
        out.extend(g[k] for g in groups if k < len(g))
    return out


def positions_for(doc: Doc, patterns: tuple[tuple[str, int], ...], count: int) -> list[tuple[int, int]]:
    sites = [doc.sites(p) for p in patterns]
    return [sites[i % len(sites)][spread(2 * (i // len(sites)), len(sites[i % len(sites)]))] for i in range(count)]


def items_of(result: Any) -> list | dict | None:
    """The items of a completion answer, or the contents of a hover."""
    if isinstance(result, dict):
        if "items" in result:
            return result["items"]
        contents = result.get("contents")
        return contents if contents not in ("", [], {"kind": "markdown", "value": ""}) else None
    return result


def wait_all_published(client: LspClient, uris: set[str], timeout: float) -> set[str]:
    """Wait until every file has had a publishDiagnostics. Should the server skip some files
    (say, those without diagnostics), stop once nothing has arrived for two seconds."""
    deadline = time.monotonic() + timeout
    while True:
        seen = {p.uri for p in client.published} & uris
        if seen == uris:
            return seen
        if time.monotonic() > deadline:
            raise LspTimeout(
                f"{client.name}: {len(seen)} of {len(uris)} files published within {timeout:.0f} s of indexing"
            )
        if seen:
            before = len(client.published)
            client.wait_quiet(2.0, max(0.1, deadline - time.monotonic()))
            if len(client.published) == before:
                return seen
        else:
            client.wait_published(
                0, lambda p: p.uri in uris, max(0.1, deadline - time.monotonic()), "the first file of the index"
            )


# --- report -----------------------------------------------------------------------------------


def fmt_ms(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "—"


def verdict(value: float | None, target: float | None) -> str:
    if value is None or target is None:
        return ""
    return f"≤ {target:g}: {'yes' if value <= target else '**no**'}"


RETURN_ROW = "RETURN toggle: `RETURN: true` ↔ `True` → publishDiagnostics³"


def latency_table(b: Bench, sizes: dict[str, str]) -> list[str]:
    rows = [
        ("edit_5k_string", "edit in a GOAL string → diagnostics¹", sizes["5k"], "edit_5k"),
        ("edit_5k_toggle", "`HISTORY: none` ↔ `recent` → publishDiagnostics²", sizes["5k"], "edit_5k"),
        ("edit_5k_return", RETURN_ROW, sizes["5k"], "edit_5k"),
        ("edit_5k_enter", "Enter (a new line: every line below moves) → diagnostics¹", sizes["5k"], "edit_5k"),
        ("edit_ws_string", "edit in a GOAL string → diagnostics¹", sizes["ws"], "edit_ws"),
        ("edit_ws_toggle", "`HISTORY: none` ↔ `recent` → publishDiagnostics²", sizes["ws"], "edit_ws"),
        ("edit_ws_return", RETURN_ROW, sizes["ws"], "edit_ws"),
        ("edit_ws_enter", "Enter (a new line: every line below moves) → diagnostics¹", sizes["ws"], "edit_ws"),
        ("edit_20k_string", "edit in a GOAL string → diagnostics¹", sizes["20k"], "edit_20k"),
        ("edit_20k_toggle", "`HISTORY: none` ↔ `recent` → publishDiagnostics²", sizes["20k"], "edit_20k"),
        ("edit_20k_return", RETURN_ROW, sizes["20k"], "edit_20k"),
        ("edit_20k_enter", "Enter (a new line: every line below moves) → diagnostics¹", sizes["20k"], "edit_20k"),
        *(
            (f"{scale_key(sc)}_{kind}", label, sizes.get(sc, "—"), "edit_ws")
            for sc in SCALES
            for kind, label in (
                ("string", "edit in a GOAL string → diagnostics¹"),
                ("toggle", "`HISTORY: none` ↔ `recent` → publishDiagnostics²"),
                ("return", RETURN_ROW),
            )
        ),
        ("completion_rest", "completion, at rest", sizes["5k"], "request"),
        ("completion_after_edit", "completion right after an edit", sizes["5k"], "request"),
        ("hover_rest", "hover, at rest", sizes["5k"], "request"),
        ("hover_after_edit", "hover right after an edit", sizes["5k"], "request"),
    ]
    out = [
        "| scenario | size | ours p50 | ours p95 | peer p50 | peer p95 | ours/peer p50 | ours/peer p95 | target (ours p95, ms) | n |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key, label, size, target in rows:
        ours, peer = b.results.get(key, {}).get("ours", {}), b.results.get(key, {}).get("peer", {})
        if not ours and not peer:
            continue
        n = "/".join(str(x["n"]) for x in (ours, peer) if x)
        out.append(
            f"| {label} | {size} | {fmt_ms(ours.get('p50'))} | {fmt_ms(ours.get('p95'))} | {fmt_ms(peer.get('p50'))} | "
            f"{fmt_ms(peer.get('p95'))} | {ratio(ours.get('p50'), peer.get('p50'))} | {ratio(ours.get('p95'), peer.get('p95'))} | "
            f"{verdict(ours.get('p95'), TARGETS[target])} | {n} |"
        )
    return out


def scale_table(b: Bench) -> list[str]:
    """What an edit costs at 2,000 agents against 200, the same files of ten agents each."""
    small, large = (scale_key(sc) for sc in SCALES)
    n_small, n_large = (f"{n:,}" for n in SCALES.values())
    out = [
        f"| edit, in 20 open files of {AGENTS_PER_FILE} agents | ours at {n_small} agents, p50 / p95 | "
        f"ours at {n_large} agents, p50 / p95 | {n_large} / {n_small}, p50 | {n_large} / {n_small}, p95 | "
        "target (p50 ratio) |",
        "|---|---|---|---|---|---|",
    ]
    for kind, label in (
        ("string", "a keystroke: edit in a GOAL string"),
        ("toggle", "`HISTORY: none` ↔ `recent`"),
        ("return", "`RETURN: true` ↔ `True`"),
    ):
        a, z = b.results.get(f"{small}_{kind}", {}).get("ours"), b.results.get(f"{large}_{kind}", {}).get("ours")
        if not a or not z or not a["n"] or not z["n"]:
            continue
        target = TARGETS["scale_ratio"]
        grown = z["p50"] / a["p50"]
        out.append(
            f"| {label} | {fmt_ms(a['p50'])} / {fmt_ms(a['p95'])} | {fmt_ms(z['p50'])} / {fmt_ms(z['p95'])} | "
            f"{ratio(z['p50'], a['p50'])} | {ratio(z['p95'], a['p95'])} | "
            f"≤ {target:g}×: {'yes' if grown <= target else '**no**'} |"
        )
    return out if len(out) > 2 else []


def other_table(b: Bench, sizes: dict[str, str]) -> list[str]:
    out = ["| measure | size | ours | peer | ours/peer | target (ours) |", "|---|---|---|---|---|---|"]
    index = b.results.get("index", {}).get("ours")
    if index:
        out.append(
            f"| workspace index: `initialized` → last first publishDiagnostics (min / median of {index['runs']} runs) | "
            f"{sizes['ws']} | {index['min'] / 1e3:.2f} s / {index['p50'] / 1e3:.2f} s | no counterpart | | "
            f"{verdict(index['p50'] / 1e3, TARGETS['index_s'])} |"
        )
    for key, label, size in (
        ("rss_ws", "server RSS after {edits:,} edits (peak)", sizes["ws"]),
        ("rss_20k", "server RSS after {edits:,} edits (peak)", sizes["20k"]),
    ):
        got = b.results.get(key, {})
        ours, peer = got.get("ours"), got.get("peer")
        if not ours and not peer:
            continue
        missing = "no counterpart" if key == "rss_ws" else "—"
        edits = (ours or peer)["edits"]
        out.append(
            f"| {label.format(edits=edits)} | {size} | {_rss_cell(ours, missing)} | {_rss_cell(peer, missing)} | "
            f"{ratio(_rss_mib(ours), _rss_mib(peer))} | {verdict(_rss_mib(ours), TARGETS['rss_mib'])} |"
        )
    return out


def _rss_mib(x: dict | None) -> float | None:
    return x["after_edits_kib"]["VmRSS"] / 1024 if x else None


def _rss_cell(x: dict | None, missing: str) -> str:
    if not x:
        return missing
    start = x.get("after_index_kib") or x.get("after_open_kib")
    return (
        f"{_rss_mib(x):.0f} MiB ({x['after_edits_kib']['VmHWM'] / 1024:.0f}); "
        f"{start['VmRSS'] / 1024:.0f} before the edits"
    )


def report(b: Bench, meta: dict, sizes: dict[str, str]) -> str:
    lines = [
        "# `abl lsp` and yaml-language-server, edited the same way",
        "",
        f"Command: `{meta['command']}`",
        "",
        f"Machine: {meta['nproc']} cores ({meta['cpu']}), {meta['os']}; Python {meta['python']}; "
        f"Node {meta['node']}; peer: {meta['peer']}; ours: abl {meta['abl']}, pygls {meta['pygls']}. "
        f"Client and servers share the cores; load average (1 min) {meta['load_start']:.1f} at the start, "
        f"{meta['load_end']:.1f} at the end.",
        "",
        "Times in milliseconds; p50 is the median, p95 nearest-rank; ratios below 1 mean ours is faster.",
        "",
        *latency_table(b, sizes),
        "",
        *other_table(b, sizes),
        "",
    ]
    scaling = scale_table(b)
    if scaling:
        lines.extend([*scaling, ""])
    modes = b.checks.get("string_edit_timing", {})
    if "barrier" in modes.values():
        lines.append(
            "¹ Our server publishes no diagnostics after an edit that leaves them unchanged, so our string edits are "
            "timed to the answer of a hover on a blank line sent right after the `didChange` (the server finishes the "
            "edit's analysis first); the peer's to its next publishDiagnostics, 200 ms debounce included."
        )
    else:
        lines.append("¹ Both servers timed to the publishDiagnostics of the edit (ours matched on `version`).")
    lines.append(
        "² An edit that adds or removes one diagnostic (ours: a warning for the unknown history mode; peer: a schema "
        "enum error), timed to the publishDiagnostics that carries it; the count is checked on every edit."
    )
    note = return_note(b)
    if note:
        lines.append(note)
    index = b.checks.get("index")
    if index:
        lines.append(
            f"Index check: {index['files_published']} of {index['files']} files published, "
            f"{index['files_with_diagnostics']} with diagnostics (`abl check` in process: "
            f"{index['files_with_diagnostics_expected']}); {index['diagnostics_published']} diagnostics "
            f"(expected {index['diagnostics_expected']})."
        )
    for scenario in SCALES:
        got = b.checks.get(f"index {scenario}")
        if got:
            lines.append(
                f"Index check, {sizes[scenario]}: {got['files_published']} of {got['files']} files published in "
                f"{got['index_ms'] / 1e3:.2f} s (one run), {got['diagnostics_published']:,} diagnostics (expected "
                f"{got['diagnostics_expected']:,}); server RSS {got['after_index_kib']['VmRSS'] / 1024:.0f} MiB after "
                f"the index, {got['after_edits_kib']['VmRSS'] / 1024:.0f} after the edits."
            )
    lost = b.checks.get("edit_then_request_publishes", {})
    for key, outcome in lost.items():
        lines.append(
            f"Edit that changes the diagnostics, then a completion at once ({key}): "
            + (
                "diagnostics published."
                if outcome["published"]
                else f"**no publishDiagnostics within {outcome['waited_s']:.0f} s**."
            )
        )
    lines.extend(b.notes + b.servers.notes)
    lines.extend(f"**Error:** {e}" for e in b.errors)
    return "\n".join(lines) + "\n"


def return_note(b: Bench) -> str:
    """The footnote of the RETURN toggle rows: what `True` did to each server's diagnostics
    ("" when no RETURN toggle ran)."""
    parts = []
    for flavour in (OURS, PEER):
        got = next((r[flavour.key] for k, r in b.results.items() if k.endswith("_return") and flavour.key in r), None)
        if got is None:
            continue
        changed = ", ".join(f"{n:+d} {code}" for code, n in got["first_changes"].items()) or "no change"
        if flavour is OURS:
            parts.append(
                f"ours: `True` reads as false and the route becomes permanent ({changed}), the count of "
                f"{flavour.return_true_code} checked on every edit"
            )
        elif got["first_changes"]:
            parts.append(f"peer: {changed}, where no change was expected")
        else:
            parts.append(
                'peer: no diagnostic, as `True` is a YAML 1.2 boolean, which the schema\'s `"type": "boolean"` '
                "accepts, so the edit is timed to its next publish as a GOAL edit is, the diagnostics checked to stay "
                "the same"
            )
    if not parts:
        return ""
    return (
        "³ A returnable route's `RETURN: true` changed to `True` and back, one character each, timed to the "
        "publishDiagnostics that follows; " + "; ".join(parts) + "."
    )


def machine_facts(peer_command: list[str] | None) -> dict:
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "?")
    except OSError as err:
        cpu = f"unknown ({err.strerror})"
    from importlib.metadata import version

    import abl

    return {
        "command": shlex.join(["python", *sys.argv]),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "node": version_of(["node", "--version"]) if shutil.which("node") else "not installed",
        "peer": f"{PEER_PACKAGE} {PEER_VERSION} (stock, 200 ms validation debounce)" if peer_command else "not run",
        "abl": abl.__version__,
        "pygls": version("pygls"),
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "load_start": os.getloadavg()[0],  # other work on the machine skews every figure
    }


# --- profile ----------------------------------------------------------------------------------


def profile(scenario: str, quick: bool) -> int:
    """The edits of one scenario on `AnalysisHost` in this process, under cProfile."""
    from abl.ide.host import AnalysisHost

    work = Path(tempfile.mkdtemp(prefix="abl-lsp-profile-"))
    try:
        corpus = Corpus(work)
        if scenario == "workspace":
            corpus.write_workspace(20_000, WORKSPACE_FILES)
            root = corpus.workspace
            files = open_files(corpus.workspace_files)
        elif scenario in SCALES:
            corpus.write_scaled(scenario)
            files = open_files(corpus.scaled[scenario])
            root = files[0].parent
        else:
            corpus.write_single(scenario, 5_000 if scenario == "5k" else 20_000)
            files = [corpus.single[scenario]["ours"]]
            root = files[0].parent
        assert root is not None
        texts = {str(p): p.read_text(encoding="utf-8").split("\n") for p in files}

        def sites(prefix: str, col: int) -> list[tuple[str, int, int]]:
            return interleave(
                [[(p, r, col) for r, line in enumerate(ls) if line.startswith(prefix)] for p, ls in texts.items()]
            )

        goal, toggle, returns = sites(*OURS.goal), sites(*OURS.history_none), sites(*OURS.return_true)
        plan: list[tuple[str, tuple[str, int, int, int, str]]] = []
        for i in range(20 if quick else 200):
            p, r, c = goal[spread(i, len(goal))]
            plan.append(("string", (p, *string_edit((r, c), i % 2 == 0))))
        for i in range(10 if quick else 100):
            p, r, c = toggle[spread(i, len(toggle))]
            plan.append(("toggle", (p, *toggle_edit((r, c), i % 2 == 0))))
        for i in range(10 if quick else 100):
            p, r, c = returns[spread(i, len(returns))]
            plan.append(("return", (p, *return_edit((r, c), i % 2 == 0))))
        for i in range(0 if scenario in SCALES else 10 if quick else 100):
            # Enter at the end of a GOAL line near the top, then the new line taken away again.
            p, r, _ = goal[i // 2 % 3]
            end = len(texts[p][r])
            plan.append(("enter", (p, r, end, end, "\n") if i % 2 == 0 else (p, r, end, end + 1, "")))
        # Once without the profiler (its overhead doubles the times), once under it.
        plain = replay(AnalysisHost, str(root), texts, plan, None)
        prof = cProfile.Profile()
        profiled = replay(AnalysisHost, str(root), texts, plan, prof)
        print(f"# in-process profile: {scenario}, {len(plan)} edits on AnalysisHost (set_text + analyse)\n")
        for kind in plain:
            a, b = plain[kind], profiled[kind]
            print(
                f"{kind} edits (n = {len(a)}): p50 {statistics.median(a):.1f} ms, p95 {p95(a):.1f} ms; "
                f"under the profiler p50 {statistics.median(b):.1f} ms"
            )
        print()
        stats = pstats.Stats(prof)
        stats.sort_stats("cumulative").print_stats(15)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def profile_server(scenario: str, quick: bool, keep: str | None = None) -> int:
    """The scenario's edits over stdio, with our server itself under cProfile: where the time
    goes outside `AnalysisHost` (the protocol layer, publishing)."""
    if scenario == "workspace" or scenario in SCALES:
        print(f"error: --over-lsp takes a single-file scenario (5k or 20k), not {scenario}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="abl-lsp-profile-"))
    out = work / "server.prof"
    try:
        corpus = Corpus(work)
        corpus.write_single(scenario, 5_000 if scenario == "5k" else 20_000)
        bench = Bench(argparse.Namespace(quick=quick), Servers(work, None, out), corpus)
        client, doc, run = bench.open_single(OURS, scenario)
        try:
            bench.edits("edit", OURS, [doc], {id(doc): run})
        finally:
            client.close()  # `shutdown` and `exit`: the profiler writes its file as the server exits
        if not out.is_file():
            print(f"error: the server wrote no profile\n{stderr_tail(work)}", file=sys.stderr)
            return 1
        for kind in ("string", "toggle", "return", "enter"):
            got = bench.results[f"edit_{kind}"]["ours"]
            print(
                f"{kind} edits over stdio (n = {got['n']}, server under the profiler): p50 {got['p50']:.1f} ms, p95 {got['p95']:.1f} ms"
            )
        print()
        # Only our code and the protocol stack: the event loop's own frames say nothing.
        stats = pstats.Stats(str(out))
        stats.sort_stats("cumulative").print_stats(r"abl/|pygls|lsprotocol|cattrs|json", 15)
        stats.sort_stats("tottime").print_stats(10)  # and where the time is spent, not passed on
        if keep:
            shutil.copyfile(out, keep)
            print(f"profile kept in {keep} (read it with pstats)")
    finally:
        close_all()
        shutil.rmtree(work, ignore_errors=True)
    return 0


def replay(
    make_host: Callable[[], Any], root: str, texts: dict[str, list[str]], plan: list, prof: cProfile.Profile | None
) -> dict[str, list[float]]:
    """Index `root`, open `texts`, then apply `plan` one edit at a time (`set_text` and
    `analyse`, as the server does per keystroke); the milliseconds of each, by kind."""
    host = make_host()
    host.add_folder(root)
    host.analyse()
    gc.collect()
    gc.freeze()  # as the server does after indexing: the long-lived heap leaves the collector's way
    lines = {p: list(ls) for p, ls in texts.items()}
    versions = {p: 1 for p in lines}
    for p, ls in lines.items():
        host.open(p, "\n".join(ls), 1)
    host.analyse()
    times: dict[str, list[float]] = {}
    for kind, (p, row, start, end, text) in plan:
        ls = lines[p]
        ls[row] = ls[row][:start] + text + ls[row][end:]
        versions[p] += 1
        whole = "\n".join(ls)  # the editor's buffer, built outside the timed part
        t0 = time.perf_counter()
        if prof is not None:
            prof.enable()
        host.set_text(p, whole, versions[p])
        host.analyse()
        if prof is not None:
            prof.disable()
        times.setdefault(kind, []).append((time.perf_counter() - t0) * 1e3)
    gc.unfreeze()  # let the next replay start from a clean heap
    return times


# --- main -------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples and runs, for a smoke run")
    ap.add_argument("--only", choices=("ours", "peer"), help="run one server only")
    ap.add_argument("--json", metavar="FILE", help="also write every raw figure to FILE")
    ap.add_argument(
        "--profile",
        choices=("5k", "workspace", "20k", *SCALES),
        help="profile the edits of one scenario in process instead",
    )
    ap.add_argument("--over-lsp", action="store_true", help="with --profile: profile the server process over stdio")
    ap.add_argument("--keep-profile", metavar="FILE", help="with --over-lsp: keep the server's cProfile output")
    args = ap.parse_args()
    if args.profile:
        return (
            profile_server(args.profile, args.quick, args.keep_profile)
            if args.over_lsp
            else profile(args.profile, args.quick)
        )

    notes: list[str] = []
    peer_command: list[str] | None = None
    if args.only != "ours":
        peer_command, reason = install_peer(notes)
        if peer_command is None:
            notes.append(f"The peer was not run: {reason}. Ours ran alone.")
            print(f"warning: {reason}; running ours alone", file=sys.stderr)
    flavours = [f for f in (OURS, PEER) if args.only in (None, f.key) and (f is OURS or peer_command)]
    if not flavours:
        print("error: nothing to run", file=sys.stderr)
        return 1

    work = Path(tempfile.mkdtemp(prefix="abl-lsp-bench-"))
    meta = machine_facts(peer_command)
    bench = Bench(args, Servers(work, peer_command), Corpus(work))
    bench.notes.extend(notes)
    corpus = bench.corpus
    try:
        corpus.write_single("5k", 5_000)
        corpus.write_single("20k", 20_000)
        if OURS in flavours:
            corpus.write_workspace(20_000, WORKSPACE_FILES)
            for scenario in SCALES:
                corpus.write_scaled(scenario)
        sizes = {
            "5k": f"{line_count(corpus.single['5k']['ours']):,} lines ({corpus.agents['5k']} agents)",
            "20k": f"{line_count(corpus.single['20k']['ours']):,} lines ({corpus.agents['20k']} agents)",
            "ws": f"{len(corpus.workspace_files)} files, {sum(line_count(p) for p in corpus.workspace_files):,} lines"
            if corpus.workspace_files
            else "—",
        }
        for scenario, scaled_files in corpus.scaled.items():
            sizes[scenario] = (
                f"{len(scaled_files)} files, {SCALES[scenario]:,} agents, "
                f"{sum(line_count(p) for p in scaled_files):,} lines"
            )
        meta["documents"] = {
            "yaml_lines": {s: line_count(corpus.single[s]["peer"]) for s in ("5k", "20k")},
            "abl": sizes,
        }
        steps: list[tuple[str, Callable[[], None]]] = []
        for size in ("5k", "20k"):
            for flavour in flavours:
                method = bench.single_5k if size == "5k" else bench.single_20k
                steps.append((f"{flavour.key}, {size}-line file", lambda m=method, f=flavour: m(f)))
        if OURS in flavours:
            steps.append(("ours, 200-file workspace", bench.workspace))
            for scenario, n in SCALES.items():
                files = len(corpus.scaled[scenario])
                steps.append((f"ours, {n:,} agents over {files} files", lambda sc=scenario: bench.scaled(sc)))
        for label, step in steps:
            print(f"running: {label}", file=sys.stderr, flush=True)
            started = time.monotonic()
            gc.collect()
            try:
                step()
            except (LspTimeout, ServerGone) as err:
                bench.errors.append(f"{label}: {err}")
                print(f"error: {label}: {err}\n{stderr_tail(work)}", file=sys.stderr)
            load = os.getloadavg()[0]
            meta.setdefault("load_after_step", {})[label] = load
            print(
                f"  done in {time.monotonic() - started:.0f} s (load average {load:.1f})", file=sys.stderr, flush=True
            )
        meta["load_end"] = os.getloadavg()[0]
        meta["peer_rows_note"] = (
            f"YAML renderings: {meta['documents']['yaml_lines']['5k']:,} and {meta['documents']['yaml_lines']['20k']:,} lines"
        )
        bench.notes.insert(0, f"The peer edits the same agents rendered as YAML ({meta['peer_rows_note']}).")
        text = report(bench, meta, sizes)
        print(text)
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "meta": meta,
                        "results": bench.results,
                        "checks": bench.checks,
                        "notes": bench.notes,
                        "errors": bench.errors,
                        "targets": TARGETS,
                    },
                    indent=1,
                ),
                encoding="utf-8",
            )
        return 1 if bench.errors else 0
    finally:
        close_all()
        shutil.rmtree(work, ignore_errors=True)


def _stop(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`, which ends the servers


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("interrupted: servers ended", file=sys.stderr)
        raise SystemExit(130) from None

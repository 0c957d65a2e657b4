"""Every bundled example and every example of the language reference, stepped through from its
first pause point to its end: each stop answers its stack, scopes and values, and the run ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.launch import LaunchRefused, read_project, runnable_agents
from dap.client import DapClient

ROOT = Path(__file__).resolve().parents[2]
SPEC_EXAMPLES = ROOT.parent / "shared" / "spec" / "examples"
MESSAGES = ["hello", "I want a loan offer", "85,000", "yes", "my order 12345 is late"]
MAX_STOPS = 150


def _programs() -> list[Path]:
    found = sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir())
    if SPEC_EXAMPLES.is_dir():
        found += sorted(SPEC_EXAMPLES.glob("*.abl"))
    return found


@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.name)
def test_stepping_through_the_whole_conversation(program: Path) -> None:
    try:
        agents = runnable_agents(read_project(program))
    except LaunchRefused as refused:
        pytest.skip(f"{program.name} cannot be read: {refused.message}")
    if not agents:
        pytest.skip(f"{program.name} declares no agent to run")
    client = DapClient(cwd=ROOT)
    try:
        client.ok("initialize", {"adapterID": "abl"})
        response = client.request(
            "launch", {"program": str(program), "agent": agents[0], "messages": MESSAGES, "stopOnEntry": True}
        )
        if not response["success"]:
            assert "cannot debug" in response["message"]  # a project with errors, refused as `abl run` does
            return
        client.ok("configurationDone")
        stops = 0
        while True:
            event = client.wait_for_any("stopped", "terminated")
            if event["event"] == "terminated":
                break
            stops += 1
            assert stops <= MAX_STOPS, "the run never ends"
            thread = event["body"]["threadId"]
            frames = client.ok("stackTrace", {"threadId": thread})["stackFrames"]
            assert frames and frames[0]["line"] >= 1
            for scope in client.ok("scopes", {"frameId": frames[0]["id"]})["scopes"]:
                client.ok("variables", {"variablesReference": scope["variablesReference"]})
            client.ok("threads")
            client.ok("next" if stops % 3 else "stepIn", {"threadId": thread})
        assert stops >= 1
        assert "internal error" not in client.output()
    finally:
        client.close()


@pytest.mark.parametrize("program", _programs(), ids=lambda p: p.name)
def test_a_breakpoint_on_every_line_stops_only_on_verified_lines(program: Path) -> None:
    try:
        project = read_project(program)
    except LaunchRefused as refused:
        pytest.skip(f"{program.name} cannot be read: {refused.message}")
    agents = runnable_agents(project)
    if not agents:
        pytest.skip(f"{program.name} declares no agent to run")
    client = DapClient(cwd=ROOT)
    try:
        client.ok("initialize", {"adapterID": "abl"})
        response = client.request("launch", {"program": str(program), "agent": agents[-1], "messages": MESSAGES})
        if not response["success"]:
            return
        verified: dict[int, tuple[str, int]] = {}
        for document in project.documents.values():
            count = len(document.source.text.splitlines())
            wanted = [{"line": n} for n in range(1, count + 1)]
            answers = client.ok("setBreakpoints", {"source": {"path": document.path}, "breakpoints": wanted})
            for answer in answers["breakpoints"]:
                assert answer["verified"] or answer.get("message"), answer  # a refusal always says why
                if answer["verified"]:
                    verified[answer["id"]] = (str(Path(document.path).resolve()), answer["line"])
        client.ok("configurationDone")
        for _ in range(MAX_STOPS):
            event = client.wait_for_any("stopped", "terminated")
            if event["event"] == "terminated":
                break
            body = event["body"]
            frame = client.top_frame(body["threadId"])
            hit = [verified[ident] for ident in body["hitBreakpointIds"]]
            assert (frame["source"]["path"], frame["line"]) == hit[0]
            client.ok("continue", {"threadId": body["threadId"]})
        else:
            raise AssertionError("the run never ends")
    finally:
        client.close()

"""Running agents over the protocol: every `abl/run/*` method, the loan flow of seed 004 with
its returnable handoff, the events' source locations, refusals, and saved tests that pass."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from conftest import SERVER, capabilities, start

pytestmark = pytest.mark.asyncio

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "loan-supervisor"


@pytest_lsp.fixture(config=SERVER)
async def runner(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    shutil.copytree(EXAMPLE, root)
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.run_events = []  # type: ignore[attr-defined]

    @lsp_client.feature("abl/run/event")
    def on_event(params) -> None:
        lsp_client.run_events.append(params)  # type: ignore[attr-defined]

    await start(lsp_client, root, capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


def field(obj, name):
    return obj[name] if isinstance(obj, dict) else getattr(obj, name)


async def request(client: LanguageClient, method: str, params: dict):
    return await client.protocol.send_request_async(method, params)


def agent_file(client: LanguageClient) -> Path:
    return client.root / "loan-supervisor.agent.abl"  # type: ignore[attr-defined]


async def test_the_loan_flow_runs_with_located_events(runner: LanguageClient):
    uri = agent_file(runner).as_uri()
    started = await request(runner, "abl/run/start", {"uri": uri})
    run_id = field(started, "runId")
    assert field(started, "agent") == "Loan_Supervisor"
    first = await request(runner, "abl/run/send", {"runId": run_id, "text": "I want a loan offer"})
    assert [field(r, "text") for r in field(first, "replies")] == ["What is your annual income?"]
    assert field(first, "activeAgent") == "Income_Capture_Agent"
    heard_before = len(runner.run_events)  # type: ignore[attr-defined]
    second = await request(runner, "abl/run/send", {"runId": run_id, "text": "85k"})
    events = [e for e in field(second, "events")]
    kinds = [field(e, "type") for e in events]
    assert kinds.index("handoff_return_handler") < kinds.index("resume_intent") < kinds.index("handoff")
    returned = next(e for e in events if field(e, "type") == "handoff_return_handler")
    assert list(field(returned, "mappedFields")) == ["annual_income"]
    offer = [e for e in events if field(e, "type") == "handoff"][-1]
    assert field(offer, "to") == "Offer_Agent" and field(offer, "returnExpected") is False
    text = agent_file(runner).read_text().splitlines()
    resume = next(e for e in events if field(e, "type") == "resume_intent")
    where = field(field(resume, "location"), "range")
    line = field(field(where, "start"), "line")
    assert "TO: Income_Capture_Agent" in text[line], "the replay points at the returnable route"
    assert field(field(offer, "location"), "uri") == agent_file(runner).as_uri()
    assert "TO: Offer_Agent" in text[field(field(field(field(offer, "location"), "range"), "start"), "line")]
    # The same events arrived as notifications, in order, before the answer: once each.
    notified = runner.run_events[heard_before:]  # type: ignore[attr-defined]
    assert {field(n, "runId") for n in notified} == {run_id}
    assert [field(field(n, "event"), "seq") for n in notified] == [field(e, "seq") for e in events]
    assert [field(field(n, "event"), "type") for n in notified] == kinds

    state = await request(runner, "abl/run/state", {"runId": run_id})
    assert field(state, "activeAgent") == "Offer_Agent"
    assert field(field(state, "values"), "annual_income") == 85000


async def test_save_load_reset_and_save_as_a_test(runner: LanguageClient, tmp_path: Path):
    uri = agent_file(runner).as_uri()
    run_id = field(await request(runner, "abl/run/start", {"uri": uri, "agent": "Loan_Supervisor"}), "runId")
    await request(runner, "abl/run/send", {"runId": run_id, "text": "I want a loan offer"})
    await request(runner, "abl/run/send", {"runId": run_id, "text": "85k"})
    session = tmp_path / "session.json"
    await request(runner, "abl/run/save", {"runId": run_id, "uri": session.as_uri()})
    assert session.is_file()
    test_file = runner.root / "recorded.abltest.yaml"  # type: ignore[attr-defined]
    await request(runner, "abl/run/saveTest", {"runId": run_id, "uri": test_file.as_uri()})
    result = subprocess.run(
        [sys.executable, "-m", "abl", "test", str(test_file)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    heard_before = len(runner.run_events)  # type: ignore[attr-defined]
    reset = await request(runner, "abl/run/reset", {"runId": run_id})
    # The new conversation's own start, numbered from 1 again, told as events and in the answer.
    assert [field(e, "seq") for e in field(reset, "events")] == [1]
    notified = runner.run_events[heard_before:]  # type: ignore[attr-defined]
    assert [field(field(n, "event"), "type") for n in notified] == ["session_start"]
    assert field(await request(runner, "abl/run/state", {"runId": run_id}), "activeAgent") == "Loan_Supervisor"
    heard_before = len(runner.run_events)  # type: ignore[attr-defined]
    state = await request(runner, "abl/run/load", {"runId": run_id, "uri": session.as_uri()})
    assert field(state, "activeAgent") == "Offer_Agent"
    # The saved conversation's timeline comes back with it: its events in order, told again,
    # the return and the handoff to the offer placed at their routes.
    loaded = field(state, "events")
    seqs = [field(e, "seq") for e in loaded]
    assert seqs == sorted(set(seqs)) and seqs[0] == 1
    kinds = [field(e, "type") for e in loaded]
    assert kinds[0] == "session_start" and "handoff_return_handler" in kinds and "resume_intent" in kinds
    notified = runner.run_events[heard_before:]  # type: ignore[attr-defined]
    assert [field(field(n, "event"), "seq") for n in notified] == [field(e, "seq") for e in loaded]
    text = agent_file(runner).read_text().splitlines()
    offer = [e for e in loaded if field(e, "type") == "handoff"][-1]
    assert "TO: Offer_Agent" in text[field(field(field(field(offer, "location"), "range"), "start"), "line")]
    # A test starts a new conversation, so one that continues a loaded session is not saved as one.
    await request(runner, "abl/run/send", {"runId": run_id, "text": "what rate do I get?"})
    with pytest.raises(Exception, match="reset the run"):
        await request(runner, "abl/run/saveTest", {"runId": run_id, "uri": test_file.as_uri()})
    await request(runner, "abl/run/stop", {"runId": run_id})
    with pytest.raises(Exception, match="no run"):
        await request(runner, "abl/run/send", {"runId": run_id, "text": "hello"})


async def test_a_run_with_nothing_to_check_is_not_saved_as_a_test(runner: LanguageClient):
    run_id = field(await request(runner, "abl/run/start", {"uri": agent_file(runner).as_uri()}), "runId")
    test_file = runner.root / "empty.abltest.yaml"  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="send a message first"):
        await request(runner, "abl/run/saveTest", {"runId": run_id, "uri": test_file.as_uri()})
    assert not test_file.exists()


async def test_a_project_with_errors_is_refused_with_the_errors(runner: LanguageClient):
    path = agent_file(runner)
    broken = path.read_text().replace("HISTORY: summary_only", "HISTORY:\n      mode: recent")
    runner.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(path.as_uri(), "abl", 1, broken)))
    with pytest.raises(JsonRpcException, match="E330") as refused:
        await request(runner, "abl/run/start", {"uri": path.as_uri()})
    assert "the project has 1 error; fix them first. A project is the nearest folder" in refused.value.message
    [error] = refused.value.data["errors"]
    assert error["uri"] == path.as_uri() and error["code"] == "E330"
    line = next(i for i, text in enumerate(broken.splitlines()) if text.strip() == "mode: recent")
    assert error["range"]["start"]["line"] in (line - 1, line), "the link opens the error's line"


async def test_runs_are_independent_of_later_edits(runner: LanguageClient):
    path = agent_file(runner)
    run_id = field(await request(runner, "abl/run/start", {"uri": path.as_uri()}), "runId")
    other = field(await request(runner, "abl/run/start", {"uri": path.as_uri()}), "runId")
    assert run_id != other
    runner.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(
                path.as_uri(), "abl", 1, path.read_text().replace("What is your annual income?", "Income, please?")
            )
        )
    )
    reply = await request(runner, "abl/run/send", {"runId": run_id, "text": "I want a loan offer"})
    assert field(field(reply, "replies")[0], "text") == "What is your annual income?"


async def test_the_run_agent_command_starts_a_run(runner: LanguageClient):
    result = await runner.workspace_execute_command_async(
        lsp.ExecuteCommandParams("abl.runAgent", [agent_file(runner).as_uri(), "Offer_Agent"])
    )
    assert field(result, "agent") == "Offer_Agent"


async def test_bad_requests_are_refused_not_fatal(runner: LanguageClient):
    with pytest.raises(Exception, match="uri"):
        await request(runner, "abl/run/start", {})
    with pytest.raises(Exception, match="unknown model"):
        await request(runner, "abl/run/start", {"uri": agent_file(runner).as_uri(), "model": "gpt-9"})
    with pytest.raises(Exception, match="no agent named"):
        await request(runner, "abl/run/start", {"uri": agent_file(runner).as_uri(), "agent": "Nobody"})
    started = await request(runner, "abl/run/start", {"uri": agent_file(runner).as_uri()})
    assert field(started, "runId")


async def test_a_run_says_what_the_local_runtime_does_not_enforce(runner: LanguageClient):
    path = agent_file(runner)
    started = await request(runner, "abl/run/start", {"uri": path.as_uri()})
    assert field(started, "notEnforced") == []
    with_constraints = path.read_text().replace(
        "HANDOFF:", "CONSTRAINTS:\n  always:\n    - REQUIRE annual_income IS SET\n\nHANDOFF:", 1
    )
    runner.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(path.as_uri(), "abl", 1, with_constraints))
    )
    started = await request(runner, "abl/run/start", {"uri": path.as_uri()})
    (item,) = field(started, "notEnforced")
    line = with_constraints.splitlines().index("CONSTRAINTS:")
    assert (field(item, "construct"), field(item, "agent"), field(item, "instead")) == (
        "CONSTRAINTS",
        "Loan_Supervisor",
        "constraints are not enforced",
    )
    location = field(item, "location")
    assert field(location, "uri") == path.as_uri()
    assert field(field(field(location, "range"), "start"), "line") == line

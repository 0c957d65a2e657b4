"""`abl run`: talk to an agent of a project, interactively or from a script, with its trace.

The project is loaded and judged by the one loader (`abl.launch`); a project with errors, an
unknown agent or an unreadable file stops here with the reasons (exit 2). With a terminal and no
`--script`, an interactive chat starts (`abl.cli.chat`). Otherwise each line of the script (or
of piped stdin) is one user message and each reply is printed as `[Agent_Name] text` on stdout;
the trace goes to stderr only when `--trace` asks for it, so stdout can be compared across runs.
Before the first message, stderr lists what the agents of the run declare that the local runtime
does not enforce (`abl.cli.notices`).
Slash commands belong to the interactive chat: in a script or piped input, a line that is one of
the chat's commands (`/vars`, `/trace`, ...) is skipped with a note on stderr, never sent to the
agent as a customer message.

After every turn: `--trace-out` holds every event so far as JSONL, `--session` the saved
session, `--record` the conversation as a conversation test.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TextIO

from abl.cli.chat import COMMANDS, ChatLoop
from abl.cli.driver import TRACE_LEVELS, Driver, reason
from abl.cli.notices import print_not_enforced
from abl.cli.paths import PathRefused, output_path
from abl.cli.terminal import add_color_option
from abl.launch import LaunchRefused, launch, read_project
from abl.runtime import RuntimeOptions, Session, SessionError, start_session
from abl.runtime.testing.describe import describe_event
from abl.runtime.testing.recorder import Recording
from abl.runtime.testing.yamlread import FormatError, LineDict, plain, read_yaml
from abl.runtime.trace import TraceLevel, event_level
from abl.wording import count

RUN_MODELS = ("embedded", "openai")


class UsageProblem(Exception):
    """Something the user must fix before a run can start; the message is printed as is (exit 2)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="chat with an agent (interactive, or from a script) and see its trace",
        description="Chat with an agent of an ABL project. Interactive in a terminal; with --script "
        "or piped input, one user message per line and one `[Agent] reply` line per reply.",
    )
    p.add_argument("path", metavar="PATH", help="the project: a .abl file or a folder of them")
    p.add_argument("--agent", metavar="NAME", help="the entry agent (default: the project's only supervisor)")
    p.add_argument("--script", metavar="FILE", help="user messages, one per line (blank and # lines skipped)")
    p.add_argument(
        "--trace",
        nargs="?",
        const="standard",
        choices=TRACE_LEVELS,
        metavar="LEVEL",
        help="show the trace at minimal|standard|verbose|debug (interactive default: standard; "
        "with --script it goes to stderr and only when given)",
    )
    p.add_argument("--trace-out", metavar="FILE", help="write every trace event as JSON lines (all levels, redacted)")
    p.add_argument("--session", metavar="FILE", help="save the session after every turn; resume from it when it exists")
    p.add_argument(
        "--model", choices=RUN_MODELS, default="embedded", help="who makes model decisions (default: embedded, offline)"
    )
    p.add_argument("--model-url", metavar="URL", help="base URL of an OpenAI-compatible endpoint (with --model openai)")
    p.add_argument("--model-name", metavar="NAME", help="model name at that endpoint (with --model openai)")
    p.add_argument("--mocks", metavar="FILE", help="tool results, YAML or JSON: tool name -> result or list of results")
    p.add_argument("--record", metavar="TEST.yaml", help="write the conversation as a conversation test")
    add_color_option(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    script: list[str] | None = None
    if args.script is not None:
        # Read before anything is written, so an unreadable script leaves no session, trace or
        # recording file behind.
        try:
            script = Path(args.script).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            print(f"abl run: error: cannot read the script {args.script}: {reason(err)}", file=sys.stderr)
            return 2
    try:
        driver = prepare(args)
    except UsageProblem as problem:
        print(str(problem), file=sys.stderr)
        return 2
    print_not_enforced("abl run", [(driver.project, driver.agent)], sys.stderr)
    interactive = args.script is None and sys.stdin.isatty()
    if interactive:
        status = ChatLoop(driver, trace_level=args.trace or "standard", color=args.color).run()
    else:
        lines = script if script is not None else _read_stdin().splitlines()
        status = run_script(driver, lines, sys.stdout, sys.stderr, args.trace)
    driver.finish(sys.stderr)
    # An output that could not be written after all (a full disk) fails the run: a CI job must not
    # take a lost trace or recording for a pass.
    return status or (2 if driver.problems else 0)


# --- preparing a run ----------------------------------------------------------------------------


def prepare(args: argparse.Namespace) -> Driver:
    """Everything a run needs, or UsageProblem with the message to print."""
    outputs = _output_paths(args)
    try:
        ready = launch(read_project(args.path), args.agent, where=args.path, naming=" with --agent")
    except LaunchRefused as refused:
        raise UsageProblem(refusal("abl run", refused)) from None
    project, agent = ready.project, ready.agent
    mocks = read_mocks(args.mocks) if args.mocks else {}
    options = runtime_options(args, mocks)
    session_file = outputs.get("--session")
    resumed_from = session_file if session_file is not None and session_file.exists() else None
    resuming = resumed_from is not None
    if resuming and args.record:
        raise UsageProblem(
            "abl run: error: --record writes a test that starts a fresh session, so it cannot be combined "
            f"with resuming {session_file}; use a new --session file or leave it out"
        )
    try:
        session = (
            Session.load(project, resumed_from, options)
            if resumed_from is not None
            else start_session(project, agent, options)
        )
    except SessionError as err:
        what = f"cannot resume {session_file}" if resuming else f"cannot start {agent}"
        raise UsageProblem(f"abl run: error: {what}:\n" + "\n".join(f"  {p}" for p in err.problems)) from err
    if resuming:
        threads = session.state().threads
        saved_agent = threads[0].agent if threads else agent
        if args.agent is not None and args.agent != saved_agent:
            raise UsageProblem(
                f"abl run: error: {session_file} is a conversation with {saved_agent}, not {args.agent}; "
                "leave out --agent or use another --session file"
            )
        agent = saved_agent
    recording = None
    if args.record:
        recording = Recording(
            project=Path(args.path),
            agent=agent,
            model=args.model,
            model_options={k: v for k, v in options.model_options.items() if k != "api_key"},
            mocks=mocks,
            greeting=tuple((r.agent, r.text) for r in session.greeting),
            start_events=tuple(e.to_dict() for e in session.trace),
        )
    driver = Driver(
        session=session,
        project=project,
        agent=agent,
        resumed=resuming,
        trace_out=outputs.get("--trace-out"),
        session_file=session_file,
        recording=recording,
        record_path=outputs.get("--record"),
    )
    driver.persist()
    return driver


def _output_paths(args: argparse.Namespace) -> dict[str, Path]:
    """The files the run writes, by option, each known to be writable before the run starts."""
    given = {"--trace-out": args.trace_out, "--session": args.session, "--record": args.record}
    try:
        return {option: output_path(raw, option, replaced=True) for option, raw in given.items() if raw}
    except PathRefused as refused:
        raise UsageProblem(f"abl run: error: {refused}") from None


def refusal(command: str, refused: LaunchRefused) -> str:
    """A refused launch as the CLI prints it: the project's errors first, then the verdict."""
    if refused.problems and refused.message.startswith("the project has"):
        return "\n".join(refused.problems) + f"\n{command}: error: {refused.message}"
    return "\n".join([f"{command}: error: {refused.message}", *refused.problems])


def read_mocks(path: str) -> dict[str, Any]:
    """A mocks file: a mapping of tool name to a result (or a list of results used in turn)."""
    try:
        data = read_yaml(path)
    except FormatError as err:
        raise UsageProblem(f"abl run: error: bad --mocks file: {err}") from err
    if data is None:
        return {}
    if not isinstance(data, LineDict):
        raise UsageProblem(
            f"abl run: error: bad --mocks file: {path}:{getattr(data, 'line', 1)}: expected a mapping of tool name to result"
        )
    for key in data:
        if not isinstance(key, str):
            raise UsageProblem(
                f"abl run: error: bad --mocks file: {path}:{data.line_of(key)}: keys are tool names, not {key!r}"
            )
    return {k: plain(v) for k, v in data.items()}


def runtime_options(args: argparse.Namespace, mocks: Mapping[str, Any]) -> RuntimeOptions:
    model_options: dict[str, Any] = {}
    if args.model == "openai":
        if args.model_url:
            model_options["base_url"] = args.model_url
        if args.model_name:
            model_options["model"] = args.model_name
        key = os.environ.get("OPENAI_API_KEY")
        if key:
            model_options["api_key"] = key
    elif args.model_url or args.model_name:
        raise UsageProblem("abl run: error: --model-url and --model-name go with --model openai")
    return RuntimeOptions(model=args.model, model_options=model_options, mocks=dict(mocks), trace_level="debug")


# --- script mode ---------------------------------------------------------------------------------


def script_messages(lines: Iterable[str], err: TextIO | None = None) -> Iterator[str]:
    """The user messages of a script: blank lines and `#` comment lines are skipped, and so are
    the chat's slash commands (said on `err`), which are not messages from a customer."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        command = text.split()[0].lower()
        if command in COMMANDS or command in ("/exit", "/q"):
            if err is not None:
                print(
                    f"abl run: line {number}: `{command}` is a command of the interactive chat; "
                    "a script sends customer messages only, so it is skipped",
                    file=err,
                )
            continue
        yield text


def run_script(driver: Driver, lines: Iterable[str], out: TextIO, err: TextIO, trace: str | None) -> int:
    """Send each message, print each reply as `[Agent] text`; the trace to `err` when asked."""
    level = TraceLevel.parse(trace) if trace else None
    if not driver.resumed:
        for reply in driver.session.greeting:
            print_reply(out, reply.agent, reply.text)
        if level is not None:
            print_trace(err, [e.to_dict() for e in driver.session.trace], level)
    messages = list(script_messages(lines, err))
    for number, text in enumerate(messages, start=1):
        if driver.session.state().ended:
            left = len(messages) - number + 1
            print(f"abl run: the session has ended; {count(left, 'message')} not sent", file=err)
            break
        turn, events = driver.send(text)
        for reply in turn.replies:
            print_reply(out, reply.agent, reply.text, reply.choices)
        if level is not None:
            print_trace(err, events, level)
        else:
            for event in events:
                if event.get("type") == "error":
                    print(f"abl run: {describe_event(event)}", file=err)
        out.flush()
    return 0


def print_reply(out: IO[str], agent: str, text: str, choices: tuple[tuple[str, str], ...] = ()) -> None:
    out.write(f"[{agent}] {text}\n")
    if choices:
        out.write("  choices: " + " | ".join(f"{label} ({ident})" for ident, label in choices) + "\n")


def print_trace(err: IO[str], events: Iterable[Mapping[str, Any]], level: TraceLevel) -> None:
    for event in events:
        if event_level(str(event.get("type"))) <= level:
            shown = dict(event)
            if level < TraceLevel.DEBUG and isinstance(shown.get("messages"), Mapping):
                shown["messages"] = {k: v for k, v in shown["messages"].items() if k != "items"}
            err.write(f"  {describe_event(shown)}\n")


def _read_stdin() -> str:
    """Piped messages as UTF-8 whatever the locale says; bytes that are not UTF-8 become U+FFFD
    instead of stopping the run with a decoding error."""
    raw = getattr(sys.stdin, "buffer", None)
    if raw is None:
        return sys.stdin.read()
    return raw.read().decode("utf-8", "replace")

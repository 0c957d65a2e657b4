"""The interactive chat of `abl run`: prompt_toolkit for input, rich for output.

Each reply shows as `[Agent_Name] text`, followed by the turn's trace at the chosen level and a
status line (active agent, waiting parents, values). The bottom toolbar keeps the active agent
in view. Slash commands inspect and steer the session; Ctrl-D or `/quit` ends it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from abl.cli.driver import TRACE_LEVELS, Driver
from abl.model.lower_steps import duration_ms
from abl.runtime.testing.describe import describe_event
from abl.runtime.testing.matcher import show
from abl.runtime.trace import TraceLevel, event_level
from abl.wording import count

COMMANDS = {
    "/trace": "show the trace level, or set it: /trace minimal|standard|verbose|debug",
    "/vars": "values of the active thread and of every other thread",
    "/history": "the conversation so far, as the customer saw it",
    "/reset": "start over with a fresh session on the same agent",
    "/save": "save the session to a file: /save FILE (resume with --session FILE)",
    "/wait": "let time pass before the next message: /wait 90s (handoff timeouts, queued requests)",
    "/help": "this list",
    "/quit": "leave (Ctrl-D does the same)",
}

_AGENT_STYLE = "bold cyan"
_TRACE_STYLE = "dim"

ReadLine = Callable[[], str]


class ChatLoop:
    """Reads messages and commands until the user leaves; returns the exit code."""

    def __init__(
        self,
        driver: Driver,
        *,
        trace_level: str = "standard",
        color: str = "auto",
        console: Console | None = None,
        read_line: ReadLine | None = None,
    ) -> None:
        self.driver = driver
        self.level = TraceLevel.parse(trace_level)
        self.console = console or Console(
            highlight=False,
            force_terminal=True if color == "always" else None,
            no_color=color == "never",
        )
        self.read_line = read_line or self._prompt_reader()

    # --- the loop ----------------------------------------------------------------------------

    def run(self) -> int:
        session = self.driver.session
        self.console.print(
            Text.assemble(
                "Chatting with ",
                (self.driver.agent, _AGENT_STYLE),
                f" (trace: {self.level.name.lower()}). Type /help for commands, Ctrl-D to leave.",
            )
        )
        if self.driver.resumed:
            self.console.print(
                Text(f"Resumed a saved session ({count(len(session.history), 'message')}).", style=_TRACE_STYLE)
            )
        else:
            self.show_replies(session.greeting)
            self.show_trace([e.to_dict() for e in session.trace])
        self.show_status()
        while True:
            try:
                line = self.read_line()
            except EOFError:
                break
            except KeyboardInterrupt:
                continue
            text = line.strip()
            if not text:
                continue
            if text.startswith("/"):
                if self.command(text) == "quit":
                    break
                continue
            if session.state().ended:
                self.console.print(Text("The session has ended. /reset starts over, /quit leaves.", style="yellow"))
                continue
            turn, events = self.driver.send(text)
            self.show_replies(turn.replies)
            self.show_trace(events)
            self.show_status()
        return 0

    # --- output ------------------------------------------------------------------------------

    def show_replies(self, replies: Iterable[Any]) -> None:
        for reply in replies:
            style = "bold red" if reply.text.startswith("[error]") else _AGENT_STYLE
            self.console.print(Text.assemble((f"[{reply.agent}]", style), " ", reply.text))
            choices = getattr(reply, "choices", ())
            if choices:
                shown = " | ".join(f"{label} ({ident})" for ident, label in choices)
                self.console.print(Text(f"  choices: {shown}", style="italic"))

    def show_trace(self, events: Iterable[Mapping[str, Any]]) -> None:
        for event in events:
            if event_level(str(event.get("type"))) > self.level:
                continue
            shown = dict(event)
            if self.level < TraceLevel.DEBUG and isinstance(shown.get("messages"), Mapping):
                shown["messages"] = {k: v for k, v in shown["messages"].items() if k != "items"}
            style = "red" if event.get("type") in ("error", "memory_error") else _TRACE_STYLE
            self.console.print(Text(f"  · {describe_event(shown)}", style=style))

    def show_status(self) -> None:
        state = self.driver.session.state()
        parts = [f"active: {state.active_agent}"]
        if state.stack:
            parts.append(f"waiting: {' > '.join(state.stack)}")
        # Names starting with `_` are the runtime's own bookkeeping (`_handoff_from`); /vars shows them.
        shown = {k: v for k, v in state.values.items() if not k.startswith("_")}
        if shown:
            parts.append("values: " + ", ".join(f"{k}={show(v, 40)}" for k, v in shown.items()))
        if state.ended:
            parts.append("ended")
        self.console.print(Text("  " + " | ".join(parts), style="italic dim"))
        for problem in self.driver.problems:
            self.console.print(Text(f"  warning: {problem}", style="yellow"))
        self.driver.problems.clear()

    # --- commands ----------------------------------------------------------------------------

    def command(self, text: str) -> str | None:
        try:
            words = shlex.split(text)
        except ValueError as err:
            self.console.print(Text(f"cannot read the command: {err}", style="red"))
            return None
        name, rest = words[0].lower(), words[1:]
        if name in ("/quit", "/exit", "/q"):
            return "quit"
        handler = {
            "/trace": self.cmd_trace,
            "/vars": self.cmd_vars,
            "/history": self.cmd_history,
            "/reset": self.cmd_reset,
            "/save": self.cmd_save,
            "/wait": self.cmd_wait,
            "/help": self.cmd_help,
        }.get(name)
        if handler is None:
            self.console.print(Text(f"unknown command {name}; /help lists the commands", style="red"))
            return None
        handler(rest)
        return None

    def cmd_help(self, _: list[str]) -> None:
        table = Table(show_header=False, box=None, pad_edge=False)
        for name, what in COMMANDS.items():
            table.add_row(Text(name, style="bold"), what)
        self.console.print(table)

    def cmd_trace(self, rest: list[str]) -> None:
        if not rest:
            self.console.print(f"trace level: {self.level.name.lower()} (choose from {', '.join(TRACE_LEVELS)})")
            return
        try:
            self.level = TraceLevel.parse(rest[0])
        except ValueError as err:
            self.console.print(Text(str(err), style="red"))
            return
        self.console.print(f"trace level: {self.level.name.lower()}")

    def cmd_vars(self, _: list[str]) -> None:
        state = self.driver.session.state()
        table = Table(title=f"active: {state.active_agent}", title_justify="left")
        table.add_column("thread")
        table.add_column("agent")
        table.add_column("status")
        table.add_column("values")
        for thread in state.threads:
            values = ", ".join(f"{k}={show(v, 60)}" for k, v in thread.values.items()) or "-"
            table.add_row(thread.id, thread.agent, thread.status, values)
        self.console.print(table)

    def cmd_history(self, _: list[str]) -> None:
        history = self.driver.session.history
        if not history:
            self.console.print("(no messages yet)")
        for message in history:
            who = "you" if message.role == "user" else message.agent or message.role
            style = "bold" if message.role == "user" else _AGENT_STYLE
            self.console.print(Text.assemble((f"[{who}]", style), " ", message.text))

    def cmd_reset(self, _: list[str]) -> None:
        self.driver.reset()
        self.console.print(Text("Started over.", style=_TRACE_STYLE))
        self.show_replies(self.driver.session.greeting)
        self.show_status()

    def cmd_save(self, rest: list[str]) -> None:
        if len(rest) != 1:
            self.console.print(Text("usage: /save FILE", style="red"))
            return
        target = Path(rest[0]).expanduser()
        try:
            self.driver.session.save(target)
        except OSError as err:
            self.console.print(Text(f"cannot save to {target}: {err.strerror or err}", style="red"))
            return
        self.console.print(f"saved to {target} (resume with --session {target})")

    def cmd_wait(self, rest: list[str]) -> None:
        ms = duration_ms(rest[0]) if len(rest) == 1 else None
        if ms is None:
            self.console.print(
                Text("usage: /wait DURATION (for example /wait 90s, /wait 2m, /wait 500ms)", style="red")
            )
            return
        self.driver.wait(ms)
        self.console.print(Text(f"{rest[0]} pass before your next message.", style=_TRACE_STYLE))

    # --- input -------------------------------------------------------------------------------

    def _prompt_reader(self) -> ReadLine:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.completion import WordCompleter

        prompt: PromptSession[str] = PromptSession(
            history=_history(),
            auto_suggest=AutoSuggestFromHistory(),
            completer=WordCompleter(list(COMMANDS) + list(TRACE_LEVELS), sentence=True),
            complete_while_typing=False,
        )

        def toolbar() -> str:
            state = self.driver.session.state()
            waiting = f"  waiting: {' > '.join(state.stack)}" if state.stack else ""
            return f" {state.active_agent}{waiting}  |  trace: {self.level.name.lower()}  |  /help"

        return lambda: prompt.prompt("you> ", bottom_toolbar=toolbar)


def _history() -> Any:
    """Input history kept across runs in the user's state folder, or in memory when it cannot be."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    folder = Path(base) / "abl"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "chat-history"
        path.touch(exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))

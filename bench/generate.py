"""Generate a realistic ABL project (and the same content as YAML) for benchmarks.

Each agent is about 25 lines, shaped like the agents in the documentation: a goal, a persona
pipe block, gather fields, memory, and returnable and permanent routes with history settings.
"""

from __future__ import annotations

from pathlib import Path

MODES = ["full", "none", "last_5", "summary_only"]


def agent_text(i: int, n: int) -> str:
    nxt = f"Agent_{(i + 1) % n:05d}"
    other = f"Agent_{(i + 7) % n:05d}"
    return f"""AGENT: Agent_{i:05d}
GOAL: "Handle request family {i} and route onwards when needed"
PERSONA: |
  Calm, precise specialist number {i}.
  Confirms details before acting.
GATHER:
  order_id:
    PROMPT: "What is your order number?"
    TYPE: string
    REQUIRED: true
  amount:
    PROMPT: "How much?"
    TYPE: number
    REQUIRED: false
MEMORY:
  session:
    - note_{i}
      TYPE: string
HANDOFF:
  - TO: {nxt}
    WHEN: order_id IS SET AND amount > {i % 100}
    PASS: [order_id, amount]
    HISTORY: {MODES[i % len(MODES)]}
    SUMMARY: "Continue request {i}"
    RETURN: true
    ON_RETURN:
      action: resume_intent
      MAP:
        order_id: order_id
      SET:
        note_{i}: "returned"
    ON_FAILURE: CONTINUE
  - TO: {other}
    WHEN: "the customer asks about something else"
    HISTORY: full
    RETURN: false
    ON_FAILURE: ESCALATE
COMPLETE:
  - WHEN: order_id IS SET AND amount IS SET
    RESPOND: "Done with {{{{order_id}}}}."
"""


def agent_yaml(i: int, n: int) -> str:
    nxt = f"Agent_{(i + 1) % n:05d}"
    other = f"Agent_{(i + 7) % n:05d}"
    return f"""  - name: Agent_{i:05d}
    goal: "Handle request family {i} and route onwards when needed"
    persona: |
      Calm, precise specialist number {i}.
      Confirms details before acting.
    gather:
      order_id:
        prompt: "What is your order number?"
        type: string
        required: true
      amount:
        prompt: "How much?"
        type: number
        required: false
    memory:
      session:
        - name: note_{i}
          type: string
    handoff:
      - to: {nxt}
        when: order_id IS SET AND amount > {i % 100}
        pass: [order_id, amount]
        history: {MODES[i % len(MODES)]}
        summary: "Continue request {i}"
        return: true
        on_return:
          action: resume_intent
          map:
            order_id: order_id
          set:
            note_{i}: "returned"
        on_failure: CONTINUE
      - to: {other}
        when: "the customer asks about something else"
        history: full
        return: false
        on_failure: ESCALATE
    complete:
      - when: order_id IS SET AND amount IS SET
        respond: "Done with {{{{order_id}}}}."
"""


def project(n_agents: int) -> str:
    return "\n".join(agent_text(i, n_agents) for i in range(n_agents))


def project_yaml(n_agents: int) -> str:
    return "version: 1\nagents:\n" + "".join(agent_yaml(i, n_agents) for i in range(n_agents))


def agents_for_lines(lines: int) -> int:
    per = project(2).count("\n") / 2
    return max(2, round(lines / per))


def write_project(root: Path, n_agents: int, per_file: int = 20) -> list[Path]:
    """Write the project as several `.agent.abl` files (a few agents per file)."""
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for start in range(0, n_agents, per_file):
        p = root / f"agents_{start:05d}.agent.abl"
        p.write_text(
            "\n".join(agent_text(i, n_agents) for i in range(start, min(n_agents, start + per_file))), encoding="utf-8"
        )
        paths.append(p)
    return paths

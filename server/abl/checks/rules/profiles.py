"""Behavior profiles: the two declarations every profile file needs, and attached names that exist.

## What it does
- `INCOMPLETE_BEHAVIOR_PROFILE`: a `BEHAVIOR_PROFILE:` document without `PRIORITY` or `WHEN`
  (reported once on the header, naming what is missing);
- `UNKNOWN_BEHAVIOR_PROFILE`: `USE BEHAVIOR_PROFILE:` (or `USE_BEHAVIOR_PROFILE:`) names a
  profile that no document of the project declares. Names are compared exactly, as the
  platform does; a near miss is offered as the fix.

## Why is this bad?
The project import rejects both ("BEHAVIOR_PROFILE requires a PRIORITY declaration", a missing
profile reference), so nothing deploys.

## Fix safety
Attaching a different profile changes how the agent behaves: unsafe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import quoted_list
from abl.model import Agent
from abl.model.types import AgentKind
from abl.schema.keywords.profiles import USE_BEHAVIOR_PROFILE
from abl.suggest import did_you_mean_name
from abl.syntax.values import unquote

_USE_KEYS = frozenset(spelling.upper() for spelling in USE_BEHAVIOR_PROFILE.spellings)


@agent_rule("INCOMPLETE_BEHAVIOR_PROFILE")
def incomplete_behavior_profile(check: Check, agent: Agent) -> None:
    if agent.kind is not AgentKind.BEHAVIOR_PROFILE or not agent.name.text:
        return
    written = {node.key.upper() for node in agent.sections[1:] if node.is_entry}
    needs = {"PRIORITY": "how it ranks (a number; higher wins)", "WHEN": "when it applies (`true` for always)"}
    missing = [key for key in needs if key not in written]
    if not missing:
        return
    declarations = " and ".join(f"a {key} declaration" for key in missing)
    says = " or ".join(needs[key] for key in missing)
    adds = " and ".join(f"`{key}:`" for key in missing)
    check.report(
        "INCOMPLETE_BEHAVIOR_PROFILE",
        f"BEHAVIOR_PROFILE requires {declarations}: `{agent.name.text}` does not say {says}, "
        f"so the import rejects it; add {adds}",
        agent.name.range,
    )


@agent_rule("UNKNOWN_BEHAVIOR_PROFILE")
def unknown_behavior_profile(check: Check, agent: Agent) -> None:
    if agent.kind is AgentKind.BEHAVIOR_PROFILE:
        return
    uses = [n for n in agent.sections[1:] if n.is_entry and n.key.upper() in _USE_KEYS and n.has_value]
    if not uses:
        return  # most agents attach no profile: don't walk the project for them
    declared = {profile.name.text for profile in check.project.behavior_profiles() if profile.name.text}
    profiles = sorted(declared)
    for node in uses:
        name, _ = unquote(node.value.strip())
        if not name or name in declared:
            continue
        guess = did_you_mean_name(name, profiles)
        offered = fixes.use_instead(guess, node.value_range)
        known = quoted_list([f"`{p}`" for p in profiles])  # a few, and how many more
        hint = f"; did you mean `{guess}`?" if guess else ""
        check.report(
            "UNKNOWN_BEHAVIOR_PROFILE",
            f"`{agent.name.text}` uses behavior profile `{name}`, which no file of the project declares "
            f"(profiles: {known}), so the import rejects it{hint}",
            node.value_range,
            fixes=offered,
        )

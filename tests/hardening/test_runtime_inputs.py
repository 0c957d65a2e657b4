"""What a customer types, or a mocks or test file holds, never crashes or stalls a run.

Each test keeps an input that once failed: a number of 4,301+ digits (a `ValueError` when the
session was saved or traced), date-like and long-digit messages that took quadratic time in the
embedded extractors, an author's `extraction_pattern` with catastrophic backtracking, template
output without bound, a "billion laughs" mocks file and 5,000 nested brackets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abl.cli.main import main
from abl.runtime import RuntimeOptions, start_session
from abl.runtime.models.numbers import MAX_DIGITS, find_numbers
from abl.runtime.models.spans import Spans
from abl.runtime.session_file import read_session
from abl.runtime.templates import MAX_OUTPUT, render
from abl.runtime.testing.yamlread import MAX_NESTING, MAX_VALUES, FormatError, _Builder, plain, read_yaml
from abl.runtime.trace import json_number, to_json, to_json_data
from abl.runtime.turn import MAX_MESSAGE_CHARS
from abl.workspace import Project

DESK = """AGENT: Details_Desk
GOAL: "Take an amount, a date, a phone number and a reference"

GATHER:
  amount:
    PROMPT: "How much?"
    TYPE: number
  day:
    PROMPT: "Which day?"
    TYPE: date
  phone:
    PROMPT: "Your phone number?"
    TYPE: phone
  reference:
    PROMPT: "Your reference?"
    TYPE: string
    EXTRACTION_PATTERN: "{pattern}"

COMPLETE:
  - WHEN: amount IS SET AND day IS SET AND phone IS SET AND reference IS SET
    RESPOND: "Booked {{{{amount}}}} on {{{{day}}}}."
"""


def project(pattern: str = "REF-(\\\\d+)") -> Project:
    loaded = Project("<memory>")
    loaded.update("/mem/desk.agent.abl", DESK.format(pattern=pattern))
    return loaded


def saved_and_traced(session) -> None:
    """Everything a run writes can be written: the session and every trace line."""
    data = read_session(json.dumps(session.to_dict()))
    assert data["format"] == "abl-session"
    for event in session.trace:
        json.loads(to_json(event))


@pytest.mark.parametrize("digits", [4_301, 5_000, 100_000])
def test_a_number_of_thousands_of_digits_is_no_amount(digits: int) -> None:
    session = start_session(project(), "Details_Desk", RuntimeOptions())
    session.send("1" * digits)
    assert "amount" not in session.state().values
    saved_and_traced(session)


def test_numbers_up_to_the_limit_are_still_read() -> None:
    assert find_numbers("9" * MAX_DIGITS)[0].value == int("9" * MAX_DIGITS)
    assert find_numbers("9" * (MAX_DIGITS + 1)) == []


@pytest.mark.parametrize(
    "message",
    [
        "1" * 1_000_000,  # 23 s before the digits were capped
        "3/3/1990 " * 40_000,  # every date checked against every other: quadratic
        "1 " * 20_000,
        "twenty one " * 5_000,
        "+1 (" * 10_000,
    ],
    ids=["digits", "dates", "spaced-digits", "number-words", "phone-starts"],
)
def test_long_messages_are_read_in_one_pass(message: str) -> None:
    session = start_session(project(), "Details_Desk", RuntimeOptions())
    turn = session.send(message[:MAX_MESSAGE_CHARS])
    assert turn.replies
    saved_and_traced(session)


def test_a_message_over_the_limit_is_refused_with_a_clear_reply() -> None:
    session = start_session(project(), "Details_Desk", RuntimeOptions())
    turn = session.send("x" * (MAX_MESSAGE_CHARS + 1))
    assert [r.text for r in turn.replies] == [
        f"[error] the message was not read: it is {MAX_MESSAGE_CHARS + 1:,} characters long; "
        f"messages are limited to {MAX_MESSAGE_CHARS:,} characters"
    ]
    (error,) = [e for e in turn.events if e.type == "error"]
    assert error.fields["code"] == "message_too_long"
    assert len(session.history[-2].text) == MAX_MESSAGE_CHARS
    assert session.send("250").replies  # the session goes on


def test_an_extraction_pattern_that_backtracks_forever_is_stopped() -> None:
    session = start_session(project("^(a+)+$"), "Details_Desk", RuntimeOptions())
    turn = session.send("a" * 40 + "b")
    (error,) = [e for e in turn.events if e.type == "error"]
    assert "extraction_pattern '^(a+)+$' was not used: it ran longer than" in error.fields["message"]
    assert session.send("250").replies  # the next turn runs normally


def test_template_output_is_capped() -> None:
    result = render("{{#each items}}{{this}}{{/each}}", {"items": ["x" * 1_000] * 1_000})
    assert len(result.text) == MAX_OUTPUT
    assert result.errors == [f"the output is longer than {MAX_OUTPUT:,} characters; it was cut there"]


def test_numbers_json_cannot_hold_become_text() -> None:
    huge = 10**5000
    assert json_number(float("inf")) == "Infinity"
    assert json_number(float("nan")) == "NaN"
    assert json_number(huge) == "[a number of about 5,000 digits]"
    assert json.loads(json.dumps(to_json_data({"a": [huge, float("-inf")]}))) == {
        "a": ["[a number of about 5,000 digits]", "-Infinity"]
    }
    assert render("{{n}}", {"n": huge}).text == "[a number of about 5,000 digits]"


def test_spans_answer_overlaps_like_a_scan() -> None:
    spans = Spans()
    assert spans.add(10, 20) and spans.add(30, 40) and spans.add(20, 30)
    assert not spans.add(15, 16) and not spans.add(39, 45) and not spans.add(0, 11)
    assert spans.add(0, 10) and spans.add(40, 41) and len(spans) == 5
    assert not spans.overlaps(41, 50) and spans.overlaps(5, 6)


# --- YAML: mocks and conversation tests ----------------------------------------------------------

LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)

# Shallow as written, each anchor one list deeper than the last once its alias is followed.
ALIAS_CHAIN = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 3_000))
# Each mapping merges the last and adds a key: the values grow in the square of the lines.
MERGE_CHAIN = "a0: &a0 {k: x}\n" + "".join(f"a{i}: &a{i} {{<<: *a{i - 1}, k{i}: y}}\n" for i in range(1, 400))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (LAUGHS, f"more than {MAX_VALUES:,} values once its aliases"),
        ("[" * 5_000, f"nested more than {MAX_NESTING} deep"),
        ("{a: " * 3_000, f"nested more than {MAX_NESTING} deep"),
        ("- " * 3_000 + "x", f"nested more than {MAX_NESTING} deep"),
        ("tool: " + "1" * 5_000, "is too long"),
        ("tool: !!binary aGVsbG8=", "binary values"),
        ("tool: .inf", "is not finite"),
        (ALIAS_CHAIN, f"nested more than {MAX_NESTING} deep once its aliases"),
        (MERGE_CHAIN, f"more than {MAX_VALUES:,} values once its aliases"),
        ("a: {<<: x}", "a merge key (`<<`) takes a mapping or a list of mappings"),
        ("a: &a {k: 1}\nb: {<<: [*a, 2]}", "a merge key (`<<`) takes a mapping or a list of mappings"),
        ("a: &a {<<: *a}", "an alias refers to the collection that contains it"),
        ("a: &a [x, *a]", "an alias refers to the collection that contains it"),
    ],
    ids=[
        "billion-laughs",
        "brackets",
        "flow-maps",
        "dashes",
        "long-int",
        "binary",
        "infinity",
        "alias-chain",
        "merge-chain",
        "merge-of-a-scalar",
        "merge-of-a-list-holding-a-scalar",
        "merge-of-itself",
        "alias-of-its-own-list",
    ],
)
def test_hostile_yaml_is_a_format_error_with_a_line(text: str, problem: str) -> None:
    with pytest.raises(FormatError) as caught:
        read_yaml("mocks.yaml", text)
    assert problem in str(caught.value)
    assert str(caught.value).startswith("mocks.yaml:")


@pytest.mark.parametrize("opener", ["[", "{a: "])
def test_a_tower_of_brackets_is_refused_where_it_passes_the_limit(opener: str) -> None:
    # Read as it is scanned (the scanner's work per bracket grows with the depth), not after.
    with pytest.raises(FormatError) as caught:
        read_yaml("mocks.yaml", "tool: " + opener * 200_000)
    assert caught.value.line == 1
    assert caught.value.column is not None and caught.value.column <= len("tool: ") + len(opener) * MAX_NESTING + 1


def test_aliases_within_the_budget_still_work() -> None:
    data = read_yaml("t.yaml", "base: &b {plan: gold}\nfirst: *b\nsecond: *b\n")
    assert data["first"] == data["second"] == {"plan": "gold"}


def test_a_written_key_overrides_a_merged_one() -> None:
    data = read_yaml("t.yaml", "base: &b {status: ok, eta: 2}\norder:\n  <<: *b\n  eta: 5\n")
    assert plain(data["order"]) == {"status": "ok", "eta": 5}
    assert data["order"].line_of("eta") == 4 and data["order"].line_of("status") == 1


def test_of_several_merged_mappings_the_first_holding_a_key_gives_it() -> None:
    text = "a: &a {k: 1, j: 2}\nb: &b {k: 3, m: [x]}\nc:\n  <<: [*b, *a]\n  j: {n: 4}\n"
    data = read_yaml("t.yaml", text)
    assert plain(data["c"]) == {"k": 3, "m": ["x"], "j": {"n": 4}}
    assert "j" not in data["c"].raw  # the merged scalar's text is gone with it


def test_a_key_written_twice_beside_a_merge_is_still_a_duplicate() -> None:
    with pytest.raises(FormatError, match="duplicate key 'eta'"):
        read_yaml("t.yaml", "base: &b {eta: 2}\norder:\n  <<: *b\n  eta: 5\n  eta: 6\n")


def test_a_billion_laughs_is_refused_before_anything_is_built() -> None:
    # Measured on the composed graph, once per node: the refusal takes the time of a small file.
    laughs = LAUGHS + "".join(
        f"{chr(106 + i)}: &{chr(106 + i)} [{','.join([f'*{chr(105 + i)}'] * 9)}]\n" for i in range(8)
    )
    calls = 0
    real_build = _Builder.build

    def counting_build(self: _Builder, node: object) -> object:
        nonlocal calls
        calls += 1
        return real_build(self, node)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Builder, "build", counting_build)
        with pytest.raises(FormatError, match="values once its aliases"):
            read_yaml("mocks.yaml", laughs)
    assert calls == 0


def test_abl_run_refuses_a_billion_laughs_mocks_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(LAUGHS, encoding="utf-8")
    script = tmp_path / "script.txt"
    script.write_text("hi\n", encoding="utf-8")
    examples = Path(__file__).resolve().parents[2] / "examples" / "retail-hub"
    code = main(["run", str(examples), "--mocks", str(mocks), "--script", str(script)])
    err = capsys.readouterr().err
    assert code == 2
    assert "bad --mocks file" in err and "aliases" in err and "Traceback" not in err

"""History selection (seed 000, "How it works" and "Rules that apply to every value"), as pure functions."""

from __future__ import annotations

import pytest

from abl.runtime.history import (
    Entry,
    full,
    joins_parent,
    last_n,
    replies_joining_parent,
    resolve_mode,
    select,
    units,
)


def conversation(spec: str, thread: str = "t1") -> list[Entry]:
    """`u a u a` -> alternating user/assistant messages; `c1 r1` -> tool call and result with id 1."""
    out: list[Entry] = []
    for seq, token in enumerate(spec.split(), start=1):
        if token == "u":
            out.append(Entry("user", f"user {seq}", "Hub", seq, thread))
        elif token == "a":
            out.append(Entry("assistant", f"reply {seq}", "Hub", seq, thread))
        elif token.startswith("c"):
            out.append(Entry("assistant", f"call {token[1:]}", "Hub", seq, thread, f"call-{token[1:]}"))
        elif token.startswith("r"):
            out.append(Entry("tool", f"result {token[1:]}", "Hub", seq, thread, f"call-{token[1:]}"))
        else:
            raise ValueError(token)
    return out


def seqs(entries) -> list[int]:
    return [e.seq for e in entries]


# --- last_n --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "n", "expected"),
    [
        ("u a u a u a u a", 6, [3, 4, 5, 6, 7, 8]),  # long conversation: the most recent six
        ("u a u", 6, [1, 2, 3]),  # shorter than the window: everything
        ("", 6, []),
        ("u a u a", 1, [4]),  # the count is in messages, not turns
        ("u a u a", 2, [3, 4]),  # one user message and one reply are two messages
        ("u c1 r1 a", 3, [2, 3, 4]),  # the pair fits whole
        ("u c1 r1 a", 2, [4]),  # the pair would be split: it is left out, with what is older
        ("u a c1 r1", 2, [3, 4]),
        ("u a c1 r1", 1, []),  # the newest unit is larger than N: nothing
        ("u c1 r1 r1", 2, []),  # a call with two results is a unit of three
        ("u c1 r1 r1", 3, [2, 3, 4]),
        ("u c1 r1 u c2 r2", 5, [2, 3, 4, 5, 6]),
        ("u c1 r1 u c2 r2", 4, [4, 5, 6]),  # a contiguous tail: the older lone message is not taken
        ("u a u a", 0, []),
    ],
)
def test_last_n_takes_whole_units_from_the_newest(spec: str, n: int, expected: list[int]) -> None:
    assert seqs(last_n(conversation(spec), n)) == expected


def test_a_tool_call_and_its_result_form_one_unit() -> None:
    grouped = units(conversation("u c1 r1 a c2 r2 r2"))
    assert [len(u) for u in grouped] == [1, 2, 1, 3]


def test_a_result_without_its_call_is_a_unit_of_its_own() -> None:
    assert [len(u) for u in units(conversation("r1 u"))] == [1, 1]


# --- full ----------------------------------------------------------------------------------------


def test_full_is_the_callers_conversation() -> None:
    caller = conversation("u a u a")
    assert seqs(full(caller, [])) == [1, 2, 3, 4]


def test_full_adds_customer_messages_that_earlier_children_handled() -> None:
    caller = [Entry("user", "I want a loan", "Sup", 1, "t1")]
    child = [
        Entry("user", "I want a loan", "Sup", 1, "t1"),  # the forwarded message: already there
        Entry("assistant", "What is your income?", "Income", 2, "t2"),
        Entry("user", "85000", "Income", 3, "t2"),
        Entry("assistant", "Thanks.", "Income", 4, "t2"),
    ]
    chosen = full(caller, child)
    assert [e.text for e in chosen] == ["I want a loan", "85000"]  # customer turns only, once each


def test_full_leaves_out_children_that_gathered_a_sensitive_field() -> None:
    caller = [
        Entry("user", "check my balance", "Bank", 1, "t1"),
        Entry("assistant", "[Pin_Agent]: PIN accepted", "Pin_Agent", 4, "t2"),  # joined on return
        Entry("user", "and my card?", "Bank", 5, "t1"),
    ]
    pin_child = [
        Entry("assistant", "Your PIN?", "Pin_Agent", 2, "t2"),
        Entry("user", "4321", "Pin_Agent", 3, "t2"),
    ]
    chosen = full(caller, pin_child, excluded_threads={"t2"})
    assert [e.text for e in chosen] == ["check my balance", "and my card?"]


def test_full_keeps_session_order() -> None:
    caller = [Entry("user", "a", "Hub", 1, "t1"), Entry("user", "c", "Hub", 5, "t1")]
    child = [Entry("user", "b", "X", 3, "t2")]
    assert [e.text for e in full(caller, child)] == ["a", "b", "c"]


# --- select and auto -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "count", "summary", "expected_mode", "expected_count"),
    [
        ("full", None, "", "full", None),
        ("none", None, "", "none", None),
        ("summary_only", None, "text", "summary_only", None),
        ("auto", None, "Collect the income.", "summary_only", None),
        ("auto", None, "  ", "last_n", 5),  # no summary text: the last five messages
        ("last_n", 3, "", "last_n", 3),
        ("last_n", None, "", "full", None),
    ],
)
def test_resolve_mode(mode, count, summary, expected_mode, expected_count) -> None:
    assert resolve_mode(mode, count, summary) == (expected_mode, expected_count)


def test_select_none_and_summary_only_copy_nothing() -> None:
    caller = conversation("u a u a")
    assert select("none", None, "", caller).messages == ()
    assert select("summary_only", None, "Why", caller).messages == ()


def test_select_auto_without_summary_takes_five() -> None:
    caller = conversation("u a u a u a u a")
    chosen = select("auto", None, "", caller)
    assert (chosen.mode, chosen.count, seqs(chosen.messages)) == ("last_n", 5, [4, 5, 6, 7, 8])


def test_select_auto_with_summary_is_summary_only() -> None:
    chosen = select("auto", None, "The customer wants a refund.", conversation("u a"))
    assert (chosen.mode, chosen.messages) == ("summary_only", ())


def test_select_full_uses_children_and_exclusions() -> None:
    caller = conversation("u a")
    child = [Entry("user", "secret", "Pin", 3, "t9"), Entry("user", "hello", "Other", 4, "t8")]
    chosen = select("full", None, "", caller, child, excluded_threads=["t9"])
    assert [e.text for e in chosen.messages] == ["user 1", "reply 2", "hello"]


# --- what comes back on return -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "joins"), [("full", True), ("last_n", True), ("none", False), ("summary_only", False)]
)
def test_child_replies_join_the_parent_only_with_full_or_last_n(mode: str, joins: bool) -> None:
    child = [
        Entry("user", "I want a loan", "Sup", 1, "t1"),
        Entry("assistant", "What is your income?", "Income", 2, "t2"),
        Entry("user", "85000", "Income", 3, "t2"),
        Entry("assistant", "Thanks.", "Income", 4, "t2"),
    ]
    assert joins_parent(mode) is joins
    joined = replies_joining_parent(mode, child, {"t2"})
    assert [e.text for e in joined] == (["What is your income?", "Thanks."] if joins else [])

"""`{{ }}` template rendering."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from abl.expr import Environment
from abl.runtime.templates import MISSING, MaskRule, format_value, render

VALUES: dict[str, Any] = {
    "order_id": "ORD-20931",
    "annual_income": 85000.0,
    "customer": {"name": "Ann", "tier": "gold", "address": None},
    "items": [{"sku": "A1", "qty": 2, "price": 9.5}, {"sku": "B2", "qty": 1, "price": 20}],
    "tags": ["new", "vip"],
    "empty": [],
    "ready": True,
    "zero": 0,
    "false_text": "false",
    "prices": {"small": 5, "large": 9},
    "pin": "482913",
    "card": {"number": "4111111111111111"},
}

CASES = [
    # (template, text, missing)
    ("Order {{order_id}} is on its way.", "Order ORD-20931 is on its way.", []),
    ("Order {{ order_id }}.", "Order ORD-20931.", []),
    ("{{{order_id}}}", "ORD-20931", []),
    ("Income {{annual_income}}", "Income 85000", []),
    ("Hi {{customer.name}} ({{customer.tier}})", "Hi Ann (gold)", []),
    ("{{items[0].sku}} x{{items[1].qty}}", "A1 x1", []),
    ('{{prices["large"]}}', "9", []),
    ("{{tags}}", "new, vip", []),
    ("{{ready}} {{zero}}", "true 0", []),
    ("A single {brace} stays", "A single {brace} stays", []),
    ("{x} and {{x}}", "{x} and ", ["x"]),
    (
        "Dear {{nobody}}, {{customer.nickname}} {{items[5].sku}}",
        "Dear ,  ",
        ["nobody", "customer.nickname", "items[5].sku"],
    ),
    ("{{customer.address}}", "", ["customer.address"]),
    ("{{nobody}}{{nobody}}", "", ["nobody"]),
    ("{{#if ready}}yes{{else}}no{{/if}}", "yes", []),
    ("{{#if zero}}yes{{else}}no{{/if}}", "no", []),
    ("{{#if false_text}}yes{{else}}no{{/if}}", "no", []),
    ("{{#if empty}}yes{{else}}no{{/if}}", "no", []),
    ("{{#if unknown}}yes{{/if}}", "", []),
    ("{{#unless ready}}wait{{else}}go{{/unless}}", "go", []),
    ("{{#if ready}}{{#if zero}}a{{else}}b{{/if}}{{/if}}", "b", []),
    ("{{#each items}}{{this.sku}}:{{qty}};{{/each}}", "A1:2;B2:1;", []),
    ("{{#each tags}}[{{@index}} {{this}}]{{/each}}", "[0 new][1 vip]", []),
    ("{{#each prices}}{{@key}}={{this}} {{/each}}", "small=5 large=9 ", []),
    ("{{#each empty}}x{{else}}none{{/each}}", "none", []),
    ("{{#each missing_list}}x{{else}}none{{/each}}", "none", []),
    ("{{#each items}}{{order_id}}/{{sku}} {{/each}}", "ORD-20931/A1 ORD-20931/B2 ", []),
    ("{{#each items}}{{this.colour}}{{/each}}", "", ["this.colour"]),
    ("{{! a note }}kept", "kept", []),
    # Expressions and functions go to abl.expr.
    ("{{UPPER(customer.name)}}", "ANN", []),
    ("{{ROUND(DIV(annual_income, 12), 2)}}", "7083.33", []),
    ('{{FORMAT_CURRENCY(annual_income, "USD")}}', "$85,000.00", []),
    ("{{#each items}}{{MUL(qty, price)}} {{/each}}", "19 20 ", []),
    ("{{#if annual_income > 50000}}high{{else}}low{{/if}}", "high", []),
    ("{{COALESCE(nickname, customer.name)}}", "Ann", []),
    ("{{ADD(nothing, 1)}}", "1", []),
    ("{{UPPER(nobody)}}", "", ["nobody"]),
]


@pytest.mark.parametrize(("template", "text", "missing"), CASES)
def test_render(template: str, text: str, missing: list[str]) -> None:
    result = render(template, VALUES)
    assert (result.text, result.missing, result.errors) == (text, missing, [])


@pytest.mark.parametrize(
    ("template", "text", "error"),
    [
        ("{{#if ready}}open", "open", "`{{#if ready}}` is never closed with `{{/if}}`"),
        ("stray {{/each}}", "stray {{/each}}", "`{{/each}}` closes a block that is not open"),
        ("{{else}}", "{{else}}", "`{{else}}` outside an `{{#if}}`, `{{#unless}}` or `{{#each}}` block"),
        ("a {{ }} b", "a {{ }} b", "empty `{{ }}` tag"),
        ("{{UPPER(}}", "", "`{{UPPER(}}`: unclosed `(`: add `)`"),
        ('{{"hello there friend"}}', "", "quoted text is not an expression"),
        ("{{#each}}x{{/each}}", "", "`{{#each}}` needs a condition or a collection"),
    ],
)
def test_malformed_templates_report_errors_and_never_raise(template: str, text: str, error: str) -> None:
    result = render(template, VALUES)
    assert result.text == text
    assert any(error in problem for problem in result.errors), result.errors


@pytest.mark.parametrize(
    ("template", "text"),
    [("{{ unclosed", "{{ unclosed"), ("{{a}", "{{a}"), ("}} {{", "}} {{"), ("{{b {{a}}", "{{b 1")],
)
def test_unterminated_tags_stay_text(template: str, text: str) -> None:
    result = render(template, {"a": 1})
    assert (result.text, result.errors) == (text, [])


def test_quotes_inside_a_tag_may_hold_braces() -> None:
    result = render('{{REPLACE("a}}b", "}}", "-")}}|{{order_id}}', VALUES)
    assert (result.text, result.errors) == ("a-b|ORD-20931", [])


def test_lookup_function_and_missing_marker() -> None:
    def lookup(name: str) -> Any:
        if name == "known":
            return "yes"
        if name == "raises":
            raise KeyError(name)
        return MISSING

    result = render("{{known}} {{raises}} {{other}}", lookup)
    assert (result.text, result.missing) == ("yes  ", ["raises", "other"])


@pytest.mark.parametrize(
    ("rule", "template", "text"),
    [
        (MaskRule(), "PIN {{pin}}", "PIN **2913"),
        (MaskRule(show_last=0), "PIN {{pin}}", "PIN ******"),
        (MaskRule(show_first=2, show_last=2, char="#"), "PIN {{pin}}", "PIN 48##13"),
        (MaskRule(show_last=8), "PIN {{pin}}", "PIN ******"),  # too short to show anything
        (MaskRule(display="redact"), "PIN {{pin}}", "PIN [redacted]"),
        (MaskRule(display="replace", replacement="<hidden>"), "PIN {{pin}}", "PIN <hidden>"),
        (MaskRule(), "{{UPPER(pin)}}", "**2913"),
        (MaskRule(), '{{MASK(pin, "first4")}}', "4829**"),
    ],
)
def test_sensitive_values_render_masked(rule: MaskRule, template: str, text: str) -> None:
    assert render(template, VALUES, masks={"pin": rule}).text == text


def test_mask_follows_a_root_into_paths_and_loops() -> None:
    masks = {"card": MaskRule(), "tags": MaskRule(display="redact")}
    result = render("{{card.number}} {{#each tags}}{{this}},{{/each}}", VALUES, masks=masks)
    assert result.text == "************1111 [redacted],[redacted],"


def test_unmasked_render_shows_the_value() -> None:
    assert render("PIN {{pin}}", VALUES).text == "PIN 482913"


def test_now_uses_the_given_environment() -> None:
    environment = Environment(now=lambda: datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc))
    result = render('{{FORMAT_DATE(NOW(), "YYYY-MM-DD HH:mm")}}', {}, environment=environment)
    assert result.text == "2026-01-01 12:00"


def test_render_never_evaluates_python() -> None:
    result = render("{{__import__('os').getcwd()}}", {})
    assert result.text == "" and result.errors


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, ""), (True, "true"), (3.0, "3"), (2.5, "2.5"), (["a", 1], "a, 1"), ({"b": 1, "a": 2}, '{"a": 2, "b": 1}')],
)
def test_format_value(value: Any, text: str) -> None:
    assert format_value(value) == text

"""JavaScript string and number semantics the files and rows depend on (spec §16 item 10)."""

from __future__ import annotations

import pytest

from loomtui.session.jsstr import js_json, js_number, js_trim, utf16_len, utf16_slice


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5e-06, "0.000005"),
        (1e-06, "0.000001"),
        (1e-07, "1e-7"),
        (1.5e-07, "1.5e-7"),
        (-3.25e-09, "-3.25e-9"),
        (0.1, "0.1"),
        (0.047462500000000005, "0.047462500000000005"),
        (123.456, "123.456"),
        (2.0, "2"),
        (-0.0, "0"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (2.5e25, "2.5e+25"),
        (123456789012345680000.0, "123456789012345680000"),
        (12345678901234567890, "12345678901234567000"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (42, "42"),
        (True, "true"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
    ],
)
def test_js_number_prints_like_javascript(value, expected):
    assert js_number(value) == expected


def test_js_json_is_json_stringify():
    value = {"b": 1, "a": [None, True, 0.5, 'x"\\\n\t\u2028\x7f\x01'], "c": {}, "n": float("nan")}
    assert js_json(value) == '{"b":1,"a":[null,true,0.5,"x\\"\\\\\\n\\t\u2028\x7f\\u0001"],"c":{},"n":null}'


def test_js_json_escapes_lone_surrogates_and_keeps_pairs():
    assert js_json("a\ud800b") == '"a\\ud800b"'
    assert js_json("\udc00") == '"\\udc00"'
    assert js_json("😀") == '"😀"'
    js_json("a\ud800b").encode("utf-8")  # never raises


def test_utf16_length_and_slice_count_code_units():
    assert utf16_len("abc") == 3
    assert utf16_len("a😀b") == 4
    assert utf16_len("é") == 1
    assert utf16_slice("a😀b", 2) == "a\ufffd"  # a pair cut in half shows as U+FFFD
    assert utf16_slice("a😀b", 3) == "a😀"
    assert utf16_slice("a😀b", 10) == "a😀b"
    assert utf16_slice("x" * 500, 200) == "x" * 200
    assert utf16_slice("é" * 300, 200) == "é" * 200
    assert utf16_slice("abc", 0) == ""


def test_js_trim_uses_ecmascript_whitespace():
    assert js_trim("\ufeff\u00a0 x \u3000\n") == "x"
    assert js_trim("\u200b x") == "\u200b x"  # zero-width space is not whitespace in JS

"""A file that does not parse is refused in plain words: where it goes wrong, never the
parser's exception text (issue 34 item 5)."""

from __future__ import annotations

import pytest

from planner.domain.asbuilt.parsers import ParseError, parse_lldp_csv, parse_lldp_json

PYTHON_WORDS = ("Expecting", "delimiter", "char ", "field limit", "Error", "universal-newline")


def test_lldp_json_that_does_not_parse_says_where():
    with pytest.raises(ParseError) as refused:
        parse_lldp_json('{"lldp": {"interface": [1,, 2]}}')
    message = str(refused.value)
    assert message == "not valid JSON (line 1, column 27)"  # the second comma
    assert not any(word in message for word in PYTHON_WORDS)


def test_an_lldp_csv_the_csv_module_cannot_read_is_named_in_plain_words():
    text = "local_device,local_port,remote_device,remote_port\nleaf-1,1," + "x" * 200_000 + ",1\n"
    with pytest.raises(ParseError) as refused:
        parse_lldp_csv(text)
    message = str(refused.value)
    assert message == "not readable as CSV: a field is longer than the longest a cell may be"
    assert not any(word in message for word in PYTHON_WORDS)

"""A file that does not parse, in plain words: where it goes wrong, never the parser's own
exception text (which reads like Python: "Expecting ',' delimiter: line 1 column 9 (char 8)",
"new-line character seen in unquoted field - do you need to open the file in
universal-newline mode?"). Pure: no Django.
"""

from __future__ import annotations

import csv

#: The csv module's messages (CPython's _csv.c) and what they mean to someone with the file.
CSV_MESSAGES = {
    "field larger than field limit": "a field is longer than the longest a cell may be",
    "line contains nul": "a line holds a NUL character (a binary file?)",
    "new-line character seen in unquoted field": "a line break inside a field that is not quoted",
    "unexpected end of data": "the file ends inside a quoted field",
    "',' expected after '\"'": "a quoted field is followed by text before the next comma",
}


def json_error_text(error: ValueError) -> str:
    """``not valid JSON (line 3, column 9)`` for a :class:`json.JSONDecodeError`; for any
    other error (text that is not UTF-8, say) ``not valid JSON``.

    >>> import json
    >>> try:
    ...     json.loads('{"a": 1,,}')
    ... except ValueError as error:
    ...     print(json_error_text(error))
    not valid JSON (line 1, column 9)
    """
    line, column = getattr(error, "lineno", None), getattr(error, "colno", None)
    where = f" (line {line:,}, column {column:,})" if line and column else ""
    return f"not valid JSON{where}"


def csv_error_text(error: csv.Error) -> str:
    """What a :class:`csv.Error` means, in plain words.

    >>> import csv, io
    >>> try:
    ...     list(csv.reader(io.StringIO("a," + "b" * 200_000)))
    ... except csv.Error as error:
    ...     print(csv_error_text(error))
    not readable as CSV: a field is longer than the longest a cell may be
    >>> print(csv_error_text(csv.Error("something new")))
    not readable as CSV
    """
    text = str(error).lower()
    meaning = next((words for key, words in CSV_MESSAGES.items() if key in text), "")
    return f"not readable as CSV: {meaning}" if meaning else "not readable as CSV"

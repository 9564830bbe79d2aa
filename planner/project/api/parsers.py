"""The API's JSON parser: DRF's, within the limits of :mod:`inventory.library.documents`.

A body nested deeper than :data:`~inventory.library.documents.MAX_DEPTH` levels is a 400 naming
the limit (not a recursion error); a string a database cannot store (a NUL character, a lone
surrogate such as ``\\ud800``) is a 400 keyed by its path in the body (``spec.name``), before
any serializer or query sees it.
"""

from __future__ import annotations

import codecs

from rest_framework import exceptions, parsers
from rest_framework.utils import json

from inventory.library.documents import MAX_DEPTH, DocumentError, load_json

STRING_CODES = {"nul-character", "invalid-unicode"}


class LimitedJSONParser(parsers.JSONParser):
    """``application/json`` bodies: at most :data:`MAX_DEPTH` levels, only storable text."""

    max_depth = MAX_DEPTH

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = parsers.get_encoding(parser_context or {})
        try:
            text = codecs.getreader(encoding)(stream).read()
            return load_json(
                text,
                max_depth=self.max_depth,
                parse_constant=json.strict_constant if self.strict else None,
            )
        except DocumentError as exc:
            if exc.code in STRING_CODES:
                detail = {exc.path or "non_field_errors": [str(exc)]}
                raise exceptions.ValidationError(detail) from None
            raise exceptions.ParseError(f"JSON refused: {exc}") from None
        except ValueError as exc:  # not JSON, not text in the declared encoding
            raise exceptions.ParseError(not_json_text(exc, encoding)) from None


def not_json_text(exc: ValueError, encoding: str) -> str:
    """A body that is not JSON, in plain words with where it goes wrong (never Python's own
    exception text).

    >>> import json as std_json
    >>> try:
    ...     std_json.loads('{"a": 1,}')
    ... except ValueError as exc:
    ...     print(not_json_text(exc, "utf-8"))
    The body is not valid JSON (line 1, column 9).
    >>> print(not_json_text(UnicodeDecodeError("utf-8", b"ab\\xff", 2, 3, "invalid"), "utf-8"))
    The body is not utf-8 text (byte 3).
    """
    if isinstance(exc, UnicodeDecodeError):
        return f"The body is not {encoding} text (byte {exc.start + 1:,})."
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    where = f" (line {line:,}, column {column:,})" if line and column else ""
    return f"The body is not valid JSON{where}."


class PlainMultiPartParser(parsers.MultiPartParser):
    """``multipart/form-data`` bodies, refused in plain words when they do not parse (DRF
    would append Django's exception text: "Invalid boundary in multipart: None")."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except exceptions.ParseError:
            raise exceptions.ParseError(
                "The body is not a readable multipart form: check its boundary and its parts."
            ) from None

"""The API's parsers: DRF's, within the limits of :mod:`inventory.library.documents`.

A JSON body nested deeper than :data:`~inventory.library.documents.MAX_DEPTH` levels is a 400
naming the limit (not a recursion error); a string a database cannot store (a NUL character, a
lone surrogate such as ``\\ud800``) is a 400 keyed by its path in the body (``spec.name``), or by
its field in a form or multipart body, before any serializer or query sees it (a slug field
looks its object up in the database before any validator runs).
"""

from __future__ import annotations

import codecs

from rest_framework import exceptions, parsers
from rest_framework.utils import json

from inventory.library.documents import MAX_DEPTH, DocumentError, load_json, text_problem

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
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None


def _refuse_unstorable_fields(data) -> None:
    """A 400 naming the first form field whose name or value a database cannot store."""
    for key, values in data.lists():
        for text in (key, *values):
            if isinstance(text, str) and (problem := text_problem(text)):
                raise exceptions.ValidationError({key: [f"{key}: {problem}"]})


class StorableFormParser(parsers.FormParser):
    """``application/x-www-form-urlencoded`` bodies: only storable text."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _refuse_unstorable_fields(data)
        return data


class StorableMultiPartParser(parsers.MultiPartParser):
    """``multipart/form-data`` bodies: only storable text in the fields (files are bytes)."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _refuse_unstorable_fields(parsed.data)
        return parsed

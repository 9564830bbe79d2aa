"""The request rules every app's API shares (the catalog's, the teams', the designs', the quotes'
and the outputs' serializers mix them in), below every app so that each may use them.

:class:`PatchNamesAFieldMixin`: a partial update (PATCH) that names no field it may change is a
400. :class:`NoEmptyValuesMixin`: a choice or a number sent empty is a 400 naming the field.
"""

from collections.abc import Mapping

from rest_framework import serializers
from rest_framework.settings import api_settings


class NoEmptyValuesMixin:
    """A choice or a number sent empty is an error naming the field, in every body format and
    in a query string.

    In a form, multipart body or query string DRF reads an empty value of a field that is not
    required as "not given" and uses the default, so ``kind=`` silently became ``reseller`` and
    ``?audience=`` the internal copy; a JSON body gets "not a valid choice". All now get the
    same 400.
    """

    _EMPTY_MESSAGES = (
        (
            serializers.ChoiceField,
            "Choose one of the listed values; an empty value is not one of them.",
        ),
        (
            (serializers.IntegerField, serializers.FloatField, serializers.DecimalField),
            "Give a number; the value is empty.",
        ),
    )

    def to_internal_value(self, data):
        blank = {}
        for name, field in self.fields.items():
            if field.read_only or field.allow_null or getattr(field, "allow_blank", False):
                continue  # an empty value means null or "" for these
            if not (hasattr(data, "get") and name in data and data.get(name) == ""):
                continue
            message = next((m for kinds, m in self._EMPTY_MESSAGES if isinstance(field, kinds)), "")
            if message:
                blank[name] = [message]
        if blank:
            raise serializers.ValidationError(blank)
        return super().to_internal_value(data)


#: Keys a browser's form may add that are not fields of the object.
FORM_EXTRAS = frozenset({"csrfmiddlewaretoken"})


def _field_named(key: str, names) -> str | None:
    """The field a body key is about: ``name`` itself, or a form body's ``name.key`` (a dict
    field) or ``name[0]`` (a list field); None when it names no field."""
    if key in names:
        return key
    for name in names:
        if key.startswith((f"{name}.", f"{name}[")):
            return name
    return None


def patch_problems(fields: Mapping, data: Mapping) -> dict[str, list[str]]:
    """Why a partial update of ``fields`` from ``data`` changes nothing ({} when it names a
    field it may change): no field to change, each unknown key and each read-only field named.
    """
    writable = [name for name, field in fields.items() if not field.read_only]
    named = {key: _field_named(key, fields) for key in data if key not in FORM_EXTRAS}
    if any(name in writable for name in named.values()):
        return {}
    problems: dict[str, list[str]] = {
        api_settings.NON_FIELD_ERRORS_KEY: [
            "No field to change: the request names none of " + ", ".join(writable) + "."
        ]
    }
    for key, name in named.items():
        if name is None:
            problems[key] = ["Unknown field: it is not one of this object's fields."]
        else:
            problems[key] = ["Read-only: it cannot be changed."]
    return problems


class PatchNamesAFieldMixin:
    """A partial update (PATCH) must name at least one field it may change.

    DRF reads a PATCH whose body names no writable field (``{}``, an empty form, only unknown
    or read-only keys) as an empty update: it answered 200 and saved nothing, so a client
    that misspelt a field, or sent a form body the server read as empty, was told it had
    succeeded. Now that is a 400 in every body format (JSON, form, multipart), naming the
    unknown and read-only keys, and nothing is stored. Keys beside a writable field are left
    to DRF as before (unknown ones are ignored).
    """

    # A PATCH whose body is a patch document rather than a partial update (the canvas's
    # topology patch: ``base_revision`` and what changed) names the fields that carry a change:
    # every request must then name one of them, and its other known fields do not count.
    # (Said here, not in the docstring: drf-spectacular publishes the docstring in the schema.)
    change_fields: tuple[str, ...] = ()

    def to_internal_value(self, data):
        if self.parent is None and isinstance(data, Mapping):
            if self.change_fields:
                fields = {name: self.fields[name] for name in self.change_fields}
                named = {
                    key: value
                    for key, value in data.items()
                    if key in self.change_fields or _field_named(key, self.fields) is None
                }
                problems = patch_problems(fields, named)
            else:
                problems = patch_problems(self.fields, data) if self.partial else {}
            if problems:
                raise serializers.ValidationError(problems)
        return super().to_internal_value(data)

"""Form fields made from the spec's definition (:mod:`planner.domain.spec`).

:func:`spec_form_field` reads a spec key's rule from the generated schema: its title is the
label (units in it), its description the help text, its range the field's ``min_value`` and
``max_value``, its enum the choices, its default the initial value, and it is required only
where the spec requires the key. So the wizard cannot drift from what the spec accepts; the
spec rules still check every value on save and name the field of each problem.
"""

from __future__ import annotations

from collections.abc import Mapping

from django import forms

from planner.domain.spec import spec_schema
from planner.domain.specfields import rule_at

__all__ = ["enum_values", "is_required", "spec_form_field"]


def enum_values(rule: Mapping) -> list | None:
    """The words or numbers a rule allows (an ``enum``, or a ``oneOf`` of enums and
    constants), ``None`` when it allows none. A ``oneOf`` branch that is a mapping (a tier's
    explicit parts) has no place in a list: a spec that uses it opens as its text.

    >>> enum_values({"oneOf": [{"enum": [2, 3]}, {"const": "auto"}]}), enum_values({"type": "x"})
    ([2, 3, 'auto'], None)
    >>> enum_values({"oneOf": [{"enum": ["auto", "DAC"]}, {"type": "object"}]})
    ['auto', 'DAC']
    """
    if "enum" in rule:
        return list(rule["enum"])
    if "const" in rule:
        return [rule["const"]]
    words = [enum_values(branch) for branch in rule.get("oneOf", ())]
    words = [word for branch in words if branch is not None for word in branch]
    return words or None


def is_required(path: str) -> bool:
    """Whether the spec requires the key ``path`` of the mapping that holds it.

    >>> is_required("name"), is_required("switches.leaf"), is_required("planes")
    (True, True, False)
    """
    parent, _, key = path.rpartition(".")
    holder = rule_at(spec_schema(), parent) if parent else spec_schema()
    return key in holder.get("required", ())


def spec_form_field(
    path: str,
    *,
    labels: Mapping | None = None,
    catalog: bool = False,
    **overrides,
) -> forms.Field:
    """The form field of the spec key ``path`` (``planes``, ``layout.rack``, ``grow_to.gpus``).

    Parameters
    ----------
    path : str
        The key's dotted path in a spec document.
    labels : mapping, optional
        Text shown for each allowed value (the value itself where absent).
    catalog : bool
        The key names a catalog part: a list whose entries the form fills from the catalog.
    **overrides
        Field arguments that differ from the definition, where the form field stands for
        more than the key (the ``servers`` box also holds a rack-scale system's ``racks``).
    """
    rule = rule_at(spec_schema(), path)
    if not rule:
        raise KeyError(f"{path} is not a key of the design spec")
    options = {
        "label": rule.get("title") or None,
        "help_text": rule.get("description", ""),
        "required": is_required(path),
    }
    default = rule.get("default")
    values = enum_values(rule)
    if values is not None:
        values.sort(key=lambda value: value != default)  # the default first
        labels = labels or {}
        options["choices"] = [(str(value), labels.get(value, str(value))) for value in values]
        options["initial"] = None if default is None else str(default)
        kind = forms.ChoiceField
    elif catalog:
        kind = forms.ChoiceField
    elif rule.get("type") in ("integer", "number"):
        kind = forms.IntegerField if rule["type"] == "integer" else forms.FloatField
        options.update(
            min_value=rule.get("minimum"), max_value=rule.get("maximum"), initial=default
        )
    elif rule.get("type") == "string":
        kind = forms.CharField
        options.update(max_length=rule.get("maxLength"), initial=default)
    else:
        raise TypeError(f"{path}: no form field for {rule}")
    options.update(overrides)
    field = kind(**options)
    field.spec_path = path  # the key it shows (tests/services/test_wizard_definition.py)
    return field

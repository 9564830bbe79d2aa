"""The wizard's fields come from the spec's definition (issue 33): every field of the spec's
dataclasses is a wizard field or is left to the spec's text for a stated reason, and each
wizard field allows what the spec allows (its range, its list of values)."""

from __future__ import annotations

import dataclasses

import pytest
from django import forms

from planner.designs.forms import DesignWizardForm
from planner.designs.spec_form import enum_values
from planner.designs.wizard import SHOWN_IN
from planner.designs.wizard_networks import (
    BOOLEAN_KEYS,
    NETWORK_KEYS,
    SWITCH_KEYS,
    network_field,
)
from planner.designs.wizard_transport import (
    IB_KEYS,
    NIC_KEYS,
    ROCE_KEYS,
    TYPE_FIELD,
    ib_field,
    nic_field,
    roce_field,
)
from planner.domain.networks.common import SHARED_FIELDS
from planner.domain.spec import spec_schema
from planner.domain.spec_model import DesignSpec
from planner.domain.specfields import rule_at, spec_rule

#: Spec keys the wizard has no field for, and why: a spec that gives one opens as its text.
LEFT_TO_TEXT = {
    "gpus": "the wizard counts servers (racks for a rack-scale system), not GPUs",
    "grow_to.servers": "the wizard states the final build in GPUs",
    "grow_to.racks": "the wizard states the final build in GPUs",
    "layout.rack_units": "hall geometry is the layout module's default or the text's",
    "layout.racks_per_row": "hall geometry is the layout module's default or the text's",
    "layout.rack_width_m": "hall geometry is the layout module's default or the text's",
    "layout.row_pitch_m": "hall geometry is the layout module's default or the text's",
    "layout.tray_height_m": "hall geometry is the layout module's default or the text's",
    "layout.slack_m": "hall geometry is the layout module's default or the text's",
    "layout.switches_per_network_rack": "hall geometry is the layout module's default or text's",
    "naming.server": "device names follow the house pattern unless the text says otherwise",
    "naming.leaf": "device names follow the house pattern unless the text says otherwise",
    "naming.spine": "device names follow the house pattern unless the text says otherwise",
    "naming.core": "device names follow the house pattern unless the text says otherwise",
    "cabling.server-leaf": "structured cabling (panels, trunks) is written in the text",
    "cabling.leaf-spine": "structured cabling (panels, trunks) is written in the text",
    "cabling.spine-core": "structured cabling (panels, trunks) is written in the text",
    "optical_margin_min_db": "a validation threshold, set in the text",
    "campus": "halls and buildings with their distances are written in the text",
    "power": "power feeds are written in the text",
}
#: Wizard fields labelled otherwise than the key's title, and why.
RELABELLED = {"servers": "one box holds servers or, for a rack-scale system, racks"}
#: Blocks the wizard shows in steps of their own (tested below, key by key).
STEPS = ("networks", "transport")


def spec_paths() -> list[str]:
    """Every key of the spec's definition, as a document path: a dataclass field, a nested
    dataclass's fields, the keys of a mapping the definition lists (tiers, grow_to)."""
    paths = []
    for item in dataclasses.fields(DesignSpec):
        group = spec_rule(item).group
        path = f"{group}.{item.name}" if group else item.name
        rule = rule_at(spec_schema(), path)
        if path in STEPS or path in ("campus", "power") or "properties" not in rule:
            paths.append(path)
        else:
            paths.extend(f"{path}.{key}" for key in rule["properties"])
    return paths


def wizard_fields() -> dict[str, forms.Field]:
    """The wizard's fields made from the definition, by the spec key each shows."""
    return {
        field.spec_path: field
        for field in DesignWizardForm.base_fields.values()
        if hasattr(field, "spec_path")
    }


def test_every_key_of_the_definition_has_a_wizard_field_or_a_reason():
    shown = set(wizard_fields()) | set(SHOWN_IN) | set(STEPS)
    paths = spec_paths()
    missing = [path for path in paths if path not in shown and path not in LEFT_TO_TEXT]
    assert not missing, f"give these a wizard field or a reason in LEFT_TO_TEXT: {missing}"
    assert set(LEFT_TO_TEXT) <= set(paths) - shown, "LEFT_TO_TEXT names a shown or gone key"
    assert set(wizard_fields()) <= set(paths)


def allowed(field: forms.Field) -> set[str]:
    """A list field's values (without its empty entry), as text."""
    return {str(value) for value, _ in field.choices if value != ""}


def assert_allows_what_the_spec_allows(field: forms.Field, rule: dict, where: str) -> None:
    values = enum_values(rule)
    if rule.get("type") == "boolean":
        assert allowed(field) == {"yes", "no"}, where
    elif values is not None:
        assert allowed(field) == {str(value) for value in values}, where
    elif isinstance(field, forms.IntegerField | forms.FloatField):
        assert field.min_value == rule.get("minimum"), where
        assert field.max_value == rule.get("maximum"), where
        assert (
            type(field) is {"integer": forms.IntegerField, "number": forms.FloatField}[rule["type"]]
        ), where


@pytest.mark.parametrize("path", sorted(wizard_fields()))
def test_a_wizard_field_allows_what_the_spec_allows(path):
    field, rule = wizard_fields()[path], rule_at(spec_schema(), path)
    assert_allows_what_the_spec_allows(field, rule, path)
    if path not in RELABELLED:
        assert field.label == rule.get("title"), path
    if "default" in rule:
        assert str(field.initial) == str(rule["default"]), path


def test_each_network_field_is_a_key_of_the_definition_and_allows_its_values():
    fields = DesignWizardForm.base_fields
    for network, keys in NETWORK_KEYS.items():
        for key in keys:
            rule = rule_at(spec_schema(), f"networks.{network}.{key}")
            assert rule, f"networks.{network}.{key}"
            field = fields[network_field(network, key)]
            assert field.label == rule["title"], f"networks.{network}.{key}"
            if key in BOOLEAN_KEYS:
                assert allowed(field) == {"yes", "no"}
            elif key not in SWITCH_KEYS:  # numbers typed as text: the spec rules check them
                assert isinstance(field, forms.CharField), key
    for key in SHARED_FIELDS:
        assert rule_at(spec_schema(), f"networks.{key}")["type"] == "integer"


def test_each_transport_field_is_a_key_of_the_definition_and_allows_its_values():
    fields = DesignWizardForm.base_fields
    pairs = [(TYPE_FIELD, "transport.type")]
    pairs += [(roce_field(key), f"transport.{key}") for key in ROCE_KEYS]
    pairs += [(ib_field(key), f"transport.{key}") for key in IB_KEYS]
    pairs += [(nic_field(key), f"transport.nics.*.{key}") for key in NIC_KEYS]
    for name, path in pairs:
        rule = rule_at(spec_schema(), path)
        assert rule, path
        assert fields[name].label == rule["title"], path
        assert_allows_what_the_spec_allows(fields[name], rule, path)
    assert allowed(fields[ib_field("routing_engine")]) >= {"ar_updn", "ftree"}

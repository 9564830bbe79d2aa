"""How catalog values are shown: list columns, spec rows with provenance, "unknown" cells.

A missing value is shown as *unknown*, never as 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from inventory.forms import (
    field_label,
)
from inventory.library import vocab
from inventory.library.provenance import provenance_for
from inventory.models import CATEGORY_MODELS


def part_url(category, slug) -> str | None:
    model = CATEGORY_MODELS.get(category)
    if model is None or not model.objects.filter(slug=slug).exists():
        return None
    return reverse("inventory:part-detail", args=[category, slug])


# --- Helpers: list columns -----------------------------------------------------------------------

UNKNOWN = mark_safe('<span class="unknown">unknown</span>')


def _missing(value) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _number(value) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.6g}"
    return str(value)


def show(value) -> SafeString:
    """A stored value as display HTML; a missing value is "unknown", never 0."""
    if _missing(value):
        return UNKNOWN
    if isinstance(value, SafeString):
        return value
    if isinstance(value, bool):
        return mark_safe("yes" if value else "no")
    if isinstance(value, int | float):
        return format_html("{}", _number(value))
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((show(item),) for item in value))
    if isinstance(value, dict):
        return format_html_join(", ", "{}: {}", ((k, show(v)) for k, v in value.items()))
    return format_html("{}", value)


def _speed(gbps) -> SafeString:
    if _missing(gbps):
        return UNKNOWN
    if not gbps:  # derived speeds are 0 when no group states one
        return UNKNOWN
    if gbps >= 1000:
        return format_html("{}T", _number(gbps / 1000))
    return format_html("{}G", _number(gbps))


def _or_unknown(*values) -> bool:
    return all(_missing(v) for v in values)


def _plug(form_factor, top) -> SafeString:
    if _missing(form_factor):
        return UNKNOWN
    if top and top != "none":
        return format_html("{} ({})", form_factor, top.upper())
    return format_html("{}", form_factor)


def _groups_text(groups, speed_key) -> SafeString | None:
    """``4 × OSFP (RHS) 2-port 400G`` per port or cage group."""
    items = []
    for group in groups or []:
        if not isinstance(group, dict):
            continue
        per_cage = group.get("ports_per_cage") or 1
        items.append(
            format_html(
                "{} × {}{} {}",
                show(group.get("count")),
                _plug(group.get("form_factor"), group.get("top")),
                " 2-port" if per_cage == 2 else "",
                _speed(group.get(speed_key)),
            )
        )
    return format_html_join("; ", "{}", ((item,) for item in items)) if items else None


def _choice_label(part, name) -> Any:
    value = getattr(part, name)
    if _missing(value):
        return None
    return getattr(part, f"get_{name}_display")()


@dataclass
class Column:
    """One list column: header label, sort key (model field) and a cell function."""

    label: str
    sort: str | None
    value: Any
    numeric: bool = False
    wrap: bool = False  # long free text (vendor names); other cells stay on one line

    def header(self, current: str) -> dict:
        state = (
            "ascending"
            if current == self.sort
            else "descending"
            if current == f"-{self.sort}"
            else None
        )
        next_sort = f"-{self.sort}" if state == "ascending" else self.sort
        return {
            "label": self.label,
            "sort": next_sort if self.sort else None,
            "state": state,
            "numeric": self.numeric,
        }

    def cell(self, part) -> dict:
        return {"html": show(self.value(part)), "numeric": self.numeric, "wrap": self.wrap}


def _num(name, label):
    return Column(label, name, lambda p: getattr(p, name), numeric=True)


def _text(name, label, sort=True):
    return Column(label, name if sort else None, lambda p: getattr(p, name))


def _choice(name, label):
    return Column(label, name, lambda p: _choice_label(p, name))


def _protocols(part):
    return [label for value, label in PROTOCOL_LABELS if value in (part.protocols or [])] or None


PROTOCOL_LABELS = [("infiniband", "InfiniBand"), ("ethernet", "Ethernet"), ("nvlink", "NVLink")]
VENDOR = Column("Vendor", "manufacturer", lambda p: p.manufacturer.name, wrap=True)


def _ports_times_speed(count, speed):
    count, speed = count or None, speed or None  # derived columns hold 0 when groups omit them
    if _or_unknown(count, speed):
        return None
    return format_html("{} × {}", show(count), _speed(speed))


def _transceiver_speed(part):
    if _missing(part.speed_gbps):
        return None
    if (part.ports_per_module or 1) > 1:
        return format_html(
            "{} ({} × {})",
            _speed(part.speed_gbps),
            part.ports_per_module,
            _speed(part.port_speed_gbps),
        )
    return _speed(part.speed_gbps)


def _cable_speed(part):
    if _or_unknown(part.speed_gbps, part.legs, part.leg_speed_gbps):
        return None
    if (part.legs or 1) > 1 or part.topology not in ("", "straight"):
        return format_html(
            "{} → {} × {}", _speed(part.speed_gbps), show(part.legs), _speed(part.leg_speed_gbps)
        )
    return _speed(part.speed_gbps)


def _cable_ends(part):
    if _or_unknown(part.end_a_form_factor, part.end_b_form_factor):
        return None
    legs = part.legs or 1
    return format_html(
        "{} → {}{}",
        _plug(part.end_a_form_factor, part.end_a_top),
        f"{legs} × " if legs > 1 else "",
        _plug(part.end_b_form_factor, part.end_b_top),
    )


def _lengths(part):
    if _missing(part.lengths_m):
        return (
            None
            if _missing(part.max_length_m)
            else format_html("up to {} m", _number(part.max_length_m))
        )
    return format_html("{} m", ", ".join(_number(x) for x in part.lengths_m))


def _cable_power(part):
    if _or_unknown(part.power_end_a_w, part.power_end_b_w):
        return None
    return format_html("A {} W · B {} W", show(part.power_end_a_w), show(part.power_end_b_w))


def _fiber_type(part):
    if _or_unknown(part.fiber_type, part.fiber_grade):
        return None
    return format_html("{} {}", (part.fiber_type or "").upper() or UNKNOWN, part.fiber_grade)


def _fiber_connectors(part):
    if _or_unknown(part.connector_a, part.connector_b):
        return None
    return format_html(
        "{} → {}",
        show(_choice_label(part, "connector_a")),
        show(_choice_label(part, "connector_b")),
    )


def _gpus(part):
    if _or_unknown(part.gpus, part.gpu_model):
        return None
    return format_html("{} × {}", show(part.gpus), show(part.gpu_model))


COLUMNS: dict[str, list[Column]] = {
    "switch": [
        VENDOR,
        Column("ASIC", "asic", lambda p: p.asic, wrap=True),
        Column("Protocols", None, _protocols),
        Column(
            "Ports × speed",
            "port_count",
            lambda p: _ports_times_speed(p.port_count, p.port_speed_gbps),
        ),
        Column(
            "Form factors",
            "form_factors",
            lambda p: p.form_factors.split(",") if p.form_factors else None,
        ),
        _num("rack_units", "RU"),
        _num("power_typical_w", "Typical W"),
        _num("power_max_w", "Max W"),
    ],
    "nic": [
        VENDOR,
        Column("Ports", "port_count", lambda p: _groups_text(p.ports, "max_speed_gbps"), wrap=True),
        Column("Max speed", "max_speed_gbps", lambda p: _speed(p.max_speed_gbps), numeric=True),
        Column("Protocols", None, _protocols),
        Column("Host interface", "host_interface", lambda p: p.host_interface, wrap=True),
        _num("power_typical_w", "Typical W"),
        _num("power_max_w", "Max W"),
    ],
    "server": [
        VENDOR,
        Column("GPUs", "gpus", _gpus),
        Column(
            "Compute ports",
            "compute_port_count",
            lambda p: _ports_times_speed(p.compute_port_count, p.port_speed_gbps),
        ),
        Column(
            "Cages",
            "form_factors",
            lambda p: _groups_text(p.compute_ports, "port_speed_gbps"),
            wrap=True,
        ),
        _num("rack_units", "RU"),
        _num("power_max_w", "Max W"),
    ],
    "transceiver": [
        VENDOR,
        Column(
            "Form factor",
            "form_factor",
            lambda p: _plug(p.form_factor, p.top) if p.form_factor else None,
        ),
        Column("Speed", "speed_gbps", _transceiver_speed),
        _text("pmd", "PMD"),
        Column("Media", "media", lambda p: (p.media or "").upper() or None),
        _choice("connector", "Connector"),
        _num("reach_m", "Reach m"),
        _num("power_max_w", "Max W"),
        _text("side", "Side"),
    ],
    "cable": [
        VENDOR,
        Column("Type", "cable_type", lambda p: (p.cable_type or "").upper() or None),
        _text("topology", "Topology"),
        Column("Speed → legs", "speed_gbps", _cable_speed),
        Column("Ends", "end_a_form_factor", _cable_ends),
        Column("Lengths", "max_length_m", _lengths),
        Column("Power per end", "power_end_a_w", _cable_power),
    ],
    "fiber": [
        VENDOR,
        Column("Type / grade", "fiber_type", _fiber_type),
        Column("Connectors", "connector_a", _fiber_connectors),
        _text("topology", "Topology"),
        _num("fiber_count", "Fibers"),
        Column("Lengths", "max_length_m", _lengths),
    ],
    "rack": [
        VENDOR,
        _num("rack_units", "RU"),
        _num("power_kw", "Power kW"),
        _num("cooling_kw", "Cooling kW"),
        _choice("cooling", "Cooling"),
    ],
}
for _columns in COLUMNS.values():
    _columns.insert(0, Column("Slug", "slug", lambda p: p.slug))


def ordering(key: str, *, descending: bool) -> list:
    if not key:
        return ["slug"]
    field_ = "manufacturer__name" if key == "manufacturer" else key
    expression = F(field_).desc(nulls_last=True) if descending else F(field_).asc(nulls_last=True)
    return [expression, "slug"]


def filter_hints(form) -> None:
    """Readable empty choices, a lifecycle menu, suggestions for form factor and media."""
    from django import forms

    for field_ in form.fields.values():
        if isinstance(field_, forms.ModelChoiceField):
            field_.empty_label = "Any"
        elif isinstance(field_, forms.ChoiceField):
            field_.choices = [("", "Any"), *[c for c in field_.choices if c[0] != ""]]
    if "lifecycle" in form.fields:
        form.fields["lifecycle"].widget = forms.Select(choices=[("", "Any"), *vocab.LIFECYCLES])
    if "form_factor" in form.fields:
        form.fields["form_factor"].widget.attrs["list"] = "filter-form-factors"
        form.fields["form_factor"].widget.attrs["placeholder"] = "e.g. OSFP"
    for name in ("speed_gbps", "speed_min_gbps"):
        if name in form.fields:
            form.fields[name].widget.attrs["placeholder"] = "e.g. 800G, 1.6T"
    if "media" in form.fields:
        form.fields["media"].widget.attrs["list"] = "filter-media"


def datalists(model) -> dict:
    media = model._meta.get_field(model.MEDIA_FIELD).choices if model.MEDIA_FIELD else []
    return {
        "filter-form-factors": _form_factor_options() if model.FORM_FACTOR_FIELDS else [],
        "filter-media": media or [],
    }


def _form_factor_options() -> list[tuple[str, str]]:
    """Suggestions for the form-factor filter: each family (it matches its members), then
    every single form factor."""
    families = [
        (root, f"{root} family: {', '.join(members)}")
        for root, members in vocab.form_factor_families()
        if len(members) > 1
    ]
    named = {root for root, _ in families}
    return families + [(value, label) for value, label in vocab.FORM_FACTORS if value not in named]


# --- Helpers: detail page ------------------------------------------------------------------------


@dataclass
class ProvenanceView:
    grade: str
    source: SafeString | None
    note: str = ""
    alternatives: list = field(default_factory=list)


@dataclass
class SpecRow:
    name: str
    label: str
    help: str
    value: SafeString | None  # None when shown as ``table``
    provenance: ProvenanceView | None
    table: dict | None = None  # {"headers": [...], "rows": [[cell, ...], ...]}


#: Fields holding slugs of other parts, and the category they belong to.
SLUG_LINKS = {"partners": "transceiver", "fibers": "fiber", "compute_nic": "nic"}


def _source_link(sources: dict, key) -> SafeString | None:
    if key is None:
        return None
    source = sources.get(key)
    if not isinstance(source, dict):
        return format_html("{}", key)
    url, title = source.get("url"), source.get("title")
    if isinstance(url, str) and url.startswith(("https://", "http://")):
        bare = url.split("://", 1)[1]
        text = title or (bare[:50] + "…" if len(bare) > 52 else bare)
        return format_html('<a href="{}" rel="noopener noreferrer">{}</a>', url, text)
    return format_html("<cite>{}</cite>", title or key)


def _provenance(part, record) -> ProvenanceView | None:
    if not isinstance(record, dict):
        return None
    alternatives = [
        {
            "value": show(alt.get("value")),
            "grade": alt.get("grade") or "",
            "source": _source_link(part.sources or {}, alt.get("source")),
            "note": alt.get("note") or "",
        }
        for alt in record.get("alternatives") or []
        if isinstance(alt, dict)
    ]
    return ProvenanceView(
        record.get("grade") or "",
        _source_link(part.sources or {}, record.get("source")),
        record.get("note") or "",
        alternatives,
    )


def _provenance_if_own(part, record, parent) -> ProvenanceView | None:
    """The record, unless it only repeats the parent's source and grade."""
    if not isinstance(record, dict) or record is parent:
        return None
    if (
        isinstance(parent, dict)
        and not record.get("note")
        and not record.get("alternatives")
        and (record.get("source"), record.get("grade"))
        == (parent.get("source"), parent.get("grade"))
    ):
        return None
    return _provenance(part, record)


def _linked_slugs(slugs, category) -> SafeString:
    model = CATEGORY_MODELS[category]
    known = set(model.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    return format_html_join(
        ", ",
        "{}",
        (
            (
                format_html(
                    '<a href="{}">{}</a>',
                    reverse("inventory:part-detail", args=[category, slug]),
                    slug,
                )
                if slug in known
                else format_html(
                    '<code>{}</code> <span class="help">(not in catalog)</span>', slug
                ),
            )
            for slug in slugs
        ),
    )


def spec_row(part, name) -> SpecRow:
    model_field = part._meta.get_field(name)
    value = getattr(part, name)
    record = provenance_for(part.provenance or {}, name)
    is_json = isinstance(model_field, models.JSONField)
    row = SpecRow(
        name,
        field_label(name),
        "" if is_json else model_field.help_text,
        None,
        _provenance(part, record),
    )
    if name in SLUG_LINKS and not _missing(value):
        slugs = value if isinstance(value, list) else [value]
        row.value = _linked_slugs([str(s) for s in slugs], SLUG_LINKS[name])
    elif getattr(model_field, "choices", None) and not _missing(value):
        row.value = show(getattr(part, f"get_{name}_display")())
    elif isinstance(value, dict) and value:
        row.table = _nested_table(part, name, [value], record, single=True)
    elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
        row.table = _nested_table(part, name, value, record)
    else:
        row.value = show(value)
    return row


def _nested_table(part, name, items, record, *, single=False) -> dict:
    """A list of objects (or one object) as a small table.

    Few objects with many keys (cage groups) are shown one column per object; many objects
    (other ports, limits) one row per object. A row or cell sourced apart from the field
    carries its own provenance.
    """
    keys: list[str] = []
    for item in items:
        for key in item if isinstance(item, dict) else ():
            if key not in keys:
                keys.append(key)
    provenance = part.provenance or {}
    grid, item_provenance = [], []
    for index, item in enumerate(items):
        base = name if single else f"{name}.{index}"
        item_record = provenance_for(provenance, base)
        item_provenance.append(_provenance_if_own(part, item_record, record))
        row = []
        for key in keys:
            value = item.get(key) if isinstance(item, dict) else item
            cell_record = provenance_for(provenance, f"{base}.{key}")
            row.append(
                {
                    "html": show(value),
                    "provenance": _provenance_if_own(part, cell_record, item_record),
                }
            )
        grid.append(row)
    labels = [field_label(key) for key in keys]
    sourced = any(item_provenance)
    source_cells = [{"html": "", "provenance": p} for p in item_provenance]
    if single:
        rows = [
            {"header": label, "cells": [row[i] for row in grid]} for i, label in enumerate(labels)
        ]
        return {"col_headers": None, "rows": rows}
    if len(keys) > 6 and len(items) <= 4:
        rows = [
            {"header": label, "cells": [row[i] for row in grid]} for i, label in enumerate(labels)
        ]
        if sourced:
            rows.append({"header": "Source", "cells": source_cells})
        headers = ["", *(f"#{index + 1}" for index in range(len(items)))]
        return {"col_headers": headers, "rows": rows}
    rows = [
        {"header": None, "cells": [*row, source_cells[i]] if sourced else row}
        for i, row in enumerate(grid)
    ]
    return {"col_headers": [*labels, "Source"] if sourced else labels, "rows": rows}


def identity_rows(part) -> list[tuple[str, SafeString]]:
    manufacturer = part.manufacturer
    vendor = (
        format_html(
            '<a href="{}" rel="noopener noreferrer">{}</a>', manufacturer.url, manufacturer.name
        )
        if manufacturer.url.startswith(("https://", "http://"))
        else show(manufacturer.name)
    )
    return [
        ("Name", show(part.name)),
        ("Vendor", vendor),
        ("Part number", show(part.part_number)),
        ("Aliases", show(part.aliases)),
        ("Lifecycle", show(part.get_lifecycle_display())),
        ("Description", show(part.description)),
        (
            "Notes",
            format_html('<div class="notes">{}</div>', part.notes) if part.notes else UNKNOWN,
        ),
    ]


def source_rows(part) -> list[dict]:
    rows = []
    for key, source in (part.sources or {}).items():
        source = source if isinstance(source, dict) else {}
        rows.append(
            {
                "key": key,
                "link": _source_link(part.sources, key),
                "grade": source.get("grade") or "",
                "date": source.get("date") or "",
            }
        )
    return rows


# --- History ------------------------------------------------------------------------------------


def _history_value(value) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def history_changes(event) -> list[tuple[str, str, str]]:
    """``(field, old, new)`` of an audit event's ``details["fields"]``, as text."""
    fields = (event.details or {}).get("fields")
    if not isinstance(fields, dict):
        return []
    rows = []
    for name, change in fields.items():
        if isinstance(change, dict):
            rows.append(
                (name, _history_value(change.get("old")), _history_value(change.get("new")))
            )
        else:
            rows.append((name, "", _history_value(change)))
    return rows

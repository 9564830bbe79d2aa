"""Every number agrees across outputs (issue 33 item 4).

Each preset of ``planner/domain/examples`` is saved as a design; then every output a user
reads is produced the way its page or download produces it and read back as that output
says it (the CSV downloads parsed, the BOM and quote lines read, the canvas and power
report as their APIs return them). Switches, cables per part and length, transceivers,
links and devices per network, racks, power and cost must then be the same everywhere.

The compute fabric's fabric-manager (UFM) rows count like every other row: their UFM-to-leaf
splitter fibres and UFM-side modules are the fabric's own media (RA-11333-001 Table 8).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from decimal import Decimal

import pytest

from inventory.models import PriceBook
from inventory.services.imports import SEED_PRICE_BOOK
from planner.analyses.reports import fabric_power
from planner.designs import selectors
from planner.designs.adapters import catalog_facts
from planner.designs.figures import design_figures
from planner.designs.services import design_create
from planner.domain.presets import load_presets
from planner.outputs import services as outputs
from planner.quotes.files import quote_csv
from planner.quotes.services import quote_create, quote_price

PRESETS = [preset.slug for preset in load_presets()]
#: Networks beside the compute fabric, as BOM tiers and export tags name them.
OTHER_NETWORKS = ("storage", "converged", "inband", "oob", "management")
_LEDGERS: dict[str, dict] = {}


def _csv(text: str, *, skip: int = 0) -> list[dict]:
    lines = text.splitlines(keepends=True)[skip:]
    return list(csv.DictReader(io.StringIO("".join(lines))))


def _download(user, design, revision, fmt: str) -> list[dict]:
    export = outputs.revision_export(user=user, design=design, revision=revision, fmt=fmt)
    return _csv("".join(export.chunks))


def _tags(row: dict) -> list[str]:
    """The networks a NetBox row is tagged with (no ``tags`` column: the compute fabric)."""
    return [tag for tag in (row.get("tags") or "compute").split(",") if tag]


def _network(tier: str) -> str:
    return tier if tier in OTHER_NETWORKS else "compute"


def _length(text: str) -> float | None:
    return float(text) if text not in ("", None) else None


def _ledger(slug: str, user) -> dict:
    """Every output of the preset ``slug`` as plain data (kept for the other tests)."""
    if slug in _LEDGERS:
        return _LEDGERS[slug]
    preset = next(p for p in load_presets() if p.slug == slug)
    design = design_create(owner=user, spec_document=preset.spec)
    revision = design.revisions.get(number=1)
    book = PriceBook.objects.get(slug=SEED_PRICE_BOOK)
    quote = quote_create(design=design, actor=user, customer="Agreement test", price_book=book)
    quote_rows = _csv(quote_csv(quote_price(quote)).decode("utf-8"), skip=1)
    overview = selectors.revision_canvas(revision, view="overview")
    facts = catalog_facts()
    listed = selectors.design_list_for(user).get(pk=design.pk)  # as the designs list reads it
    ledger = {
        "summary": dict(revision.summary),
        "bom": _download(user, design, revision, "bom-csv"),
        "cabling": _download(user, design, revision, "cabling-csv"),
        "netbox_devices": _download(user, design, revision, "netbox-devices"),
        "netbox_cables": _download(user, design, revision, "netbox-cables"),
        "p2p": _download(user, design, revision, "p2p"),
        "quote": [row for row in quote_rows if row["part"] not in ("total", "terms")],
        "quote_total": next(row for row in quote_rows if row["part"] == "total"),
        "canvas": {n["id"]: n for n in overview["networks"]},
        "power": fabric_power(fabric=selectors.revision_fabric(revision), facts=facts),
        "figures": design_figures([listed], book=book)[design.pk],
        "switch_models": {s for s, d in facts.devices.items() if d.category == "switch"},
    }
    _LEDGERS[slug] = ledger
    return ledger


# --- what each output says ------------------------------------------------------------------


def summary_switches(summary: dict) -> Counter:
    """``(network, model)`` -> switches, from the summary and its networks."""
    out = Counter()
    for models in (summary.get("switches_by_model") or {}).values():
        for model, count in models.items():
            out[("compute", model)] += count
    for network, figures in (summary.get("networks") or {}).items():
        for models in (figures.get("switches") or {}).values():
            for model, count in models.items():
                out[(network, model)] += count
    return +out


def summary_parts(summary: dict, key: str) -> Counter:
    """``(network, part)`` -> cables or transceivers, from the summary and its networks."""
    out = Counter({("compute", part): n for part, n in (summary.get(key) or {}).items()})
    for network, figures in (summary.get("networks") or {}).items():
        for part, n in (figures.get(key) or {}).items():
            out[(network, part)] += n
    return +out


def bom_counts(
    rows: list[dict], categories: tuple[str, ...], *, quantity="base_quantity"
) -> Counter:
    """``(network, part)`` -> quantity of the BOM (or quote) lines of ``categories``."""
    out = Counter()
    for row in rows:
        if row["category"] in categories:
            out[(_network(row["tier"]), row["part"])] += int(row[quantity])
    return +out


def plan_cables(rows: list[dict], *, by_length: bool = False) -> Counter:
    """``(network, part)`` (or ``(part, length)`` with ``by_length``) -> cables of the
    cabling plan: a row per link, one cable per assembly (a splitter's legs share one); rows
    without a cable part (none chosen, or the customer's fibre) are not cables to order."""
    seen, out = set(), Counter()
    for row in rows:
        if not row["cable_part"]:
            continue
        if row["assembly"]:
            if (row["network"], row["assembly"]) in seen:
                continue
            seen.add((row["network"], row["assembly"]))
        key = (row["cable_part"], _length(row["length_m"])) if by_length else None
        out[key or (row["network"], row["cable_part"])] += 1
    return +out


def summary_cables_by_length(summary: dict) -> Counter:
    """``(part, length)`` -> the compute fabric's cables, from the summary."""
    return +Counter(
        {
            (part, float(length)): n
            for part, lengths in (summary.get("cables_by_length") or {}).items()
            for length, n in lengths.items()
        }
    )


def bom_cables_by_length(rows: list[dict]) -> Counter:
    """``(part, length)`` -> the compute fabric's cables, from the BOM lines."""
    out = Counter()
    for row in rows:
        if row["category"] in ("cable", "fiber") and _network(row["tier"]) == "compute":
            out[(row["part"], _length(row["length_m"]))] += int(row["base_quantity"])
    return +out


#: The power report's rack kinds as the summary and the BOM name them.
RACK_KIND_OF_LAYOUT = {"server": "compute"}


def bom_racks(rows: list[dict], summary: dict) -> Counter:
    """Racks per kind the BOM orders: its rack lines (tier: the kind), and for rack-scale
    systems, which are their own compute racks, the systems' own lines."""
    out = Counter()
    for row in rows:
        if row["category"] == "rack":
            out[row["tier"]] += int(row["base_quantity"])
    system = (summary.get("rack_system") or {}).get("model")
    if system and not out["compute"]:
        out["compute"] = sum(
            int(row["base_quantity"])
            for row in rows
            if row["category"] == "server" and row["part"] == system
        )
    return +out


def bom_part_numbers(rows: list[dict]) -> Counter:
    """``(part, part number, length)`` -> cables and fibres the BOM orders by part number."""
    out = Counter()
    for row in rows:
        if row["category"] in ("cable", "fiber") and row["part_number"]:
            out[(row["part"], row["part_number"], _length(row["length_m"]))] += int(
                row["base_quantity"]
            )
    return +out


def plan_part_numbers(rows: list[dict]) -> Counter:
    """``(part, part number, length)`` -> cables of the cabling plan with a part number (one
    per assembly)."""
    seen, out = set(), Counter()
    for row in rows:
        if not row["part_number"]:
            continue
        if row["assembly"]:
            if (row["network"], row["assembly"]) in seen:
                continue
            seen.add((row["network"], row["assembly"]))
        out[(row["cable_part"], row["part_number"], _length(row["length_m"]))] += 1
    return +out


def _racks(rows: list[dict], columns: tuple[str, ...]) -> set[str]:
    return {row[column] for row in rows for column in columns if row[column]}


def _compare(name: str, outputs_: dict[str, Counter], problems: list[str]) -> None:
    """Every output of ``outputs_`` equal to the first one; each difference named."""
    (first, expected), *others = outputs_.items()
    for other, got in others:
        if got != expected:
            keys = sorted(set(got) | set(expected), key=str)
            diff = [
                f"{k}: {expected.get(k, 0)} vs {got.get(k, 0)}"
                for k in keys
                if got.get(k, 0) != expected.get(k, 0)
            ]
            problems.append(f"{name}: {first} vs {other}: " + "; ".join(diff[:6]))


@pytest.mark.no_cover  # a walk over many cases, untraced: see tests.conftest.untraced
@pytest.mark.parametrize("slug", PRESETS)
def test_every_output_gives_the_same_numbers(slug, seed_catalog, user):
    ledger = _ledger(slug, user)
    summary, problems = ledger["summary"], []
    switch_models = ledger["switch_models"]

    netbox_switches = Counter(
        (_tags(row)[0], row["device_type"])
        for row in ledger["netbox_devices"]
        if row["device_type"] in switch_models
    )
    _compare(
        "switches per network and model",
        {
            "summary": summary_switches(summary),
            "BOM": bom_counts(ledger["bom"], ("switch",)),
            "quote": bom_counts(ledger["quote"], ("switch",)),
            "NetBox devices": netbox_switches,
        },
        problems,
    )
    power_roles = ledger["power"]["by_role"]
    _compare(
        "GPU servers (systems)",
        {
            "summary": Counter(total=int(summary.get("servers") or 0)),
            "BOM": Counter(
                total=sum(
                    int(row["base_quantity"])
                    for row in ledger["bom"]
                    if row["category"] == "server" and row["tier"] != "management"
                )
            ),
            "NetBox devices": Counter(
                total=sum(
                    row["role"] == "server" and "compute" in _tags(row)
                    for row in ledger["netbox_devices"]
                )
            ),
            "power report": Counter(total=int((power_roles.get("server") or {}).get("count", 0))),
        },
        problems,
    )
    _compare(
        "compute fabric switches",
        {
            "summary": Counter({r: n for r, n in (summary.get("switches") or {}).items() if n}),
            "power report": Counter(
                {r: v["count"] for r, v in power_roles.items() if r in ("leaf", "spine", "core")}
            ),
        },
        problems,
    )
    _compare(
        "cables per network and part",
        {
            "summary": summary_parts(summary, "cables"),
            "BOM": bom_counts(ledger["bom"], ("cable", "fiber")),
            "quote": bom_counts(ledger["quote"], ("cable", "fiber")),
            "cabling plan": plan_cables(ledger["cabling"]),
        },
        problems,
    )
    _compare(
        "transceivers per network and part",
        {
            "summary": summary_parts(summary, "transceivers"),
            "BOM": bom_counts(ledger["bom"], ("transceiver",)),
            "quote": bom_counts(ledger["quote"], ("transceiver",)),
        },
        problems,
    )
    compute_plan = [row for row in ledger["cabling"] if row["network"] == "compute"]
    _compare(
        "compute fabric cables per part and ordered length",
        {
            "summary": summary_cables_by_length(summary),
            "BOM": bom_cables_by_length(ledger["bom"]),
            "cabling plan": plan_cables(compute_plan, by_length=True),
        },
        problems,
    )
    link_ends = Counter()
    for row in compute_plan:
        link_ends.update(row[end] for end in ("a_transceiver", "b_transceiver") if row[end])
    _compare(
        "compute transceivers per link end",
        {
            "summary": Counter(summary.get("transceivers_per_link_end") or {}),
            "cabling plan": link_ends,
        },
        problems,
    )
    canvas = ledger["canvas"]
    _compare(
        "links per network",
        {
            "canvas": Counter({n: v["links"] for n, v in canvas.items() if v["links"]}),
            "cabling plan": Counter(row["network"] for row in ledger["cabling"]),
            "P2P": Counter(row.get("Network") or "compute" for row in ledger["p2p"]),
            "NetBox cables": Counter(_tags(row)[0] for row in ledger["netbox_cables"]),
        },
        problems,
    )
    netbox_devices = Counter(tag for row in ledger["netbox_devices"] for tag in _tags(row))
    _compare(
        "devices per network the canvas draws",
        {
            "canvas": Counter({n: v["devices"] for n, v in canvas.items() if v["devices"]}),
            "NetBox devices": Counter({n: c for n, c in netbox_devices.items() if n in canvas}),
        },
        problems,
    )
    _compare(
        "management systems (PDUs, fabric managers, head nodes)",
        {
            "BOM": Counter(
                total=sum(
                    int(row["base_quantity"])
                    for row in ledger["bom"]
                    if row["tier"] == "management" and row["category"] != "rack"
                )
            ),
            "NetBox devices": Counter(total=netbox_devices["management"]),
        },
        problems,
    )
    _compare(
        "racks by kind",
        {
            "summary": Counter(summary.get("racks_by_kind") or {}),
            "BOM": bom_racks(ledger["bom"], summary),
            "power report": Counter(
                RACK_KIND_OF_LAYOUT.get(rack["kind"], rack["kind"])
                for rack in ledger["power"]["racks"]
            ),
        },
        problems,
    )
    _compare(
        "racks",
        {
            "summary": Counter(total=int(summary.get("racks") or 0)),
            "NetBox devices": Counter(total=len(_racks(ledger["netbox_devices"], ("rack",)))),
            "cabling plan": Counter(total=len(_racks(ledger["cabling"], ("a_rack", "b_rack")))),
        },
        problems,
    )
    _compare(
        "cables per part number and ordered length",
        {
            "BOM": bom_part_numbers(ledger["bom"]),
            "cabling plan": plan_part_numbers(ledger["cabling"]),
        },
        problems,
    )
    figures = ledger["figures"]
    if summary.get("power_w") is not None:
        _compare(
            "power (W)",
            {
                "summary": Counter(total=round(summary["power_w"])),
                "power report": Counter(total=round(ledger["power"]["total_w"])),
                "designs list": Counter(total=round(figures["power_w"])),
            },
            problems,
        )
    cost = figures.get("cost")
    quote_cost = Decimal(ledger["quote_total"]["unit_cost"] or "0")
    lines_cost = sum(
        (Decimal(r["unit_cost"]) * int(r["quantity"]) for r in ledger["quote"] if r["unit_cost"]),
        Decimal(0),
    )
    _compare(
        "cost",
        {
            "quote total": Counter(total=round(quote_cost, 2)),
            "quote lines": Counter(total=round(lines_cost, 2)),
            # the designs list gives no total while a line is unpriced (never a partial one)
            **(
                {"designs list": Counter(total=round(cost.total, 2))}
                if cost and cost.complete
                else {}
            ),
        },
        problems,
    )
    assert not problems, "\n".join(problems)


def test_the_cables_the_plan_names_are_ordered(seed_catalog, user):
    """Issue 33 item 5: every cable part the compute fabric's plan names, on its fabric-manager
    (UFM) rows too, is ordered by the BOM, as many as the plan has cables of it."""
    problems = []
    for slug in PRESETS:
        ledger = _ledger(slug, user)
        compute = [row for row in ledger["cabling"] if row["network"] == "compute"]
        named = plan_cables(compute)
        ordered = bom_counts(ledger["bom"], ("cable", "fiber"))
        for (network, part), cables in named.items():
            if ordered[(network, part)] != cables:
                problems.append(
                    f"{slug}: the plan has {cables} {part} cables; the BOM orders "
                    f"{ordered[(network, part)]}"
                )
        managers = {
            r["cable_part"] for r in compute if r["a_role"] == "manager" and r["cable_part"]
        }
        if managers - {part for _, part in named}:
            problems.append(f"{slug}: fabric-manager rows name uncounted {managers}")
    assert not problems, "\n".join(problems)

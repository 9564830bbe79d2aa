"""The exploration wizard's form: what was typed (or pasted, or uploaded) into a requirements
document, and each problem the requirements report put back next to its field.

The rules are the requirements parser's (:func:`planner.analyses.explore.requirements.
parse_requirements`, run by the job's parameters); the form only reads numbers and lists, and
leaves a key out when its field is empty (the parser's default then holds).
"""

from __future__ import annotations

import re

from django import forms

from inventory.permissions import price_books_for
from planner.analyses.explore.requirements import (
    CABLINGS,
    COLLECTIVES,
    OBJECTIVES,
    ROUTINGS,
    TIERS,
    TOPOLOGIES,
    TRANSPORTS,
    UPLINKS,
    RequirementsError,
    catalog_switches,
    gpu_servers,
    load_requirements_text,
)
from planner.designs.adapters import catalog_facts

#: Most bytes of an uploaded requirements file.
MAX_UPLOAD = 200_000
SPEEDS = (100, 200, 400, 800, 1600)
PLANES = (1, 2, 4, 8)
OBJECTIVE_LABELS = {
    "cost": "Cost",
    "fabric_cost": "Fabric cost",
    "collective_time_s": "Collective time",
    "power_w": "Power",
    "bisection_gbps": "Bisection bandwidth",
    "failures_per_day": "Failures per day",
}
#: Requirements fields (their first dotted parts) -> the form field that sets them.
FIELD_OF = {
    "name": "name",
    "gpus": "gpus",
    "servers": "servers",
    "switches": "switches",
    "transports": "transports",
    "speeds_gbps": "speeds_gbps",
    "planes": "planes",
    "topologies": "topologies",
    "tiers": "tiers",
    "oversubscription": "oversubscription_max",
    "oversubscription.min": "oversubscription_min",
    "cabling": "cabling",
    "uplinks": "uplinks",
    "limits.budget": "budget_amount",
    "limits.budget.currency": "budget_currency",
    "limits.budget.price_book": "price_book",
    "limits.power_kw": "power_kw",
    "limits.racks": "racks",
    "limits.max_gpus_lost_switch": "max_gpus_lost_switch",
    "limits.max_gpus_lost_rack": "max_gpus_lost_rack",
    "limits.min_optical_margin_db": "min_optical_margin_db",
    "workload.collectives": "collectives",
    "workload.message_bytes": "message_bytes",
    "workload.job_gpus": "job_gpus",
    "workload.routing": "routing",
    "objectives": "objectives",
    "max_candidates": "max_candidates",
}


def _checkboxes(label: str, choices, help_text: str = "") -> forms.MultipleChoiceField:
    return forms.MultipleChoiceField(
        label=label,
        required=False,
        choices=[(str(c), str(c)) for c in choices],
        widget=forms.CheckboxSelectMultiple,
        help_text=help_text,
    )


def _number(label: str, help_text: str = "", *, whole=False, minimum=0) -> forms.Field:
    kind = forms.IntegerField if whole else forms.FloatField
    return kind(label=label, required=False, min_value=minimum, help_text=help_text)


def numbers_of(text: str, *, whole: bool) -> list:
    """``"268435456, 1e9"`` -> ``[268435456, 1000000000]``; ValueError names the bad one."""
    values = []
    for word in re.split(r"[\s,;]+", text.strip()):
        if not word:
            continue
        try:
            value = float(word.replace("_", ""))
        except ValueError:
            raise ValueError(f"“{word[:20]}” is not a number") from None
        if whole and value != int(value):
            raise ValueError(f"{word[:20]} is not a whole number")
        values.append(int(value) if value == int(value) else value)
    return values


class ExploreForm(forms.Form):
    """The requirements as fields, or as YAML/JSON text (pasted or uploaded)."""

    source = forms.ChoiceField(
        label="Requirements from",
        choices=[("form", "The fields above"), ("text", "The YAML or JSON below")],
        initial="form",
        widget=forms.RadioSelect,
    )
    name = forms.CharField(label="Name", required=False, max_length=200)
    gpus = _number("GPUs", "Whole servers; the least with a range.", whole=True, minimum=1)
    gpus_max = _number("Up to GPUs", "Optional: candidates within the range.", whole=True)
    servers = forms.MultipleChoiceField(
        label="GPU servers",
        required=False,
        help_text="None chosen: any in the catalog (Ctrl-click to choose several).",
    )
    switches = forms.MultipleChoiceField(
        label="Switches",
        required=False,
        help_text="None chosen: any that fits (Ctrl-click to choose several).",
    )
    transports = _checkboxes("Transports", TRANSPORTS, "None: both.")
    speeds_gbps = _checkboxes("Server-link speeds (Gb/s)", SPEEDS, "None: any the ends share.")
    planes = _checkboxes("Planes", PLANES, "None: 1.")
    topologies = _checkboxes("Topologies", TOPOLOGIES, "None: rail-optimized and Clos.")
    tiers = _checkboxes("Tiers", TIERS, "None: 2 and 3.")
    oversubscription_min = _number("Oversubscription from", "Down:up ratio, e.g. 1.", minimum=1)
    oversubscription_max = _number("Oversubscription to", "e.g. 3.", minimum=1)
    cabling = _checkboxes("Cabling", CABLINGS, "None: point-to-point.")
    uplinks = _checkboxes(
        "Uplink speed",
        UPLINKS,
        "link: the server links'; port: the leaf's faster ports. None: link.",
    )
    budget_amount = _number("Budget", "Fabric and servers, in the currency below.")
    budget_currency = forms.CharField(label="Currency", required=False, max_length=3)
    price_book = forms.ChoiceField(label="Price book", required=False)
    power_kw = _number("Power (kW)", "IT power of the fabric and servers.")
    racks = _number("Racks", whole=True, minimum=1)
    max_gpus_lost_switch = _number("GPUs lost to one switch failure, at most", whole=True)
    max_gpus_lost_rack = _number("GPUs lost to one rack failure, at most", whole=True)
    min_optical_margin_db = _number("Optical margin (dB), at least")
    collectives = _checkboxes("Collectives", COLLECTIVES, "None: all-reduce.")
    message_bytes = forms.CharField(
        label="Message sizes (bytes)",
        required=False,
        help_text="Commas between: 268435456, 1e9 (none: 268,435,456).",
    )
    job_gpus = forms.CharField(
        label="Job sizes (GPUs)", required=False, help_text="None: every GPU."
    )
    routing = forms.ChoiceField(
        label="Routing",
        required=False,
        choices=[("", "Each candidate's transport default")] + [(r, r) for r in ROUTINGS],
    )
    objectives = forms.MultipleChoiceField(
        label="Objectives",
        required=False,
        choices=[(o, OBJECTIVE_LABELS.get(o, o)) for o in OBJECTIVES],
        widget=forms.CheckboxSelectMultiple,
        help_text="What “dominated” means (none: cost and collective time).",
    )
    max_candidates = _number("Candidates, at most", whole=True, minimum=1)
    requirements_text = forms.CharField(
        label="Requirements (YAML or JSON)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
    )
    upload = forms.FileField(label="Or upload a file", required=False)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        facts = catalog_facts(for_new=True)
        self.fields["servers"].choices = [(m.slug, m.name or m.slug) for m in gpu_servers(facts)]
        self.fields["switches"].choices = [
            (m.slug, m.name or m.slug) for m in catalog_switches(facts)
        ]
        books = price_books_for(user).values_list("slug", "name") if user is not None else []
        self.fields["price_book"].choices = [("", "None (no cost limit)")] + list(books)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("source") == "text":
            upload = cleaned.get("upload")
            if upload is not None:
                if upload.size > MAX_UPLOAD:
                    self.add_error("upload", f"At most {MAX_UPLOAD:,} bytes.")
                    return cleaned
                cleaned["requirements_text"] = upload.read().decode("utf-8", errors="replace")
            if not (cleaned.get("requirements_text") or "").strip():
                self.add_error("requirements_text", "Paste the requirements, or upload a file.")
        elif cleaned.get("gpus") is None and not self.errors.get("gpus"):
            self.add_error("gpus", "How many GPUs: a whole number such as 8192.")
        return cleaned

    def document(self) -> dict:
        """The requirements document of a valid form; ``ValueError`` (with ``field``) when a
        list or the text cannot be read."""
        data = self.cleaned_data
        if data.get("source") == "text":
            try:
                return load_requirements_text(data["requirements_text"])
            except RequirementsError as exc:
                raise FieldProblem("requirements_text", exc.problems) from None
        return document_from_fields(data)

    def add_problems(self, messages: list[str]) -> None:
        """Each ``"<requirements field>: <why>"`` next to the form field that sets it (text:
        all beside the text); others above the form."""
        text = self.cleaned_data.get("source") == "text"
        for message in messages:
            path, sep, why = message.partition(": ")
            field = "requirements_text" if text else form_field_of(path) if sep else None
            self.add_error(field, f"{path}: {why}" if text and sep else why if field else message)


class FieldProblem(ValueError):
    def __init__(self, field: str, problems):
        super().__init__(field)
        self.field, self.problems = field, problems


def form_field_of(path: str) -> str | None:
    """``limits.budget.price_book`` -> ``price_book``; ``servers[1]`` -> ``servers``."""
    parts = re.sub(r"\[\d+\]", "", path).split(".")
    for end in range(len(parts), 0, -1):
        field = FIELD_OF.get(".".join(parts[:end]))
        if field:
            return field
    return None


def _listed(data: dict, name: str, cast=str) -> list:
    return [cast(value) for value in data.get(name) or []]


def document_from_fields(data: dict) -> dict:
    """The requirements document of the form's fields (empty ones left out).

    Long because: one line per requirements key, each read from its field as the parser
    takes it.
    """
    doc: dict = {}
    if data.get("name"):
        doc["name"] = data["name"]
    gpus, most = data.get("gpus"), data.get("gpus_max")
    doc["gpus"] = {"min": gpus, "max": most} if most else gpus
    for key, cast in (
        ("servers", str),
        ("switches", str),
        ("transports", str),
        ("speeds_gbps", int),
        ("planes", int),
        ("topologies", str),
        ("tiers", int),
        ("cabling", str),
        ("uplinks", str),
        ("objectives", str),
    ):
        if data.get(key):
            doc[key] = _listed(data, key, cast)
    ratios = {
        bound: data[f"oversubscription_{bound}"]
        for bound in ("min", "max")
        if data.get(f"oversubscription_{bound}") is not None
    }
    if ratios:
        doc["oversubscription"] = ratios
    limits: dict = {}
    if data.get("budget_amount") is not None or data.get("price_book"):
        budget = {"amount": data.get("budget_amount")}
        if data.get("budget_currency"):
            budget["currency"] = data["budget_currency"].upper()
        if data.get("price_book"):
            budget["price_book"] = data["price_book"]
        limits["budget"] = {k: v for k, v in budget.items() if v is not None}
    for key in (
        "power_kw",
        "racks",
        "max_gpus_lost_switch",
        "max_gpus_lost_rack",
        "min_optical_margin_db",
    ):
        if data.get(key) is not None:
            limits[key] = data[key]
    if limits:
        doc["limits"] = limits
    workload: dict = {}
    if data.get("collectives"):
        workload["collectives"] = _listed(data, "collectives")
    for key, whole in (("message_bytes", True), ("job_gpus", True)):
        if (data.get(key) or "").strip():
            try:
                workload[key] = numbers_of(data[key], whole=whole)
            except ValueError as exc:
                raise FieldProblem(key, [{"field": "", "message": str(exc)}]) from None
    if data.get("routing"):
        workload["routing"] = data["routing"]
    if workload:
        doc["workload"] = workload
    if data.get("max_candidates"):
        doc["max_candidates"] = data["max_candidates"]
    return doc

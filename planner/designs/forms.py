"""Forms of the design pages. They parse what was typed into a spec document; the spec rules
run in :func:`planner.designs.services.design_build`, and :func:`add_problems` puts each problem it
reports next to the form field of its spec field.

The wizard's fields map onto spec keys in one place, :func:`planner.designs.wizard.spec_from_fields`
(the live summary API uses it too, with the fields as the browser sends them).
"""

from __future__ import annotations

from django import forms

from inventory.models import RackType, ServerModel, SwitchModel
from inventory.permissions import price_books_for
from planner.designs.models import DesignSharingChoices
from planner.designs.wizard import (
    LAYOUT_FIELDS,
    MEDIA_FIELDS,
    PLAIN_FIELDS,
    SWITCH_FIELDS,
    form_field_for,
    form_problem,
    leaf_fit,
    short,
    spec_from_fields,
    wizard_defaults,
)
from planner.domain.spec import MEDIA_KINDS, TOPOLOGIES
from planner.teams.selectors import teams_for

__all__ = ["DesignEditForm", "DesignWizardForm", "form_field_for", "initial_from_spec"]

TOPOLOGY_LABELS = {
    "rail-optimized": "Rail-optimized (scalable units)",
    "clos": "Leaf-spine Clos",
    "fat-tree": "k-ary fat-tree",
}


def _part_choices(model, blank: str | None = None) -> list[tuple[str, str]]:
    choices = [("", blank)] if blank is not None else []
    parts = model.objects.filter(archived=False).order_by("slug")  # archived: not for new designs
    for slug, name in parts.values_list("slug", "name"):
        choices.append((slug, f"{slug} — {name}" if name and name != slug else slug))
    return choices


class DesignWizardForm(forms.Form):
    """A new design: spec fields (or the spec as YAML/JSON text), plus team and sharing."""

    name = forms.CharField(max_length=100, initial="New design")
    description = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    topology = forms.ChoiceField(choices=[(t, TOPOLOGY_LABELS[t]) for t in TOPOLOGIES])
    server = forms.ChoiceField(help_text="GPU server model from the catalog.")
    servers = forms.IntegerField(
        min_value=1, required=False, help_text="Fat-tree: leave empty for the full tree."
    )
    rails = forms.IntegerField(
        min_value=1, required=False, help_text="Default: the server's compute ports."
    )
    planes = forms.IntegerField(min_value=1, max_value=8, initial=1)
    tiers = forms.ChoiceField(
        choices=[("auto", "Auto (fewest that fit)"), ("2", "2"), ("3", "3")], initial="auto"
    )
    servers_per_su = forms.IntegerField(
        min_value=1,
        required=False,
        label="Servers per SU",
        help_text="Default: half the leaf radix (non-blocking).",
    )
    oversubscription = forms.FloatField(
        min_value=1, max_value=16, initial=1, help_text="Leaf downlink:uplink, 1 = non-blocking."
    )
    k = forms.IntegerField(min_value=4, required=False, label="k (fat-tree radix)")
    leaf = forms.ChoiceField(label="Leaf switch")
    spine = forms.ChoiceField(label="Spine switch", required=False)
    core = forms.ChoiceField(label="Core switch", required=False)
    reserved_leaf_ports = forms.IntegerField(
        min_value=0, initial=0, label="Reserved leaf ports", help_text="For UFM, per plane."
    )
    media_server_leaf = forms.ChoiceField(label="Media server – leaf", initial="auto")
    media_leaf_spine = forms.ChoiceField(label="Media leaf – spine", initial="auto")
    media_spine_core = forms.ChoiceField(label="Media spine – core", initial="auto")
    price_book = forms.ChoiceField(required=False, help_text="Prices that media 'auto' compares.")
    servers_per_rack = forms.IntegerField(
        min_value=1,
        required=False,
        help_text="Default: as many as fit the rack (needed when the catalog lacks the height).",
    )
    rack = forms.ChoiceField(
        required=False,
        label="Rack type",
        help_text="Its power limit decides servers per rack and flags over-limit racks.",
    )
    source = forms.ChoiceField(
        choices=[("form", "The fields above"), ("text", "The YAML/JSON text")],
        initial="form",
        widget=forms.RadioSelect,
        label="Build from",
    )
    spec_text = forms.CharField(
        required=False,
        label="Spec as YAML or JSON",
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
    )
    team = forms.ModelChoiceField(queryset=None, required=False, empty_label="No team")
    sharing = forms.ChoiceField(
        choices=DesignSharingChoices.choices, initial=DesignSharingChoices.PRIVATE
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["server"].choices = _part_choices(ServerModel)
        self.fields["leaf"].choices = _part_choices(SwitchModel)
        self.fields["spine"].choices = _part_choices(SwitchModel, "Same as leaf")
        self.fields["core"].choices = _part_choices(SwitchModel, "Same as spine")
        media = [(kind, kind) for kind in MEDIA_KINDS]
        for name in MEDIA_FIELDS.values():
            self.fields[name].choices = media
        self.fields["price_book"].choices = [("", "Default (seed reseller book)")] + [
            (slug, name) for slug, name in price_books_for(user).values_list("slug", "name")
        ]
        self.fields["rack"].choices = _part_choices(RackType, "48U rack, no power limit")
        self.fields["team"].queryset = teams_for(user)
        self.fields["team"].to_field_name = "slug"
        self._defaults_and_leaf_fit()

    def _defaults_and_leaf_fit(self) -> None:
        """A blank wizard starts with a server and a leaf that fit each other; the leaf list
        puts the switches that can take the chosen server's links first, and marks the rest
        with the reason (the link rules of :func:`planner.designs.wizard.leaf_fit`)."""
        servers = [slug for slug, _ in self.fields["server"].choices]
        if not self.is_bound and not self.initial.get("server"):
            self.initial.update(wizard_defaults(servers))
        server = (self.data.get("server") if self.is_bound else None) or self.initial.get(
            "server", servers[0] if servers else ""
        )
        if not server:
            return
        labels = dict(self.fields["leaf"].choices)
        fit = leaf_fit(server)
        if not fit["known"]:
            return
        fits = [(row["slug"], labels.get(row["slug"], row["slug"])) for row in fit["switches"]]
        good = [choice for choice, row in zip(fits, fit["switches"], strict=True) if row["fits"]]
        bad = [
            (row["slug"], f"{row['slug']} — cannot connect to {server}: {short(row['reason'])}")
            for row in fit["switches"]
            if not row["fits"]
        ]
        self.fields["leaf"].choices = [
            (f"Can connect to {server}", good),
            (f"Cannot connect to {server}", bad),
        ]

    def clean(self):
        data = super().clean()
        if data.get("source") == "text" and not (data.get("spec_text") or "").strip():
            self.add_error("spec_text", "Paste or write the spec, or build from the fields.")
        return data

    def spec_document(self) -> dict | str:
        """The spec to build: the text as typed, or the mapping the fields describe."""
        data = self.cleaned_data
        if data["source"] == "text":
            return data["spec_text"]
        return spec_from_fields(data)

    def add_problems(self, problems: list[dict]) -> None:
        """Show each spec problem next to its field (the text box when building from text)."""
        from_text = self.cleaned_data.get("source") == "text"
        for problem in problems:
            if from_text:
                field, message = problem["field"], problem["message"]
                self.add_error("spec_text", f"{field}: {message}" if field else message)
                continue
            shown = form_problem(problem)
            self.add_error(shown["field"] or None, shown["message"])


def initial_from_spec(spec: dict) -> dict:
    """Wizard field values showing ``spec`` (a preset)."""
    initial = {key: spec[key] for key in PLAIN_FIELDS if key in spec}
    if "tiers" in initial:
        initial["tiers"] = str(initial["tiers"])
    for role in SWITCH_FIELDS:
        initial[role] = (spec.get("switches") or {}).get(role, "")
    for tier, name in MEDIA_FIELDS.items():
        value = (spec.get("media") or {}).get(tier, "auto")
        initial[name] = value if isinstance(value, str) else "auto"
    for key in LAYOUT_FIELDS:
        if (spec.get("layout") or {}).get(key) is not None:
            initial[key] = spec["layout"][key]
    return initial


class DesignEditForm(forms.Form):
    """A new revision: the spec as YAML/JSON text, based on a given revision."""

    spec_text = forms.CharField(
        label="Spec (YAML or JSON)",
        widget=forms.Textarea(attrs={"rows": 24, "spellcheck": "false"}),
    )
    message = forms.CharField(
        required=False, max_length=300, label="What changed", help_text="Optional note."
    )
    base_revision = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    def add_problems(self, problems: list[dict]) -> None:
        for problem in problems:
            field, message = problem["field"], problem["message"]
            self.add_error("spec_text", f"{field}: {message}" if field else message)

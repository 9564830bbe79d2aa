"""Forms of the design pages. They parse what was typed into a spec document; the spec rules
run in :func:`planner.designs.services.design_build`, and :func:`add_problems` puts each problem it
reports next to the form field of its spec field.

The wizard's fields map onto spec keys in one place, :func:`planner.designs.wizard.spec_from_fields`
(the live summary API uses it too, with the fields as the browser sends them); the cluster
networks' steps in :mod:`planner.designs.wizard_networks`, each way.
"""

from __future__ import annotations

import yaml
from django import forms

from inventory.library.vocab import GPU_SERVER_KINDS
from inventory.models import RackType, ServerModel, SwitchModel
from inventory.permissions import price_books_for
from planner.designs.adapters import catalog_facts
from planner.designs.models import DesignSharingChoices
from planner.designs.spec_form import enum_values, spec_form_field
from planner.designs.wizard import (
    GROW_TO_FIELDS,
    LAYOUT_FIELDS,
    MEDIA_FIELDS,
    PLAIN_FIELDS,
    SHOWN_IN,
    SWITCH_FIELDS,
    form_field_for,
    form_problem,
    leaf_fit,
    server_nic,
    short,
    spec_from_fields,
    wizard_defaults,
)
from planner.designs.wizard_networks import (
    BOOLEAN_KEYS,
    FAMILY_SERVERS,
    NETWORK_KEYS,
    NETWORK_SWITCH_FIELDS,
    SWITCH_KEYS,
    include_field,
    is_checked,
    network_defaults,
    network_field,
    networks_initial,
)
from planner.designs.wizard_transport import (
    CHOICE_LABELS,
    IB_KEYS,
    NIC_KEYS,
    NIC_PROFILE_LABELS,
    ROCE_KEYS,
    SWITCH_PROFILE_LABELS,
    TRANSPORT_NAMES,
    TYPE_FIELD,
    ib_field,
    nic_field,
    roce_field,
    transport_initial,
    transport_table,
    transport_view,
)
from planner.domain.networks.common import SHARED_FIELDS
from planner.domain.presets import load_presets
from planner.domain.spec import SpecError, parse_spec, spec_schema
from planner.domain.specfields import rule_at
from planner.presentation import NETWORK_LABELS
from planner.teams.selectors import teams_for

__all__ = [
    "DesignEditForm",
    "DesignWizardForm",
    "fields_from_spec",
    "form_field_for",
    "initial_from_spec",
    "wizard_presets",
]

TOPOLOGY_LABELS = {
    "rail-optimized": "Rail-optimized (scalable units)",
    "clos": "Leaf-spine Clos",
    "fat-tree": "k-ary fat-tree",
}


#: What each network step says beside its checkbox.
NETWORK_NOTES = {
    "storage": "InfiniBand or Ethernet leaf-spine for the storage arrays",
    "inband": "leaf pairs and a core pair; nodes' bonded ports",
    "oob": "1 GbE access switches for every BMC, switch, node and PDU",
    "converged": "one fabric for storage and in-band: instead of those two",
}


def _network_form_fields() -> dict[str, forms.Field]:
    """The cluster networks' fields: per network its checkbox and the keys the wizard shows
    (:data:`planner.designs.wizard_networks.NETWORK_KEYS`), then the shared keys, each
    labelled and explained by its rule in the spec's definition (``networks.<network>.<key>``).
    Numbers are text here: the spec rules check them and name the spec path, live and on
    save alike."""
    fields: dict[str, forms.Field] = {}

    def field_of(*path: str) -> forms.Field:
        rule = rule_at(spec_schema(), ".".join(("networks", *path)))
        label, key = rule["title"], path[-1]
        if key in SWITCH_KEYS:
            field = forms.ChoiceField(required=False, label=label)
        elif key in BOOLEAN_KEYS:
            choices = [("", "Default: yes"), ("yes", "Yes"), ("no", "No")]
            field = forms.ChoiceField(required=False, label=label, choices=choices)
        else:
            field = forms.CharField(
                required=False,
                label=label,
                widget=forms.TextInput(attrs={"inputmode": "decimal"}),
                max_length=20,
            )
        field.widget.attrs["title"] = str(rule.get("description", ""))
        return field

    for network, keys in NETWORK_KEYS.items():
        fields[include_field(network)] = forms.BooleanField(
            required=False, label=NETWORK_LABELS.get(network, network)
        )
        for key in keys:
            fields[network_field(network, key)] = field_of(network, key)
    for key in SHARED_FIELDS:
        fields[key] = field_of(key)
    return fields


#: The network steps' fields, as a form the wizard's form takes them from.
NetworkFieldsForm = type("NetworkFieldsForm", (forms.Form,), _network_form_fields())


#: Text of each value of the transport's lists, by key (the value itself where absent).
TRANSPORT_VALUE_LABELS = {
    **CHOICE_LABELS,
    "type": {"roce": "RoCEv2 (Ethernet)", "infiniband": "InfiniBand"},
    "profile": SWITCH_PROFILE_LABELS,
}
NIC_VALUE_LABELS = {**CHOICE_LABELS, "profile": NIC_PROFILE_LABELS}
YES_NO = {True: ("yes", "Yes"), False: ("no", "No")}


def range_hint(rule: dict) -> str:
    """What a typed number may be, for the browser's hint (the spec rules check it).

    >>> range_hint({"minimum": 0, "maximum": 7}), range_hint({"minimum": 1})
    ('0-7', '')
    """
    if "minimum" in rule and "maximum" in rule:
        return f"{rule['minimum']}-{rule['maximum']}"
    return ""


def transport_form_field(rule: dict, labels: dict) -> forms.Field:
    """The form field of one transport key from its rule in the spec's definition (its
    title the label, its description the tooltip): a list
    of its values (yes/no for a boolean), a list of numbers typed as text, or a number typed
    as text. Numbers are text here, as in the network steps: the spec rules check them and
    name the spec path. Each list's empty entry and each box's placeholder say what empty
    means (set per form, from the catalog)."""
    label, title = rule["title"], str(rule.get("description", ""))
    values = enum_values(rule)
    if rule.get("type") == "boolean":
        choices = list(YES_NO.values())
    elif values is not None:
        choices = [(str(value), labels.get(value, str(value))) for value in values]
    else:
        hint = "e.g. 26 or 24-31" if rule.get("type") == "array" else range_hint(rule)
        attrs = {
            "inputmode": "text" if rule.get("type") == "array" else "decimal",
            "title": title + (f" ({hint})" if hint else ""),
        }
        return forms.CharField(
            required=False, label=label, widget=forms.TextInput(attrs=attrs), max_length=200
        )
    field = forms.ChoiceField(required=False, label=label, choices=[("", "Default"), *choices])
    field.widget.attrs["title"] = title
    return field


def _transport_form_fields() -> dict[str, forms.Field]:
    """The transport step's fields: the transport, the RoCE keys, the server NIC's keys and
    the InfiniBand keys (:mod:`planner.designs.wizard_transport`), each made from its rule in
    the spec's definition by :func:`transport_form_field`."""

    def rule(*path: str) -> dict:
        return rule_at(spec_schema(), ".".join(("transport", *path)))

    def labels(key: str) -> dict:
        return TRANSPORT_VALUE_LABELS.get(key, {})

    fields = {TYPE_FIELD: transport_form_field(rule("type"), labels("type"))}
    for key in (*ROCE_KEYS, *IB_KEYS):
        name = roce_field(key) if key in ROCE_KEYS else ib_field(key)
        fields[name] = transport_form_field(rule(key), labels(key))
    for key in NIC_KEYS:
        fields[nic_field(key)] = transport_form_field(
            rule("nics", "*", key), NIC_VALUE_LABELS.get(key, {})
        )
    return fields


#: The transport step's fields, as a form the wizard's form takes them from.
TransportFieldsForm = type("TransportFieldsForm", (forms.Form,), _transport_form_fields())


def _part_choices(model, blank: str | None = None, **filters) -> list[tuple[str, str]]:
    choices = [("", blank)] if blank is not None else []
    parts = model.objects.filter(archived=False, **filters).order_by("slug")  # archived: not new
    for slug, name in parts.values_list("slug", "name"):
        choices.append((slug, f"{slug} — {name}" if name and name != slug else slug))
    return choices


class DesignWizardForm(NetworkFieldsForm, TransportFieldsForm):
    """A new design: spec fields (or the spec as YAML/JSON text), the cluster networks' and
    the transport's optional steps, plus team and sharing."""

    # The spec's fields: made from its definition (label, help, range, choices, default).
    name = spec_form_field("name", initial="New design")
    description = spec_form_field("description", widget=forms.Textarea(attrs={"rows": 2}))
    topology = spec_form_field("topology", labels=TOPOLOGY_LABELS)
    server = spec_form_field("server", catalog=True)
    # One box for servers and, on a rack-scale system, racks (spec_from_fields).
    servers = spec_form_field(
        "servers",
        label="Servers (racks for a rack-scale system)",
        help_text="Racks for a rack-scale system (GB300-NVL72). Fat-tree: leave empty for the "
        "full tree.",
    )
    rails = spec_form_field("rails")
    planes = spec_form_field("planes")
    tiers = spec_form_field(
        "tiers",
        labels={"auto": "Auto (fewest that fit)", 1: "1 (a leaf or an MLAG pair per plane)"},
    )
    servers_per_su = spec_form_field("servers_per_su")
    oversubscription = spec_form_field("oversubscription")
    k = spec_form_field("k")
    leaf = spec_form_field("switches.leaf", catalog=True)
    spine = spec_form_field("switches.spine", catalog=True)
    core = spec_form_field("switches.core", catalog=True)
    reserved_leaf_ports = spec_form_field("reserved_leaf_ports")
    spines = spec_form_field("spines")
    min_spines = spec_form_field("min_spines")
    uplink_speed_gbps = spec_form_field("uplink_speed_gbps")
    grow_to_gpus = spec_form_field("grow_to.gpus")
    media_server_leaf = spec_form_field("media.server-leaf")
    media_leaf_spine = spec_form_field("media.leaf-spine")
    media_spine_core = spec_form_field("media.spine-core")
    price_book = spec_form_field("price_book", catalog=True)
    servers_per_rack = spec_form_field("layout.servers_per_rack")
    rack = spec_form_field("layout.rack", catalog=True)

    # The page's own fields.
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
        self.fields["server"].choices = _part_choices(ServerModel, kind__in=GPU_SERVER_KINDS)
        self.fields["leaf"].choices = _part_choices(SwitchModel)
        self.fields["spine"].choices = _part_choices(SwitchModel, "Same as leaf")
        self.fields["core"].choices = _part_choices(SwitchModel, "Same as spine")
        self.fields["price_book"].choices = [("", "Default (seed reseller book)")] + [
            (slug, name) for slug, name in price_books_for(user).values_list("slug", "name")
        ]
        self.fields["rack"].choices = _part_choices(RackType, "48U rack, no power limit")
        self.fields["team"].queryset = teams_for(user)
        self.fields["team"].to_field_name = "slug"
        self._defaults_and_leaf_fit()
        self._network_defaults()
        self._transport_defaults()

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

    def _server(self) -> str:
        if self.is_bound:
            return str(self.data.get("server") or "")
        return str(self.initial.get("server") or "")

    def _network_defaults(self) -> None:
        """Each network field shows what an empty box means for the chosen server: as its
        placeholder, or a switch list's first entry ("Default: QM9700", or "Choose a switch"
        where the server family has none). The page's script swaps them when the server
        changes (:func:`network_placeholders`)."""
        switches = _part_choices(SwitchModel)
        for name, text in network_defaults(self._server()).items():
            field = self.fields[name]
            if name in NETWORK_SWITCH_FIELDS:
                field.choices = [("", switch_blank(text))] + switches
            elif isinstance(field, forms.CharField):
                field.widget.attrs["placeholder"] = text

    def transport_table(self) -> dict:
        """The transport step's defaults for every leaf, server and profile
        (:func:`planner.designs.wizard_transport.transport_table`), embedded in the page."""
        if not hasattr(self, "_transport_table"):
            self._transport_table = transport_table(catalog_facts(for_new=True))
        return self._transport_table

    def _value(self, name: str) -> str:
        source = self.data if self.is_bound else self.initial
        value = source.get(name)
        if value is None and not self.is_bound:
            value = self.fields[name].initial
        return "" if value is None else str(value)

    def _transport_view(self) -> dict:
        names = (TYPE_FIELD, roce_field("profile"), nic_field("profile"), "leaf", "server")
        return transport_view(self.transport_table(), {n: self._value(n) for n in names})

    def _transport_defaults(self) -> None:
        """Each transport field shows what empty means for the chosen leaf, server and
        profiles: a box's placeholder, a list's empty entry ("Default: Lossless (PFC)"), and
        its help text (the default's provenance, with the address in the step). The page's
        script redoes this when one of them changes, from the same table."""
        view = self._transport_view()
        for name, entry in view["fields"].items():
            field = self.fields[name]
            field.widget.attrs["aria-describedby"] = f"id_{name}_helptext"
            if isinstance(field, forms.ChoiceField):
                blank = view["blanks"].get(name) or (
                    f"Default: {entry['default']}" if entry["default"] else "No default"
                )
                field.choices = [("", blank), *field.choices[1:]]
            else:
                field.widget.attrs["placeholder"] = entry["default"] or "no default"

    def transport_sections(self) -> dict:
        """The transport step as the page lays it out: the transport field, the RoCE
        switch fields, the server NIC's and the InfiniBand fields (each with its help text
        and the address of its source), which transport shows, and the NIC's heading."""
        view = self._transport_view()

        def rows(names):
            return [
                {
                    "field": self[name],
                    "help": view["fields"][name]["help"],
                    "url": view["fields"][name]["url"],
                }
                for name in names
            ]

        return {
            "type": rows([TYPE_FIELD])[0],
            "roce": rows(roce_field(key) for key in ROCE_KEYS),
            "nic": rows(nic_field(key) for key in NIC_KEYS),
            "infiniband": rows(ib_field(key) for key in IB_KEYS),
            "kind": view["kind"],
            "nic_heading": view["nic_heading"],
            "names": TRANSPORT_NAMES,
        }

    def network_sections(self) -> list[dict]:
        """The network steps as the page lays them out: label, note, the checkbox, whether
        it is on, and the fields."""
        sections = []
        for network, keys in NETWORK_KEYS.items():
            include = self[include_field(network)]
            sections.append(
                {
                    "name": network,
                    "label": NETWORK_LABELS.get(network, network),
                    "note": NETWORK_NOTES.get(network, ""),
                    "include": include,
                    "on": is_checked(include.value()),
                    "fields": [self[network_field(network, key)] for key in keys],
                }
            )
        return sections

    def networks_help(self) -> str:
        """What an empty network box means, for the page."""
        return (
            "Each network is optional. An empty box takes the default shown in it: the "
            "server's reference architecture where NVIDIA publishes one "
            f"({', '.join(FAMILY_SERVERS)}); other servers follow the same rules but must "
            "name the switch models."
        )

    def shared_network_fields(self) -> list:
        """The fields every network shares (management nodes, UFM appliances, racks)."""
        return [self[key] for key in SHARED_FIELDS]

    def networks_shown(self) -> bool:
        """Whether the shared fields show: a network is on, or one of them is filled."""
        return any(section["on"] for section in self.network_sections()) or any(
            str(self[key].value() or "").strip() for key in SHARED_FIELDS
        )

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


def switch_blank(default: str) -> str:
    """A network switch list's empty entry: the default it stands for, or a call to choose.

    >>> switch_blank("QM9700"), switch_blank("same as leaf"), switch_blank("")
    ('Default: QM9700', 'Default: same as leaf', 'Choose a switch (required)')
    """
    return f"Default: {default}" if default else "Choose a switch (required)"


def network_placeholders() -> dict:
    """What the page's script needs to show each network field's default when the server
    changes: per server with reference defaults, and for every other server (``"other"``),
    each field's default text (:func:`planner.designs.wizard_networks.network_defaults`) and
    the switch lists' empty entries; and the networks' labels."""
    tables = {server: network_defaults(server) for server in FAMILY_SERVERS}
    tables["other"] = network_defaults("")
    return {
        "defaults": tables,
        "switch_blank": {
            family: {
                name: switch_blank(text)
                for name, text in table.items()
                if name in NETWORK_SWITCH_FIELDS
            }
            for family, table in tables.items()
        },
        "labels": {name: NETWORK_LABELS.get(name, name) for name in NETWORK_KEYS},
    }


#: The form's fields that are not the spec's (a preset leaves them as they are).
NOT_SPEC_FIELDS = ("source", "spec_text", "team", "sharing")


def initial_from_spec(spec: dict) -> dict:
    """Wizard field values showing ``spec`` (a preset): the keys it gives, as values.

    ``racks`` (a rack-scale system) shows in ``servers``, ``grow_to.gpus`` in
    ``grow_to_gpus``.

    >>> initial_from_spec({"name": "x", "server": "GB300-NVL72", "racks": 8, "spines": 4,
    ...     "grow_to": {"gpus": 4096}, "switches": {"leaf": "L"}})["servers"]
    8
    >>> initial = initial_from_spec({"name": "x", "grow_to": {"gpus": 4096}, "min_spines": 1})
    >>> [initial[key] for key in ("grow_to_gpus", "min_spines", "spine", "media_server_leaf")]
    [4096, 1, '', 'auto']
    """
    initial = {key: spec[key] for key in PLAIN_FIELDS if key in spec}
    for key, name in SHOWN_IN.items():
        if key in spec and name not in spec:
            initial[name] = spec[key]
    grow_to = spec.get("grow_to") if isinstance(spec.get("grow_to"), dict) else {}
    for key, name in GROW_TO_FIELDS.items():
        if grow_to.get(key) is not None:
            initial[name] = grow_to[key]
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
    initial.update(networks_initial(spec.get("networks")))
    transport = spec.get("transport")
    if transport:
        nics = transport.get("nics") if isinstance(transport, dict) else None
        nic = server_nic(spec.get("server")) if nics else None
        initial.update(transport_initial(transport, server_nic=nic))
    return initial


def _text(value) -> str:
    return "" if value is None else str(value)


def fields_from_spec(spec: dict) -> dict[str, str]:
    """Every wizard field (those of the spec, not the text, team or sharing) showing ``spec``,
    as text: :func:`initial_from_spec`, and the form's default for each field it leaves out.
    The one mapping from spec to fields; the wizard page writes these when a preset is chosen.

    >>> fields = fields_from_spec({"name": "x", "topology": "clos", "server": "S",
    ...     "servers": 8, "switches": {"leaf": "L"}})
    >>> fields["servers"], fields["planes"], fields["min_spines"], fields["spines"], fields["leaf"]
    ('8', '1', '2', '', 'L')
    >>> "team" in fields or "spec_text" in fields
    False
    """
    base = DesignWizardForm.base_fields
    values = {
        name: _text(field.initial) for name, field in base.items() if name not in NOT_SPEC_FIELDS
    }
    values.update((name, _text(value)) for name, value in initial_from_spec(spec).items())
    values["source"] = "form"
    if not _fields_hold(spec, values):
        # The spec says more than the fields can (a networks block, layout or naming details):
        # the preset fills the YAML/JSON text and builds from it, so nothing is dropped.
        values["source"] = "text"
        values["spec_text"] = yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)
    return values


def _fields_hold(spec: dict, values: dict) -> bool:
    """Whether the fields ``values`` describe ``spec`` whole (the same parsed spec, but for
    an empty ``networks.compute``, which says nothing: the compute fabric is the spec's own)."""
    racks = {spec.get("server")} if "racks" in spec else set()  # the spec says which it is
    try:
        built = parse_spec(spec_from_fields(values, rack_systems=racks))
        return built == parse_spec(without_empty_compute(spec))
    except (SpecError, ValueError):
        return False


def without_empty_compute(spec: dict) -> dict:
    """``spec`` without ``networks.compute: {}`` (the compute fabric is the spec's own, and
    that key has no fields), and without a ``networks`` block left empty by that.

    >>> without_empty_compute({"name": "x", "networks": {"compute": {}, "oob": {}}})
    {'name': 'x', 'networks': {'oob': {}}}
    >>> without_empty_compute({"name": "x", "networks": {"compute": {}}})
    {'name': 'x'}
    """
    networks = spec.get("networks")
    if not isinstance(networks, dict) or networks.get("compute") != {}:
        return spec
    rest = {key: value for key, value in networks.items() if key != "compute"}
    out = {key: value for key, value in spec.items() if key != "networks"}
    if rest:
        out["networks"] = rest
    return out


def wizard_presets() -> list[dict]:
    """The worked examples as the wizard page and the API list them: each with ``fields``,
    the wizard's fields showing its spec (:func:`fields_from_spec`)."""
    return [
        {**preset.as_dict(), "fields": fields_from_spec(preset.spec)} for preset in load_presets()
    ]


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


class DesignShareForm(forms.Form):
    """The owner's share control on the design page: a team of theirs and how it shares."""

    team = forms.ModelChoiceField(queryset=None, required=False, empty_label="No team")
    sharing = forms.ChoiceField(choices=DesignSharingChoices.choices, label="Access")

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["team"].queryset = teams_for(owner)
        self.fields["team"].to_field_name = "slug"

    def clean(self):
        data = super().clean()
        if data.get("sharing") == DesignSharingChoices.PRIVATE:
            data["team"] = None  # private: no team reads it
        elif "team" in data and data["team"] is None and not self.has_error("team"):
            self.add_error("team", "Choose the team to share with, or make the design private.")
        return data

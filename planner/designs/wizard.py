"""The design wizard's server side: the one mapping from its form fields to a spec document
(:func:`spec_from_fields`, used by the form on save and by the live summary API), where each
spec problem shows on the form (:func:`form_problem`), which leaf switches can take a server's
links, and the defaults a new design starts from.

A switch "fits" a server when :func:`planner.domain.canvas.link_options` finds at least one
media choice for a server-leaf link between them: the same link rules
(``inventory/library/compat.py``, ``planner/domain/media/``) the generator and the
validator use. Archived parts are not offered, as in the wizard's lists.
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping

from planner.designs.adapters import catalog_facts
from planner.designs.wizard_networks import (
    NETWORK_NUMBER_FIELDS,
    network_form_field,
    networks_from_fields,
)
from planner.designs.wizard_transport import (
    TRANSPORT_NUMBER_FIELDS,
    needs_catalog,
    transport_form_field,
    transport_from_fields,
)
from planner.domain import canvas
from planner.domain.spec import spec_schema
from planner.domain.spec_model import TIERS
from planner.domain.specfields import rule_at
from planner.domain.transport.resolve import nic_of_server

#: Spec media tier -> form field name.
MEDIA_FIELDS = {tier: "media_" + tier.replace("-", "_") for tier in TIERS}
SWITCH_FIELDS = ("leaf", "spine", "core")
#: Spec keys whose form field has the same name.
PLAIN_FIELDS = (
    "name",
    "description",
    "topology",
    "server",
    "servers",
    "rails",
    "planes",
    "tiers",
    "spines",
    "min_spines",
    "uplink_speed_gbps",
    "servers_per_su",
    "oversubscription",
    "reserved_leaf_ports",
    "k",
    "price_book",
)
#: ``grow_to`` keys the wizard shows (``grow_to.<key>`` -> field); the final build in GPUs.
GROW_TO_FIELDS = {"gpus": "grow_to_gpus"}
#: Spec keys shown in another field: a rack-scale system's ``racks`` in ``servers``.
SHOWN_IN = {"racks": "servers"}
#: Layout keys the wizard shows (``layout.<key>``, same field name).
LAYOUT_FIELDS = ("servers_per_rack", "rack")
#: Fields that hold a number (typed as text in the browser).
NUMBER_FIELDS = (
    frozenset(
        {
            "servers",
            "rails",
            "planes",
            "tiers",
            "spines",
            "min_spines",
            "uplink_speed_gbps",
            "grow_to_gpus",
            "servers_per_su",
            "oversubscription",
            "reserved_leaf_ports",
            "k",
            "servers_per_rack",
        }
    )
    | NETWORK_NUMBER_FIELDS
    | TRANSPORT_NUMBER_FIELDS
)


def field_value(name: str, value):
    """A field's value for the spec: ``None`` for an empty box; a number field's text as the
    number it reads as, or the text itself when it reads as none (the spec rules then name
    the field); a whole float as an int; anything else as given.

    >>> [field_value("servers", v) for v in ("", " 12 ", "1.5", "3.0", "lots", 2.0, None)]
    [None, 12, 1.5, 3, 'lots', 2, None]
    >>> field_value("name", " x "), field_value("rack", "42")
    (' x ', '42')
    """
    if isinstance(value, str):
        if not value.strip():
            return None
        if name not in NUMBER_FIELDS:
            return value
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return text
        value = number if math.isfinite(number) else text
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_rack_system(server: str) -> bool:
    """Whether the catalog's ``server`` (slug or alias) is a rack-scale system (GB300-NVL72),
    whose count the spec gives as ``racks``."""
    model = catalog_facts(for_new=True).devices.get(server) if server else None
    return bool(model and model.category == "server" and model.is_rack_system)


def leaf_transport(leaf) -> str | None:
    """The transport a design on the catalog's ``leaf`` switch runs by default
    (``infiniband`` when it speaks InfiniBand only, else ``roce``; ``None``: no such switch),
    as :func:`planner.domain.transport.resolve.default_type` decides it."""
    model = catalog_facts(for_new=True).devices.get(leaf) if isinstance(leaf, str) else None
    if model is None or model.category != "switch":
        return None
    return "infiniband" if set(model.protocols) == {"infiniband"} else "roce"


def server_nic(server) -> str | None:
    """The key of the catalog ``server``'s compute NIC in ``transport.nics`` (its NIC part,
    or the server itself for on-board NICs; ``None``: no such server)."""
    facts = catalog_facts(for_new=True)
    model = facts.devices.get(server) if isinstance(server, str) else None
    if model is None or model.category != "server":
        return None
    return nic_of_server(facts, model.slug)[0]


def spec_from_fields(values: Mapping, *, rack_systems: Container[str] | None = None) -> dict:
    """The spec document the wizard's fields describe: the one mapping from form to spec.

    ``values`` maps form field names to what the browser sent (text) or to the form's
    cleaned values; other keys (team, sharing, the spec text...) are ignored. Values at the
    definition's default are left out (one plane, tiers "auto", min_spines 2,
    oversubscription 1, no reserved ports, media "auto"), and keys of one topology only go
    with it. Values are not checked here: the spec rules
    (:func:`planner.designs.services.design_build`) name each problem's field.

    The cluster networks' steps (a checkbox per network, its fields, the shared fields) make
    the ``networks`` block: :func:`planner.designs.wizard_networks.networks_from_fields`.

    The transport step's fields make the ``transport`` block
    (:func:`planner.designs.wizard_transport.transport_from_fields`): the fields of the
    transport the design runs (the one chosen, else the leaf switch's), the NIC's keyed by the
    server's NIC (both asked of the catalog only when such a field is filled).

    The ``servers`` field counts racks when the server is a rack-scale system: it becomes
    ``racks`` then. ``rack_systems`` names those servers (default: asks the catalog, see
    :func:`is_rack_system`).

    >>> spec_from_fields({"name": "x", "topology": "clos", "server": "S", "servers": "8",
    ...     "servers_per_su": "4", "k": "8", "planes": "1", "tiers": "auto",
    ...     "oversubscription": "3", "reserved_leaf_ports": "0", "leaf": "L",
    ...     "media_leaf_spine": "auto", "csrfmiddlewaretoken": "t"}, rack_systems=())
    {'name': 'x', 'topology': 'clos', 'server': 'S', 'servers': 8, 'oversubscription': 3, \
'switches': {'leaf': 'L'}}

    Spines, the uplink speed and the final build (rail-optimized and Clos only):

    >>> fields = {"name": "x", "topology": "rail-optimized", "server": "NVL", "servers": "8",
    ...     "spines": "4", "min_spines": "2", "uplink_speed_gbps": "800",
    ...     "grow_to_gpus": "4096", "leaf": "L"}
    >>> doc = spec_from_fields(fields, rack_systems={"NVL"})
    >>> doc["racks"], "servers" in doc, doc["spines"], "min_spines" in doc
    (8, False, 4, False)
    >>> doc["uplink_speed_gbps"], doc["grow_to"]
    (800, {'gpus': 4096})
    >>> spec_from_fields({**fields, "min_spines": "1"}, rack_systems=())["min_spines"]
    1
    >>> doc = spec_from_fields({**fields, "topology": "fat-tree", "k": "8"}, rack_systems=())
    >>> [key for key in ("spines", "min_spines", "uplink_speed_gbps", "grow_to") if key in doc]
    []

    Long because: the one mapping from wizard form to spec: one short branch per field group, kept
    in one place on purpose.
    """
    v = {name: field_value(name, value) for name, value in values.items()}
    topology = v.get("topology") or "rail-optimized"
    doc = {"name": values.get("name", ""), "topology": topology, "server": values.get("server", "")}
    if v.get("description") is not None:
        doc["description"] = v["description"]
    keys = ["servers", "rails"]
    keys += ["servers_per_su"] if topology == "rail-optimized" else []
    keys += ["k"] if topology == "fat-tree" else []
    doc.update({key: v[key] for key in keys if v.get(key) is not None})
    if "servers" in doc and isinstance(doc["server"], str):
        rack_scale = (
            is_rack_system(doc["server"]) if rack_systems is None else doc["server"] in rack_systems
        )
        if rack_scale:
            doc["racks"] = doc.pop("servers")
    doc.update({key: v[key] for key in ("planes", "tiers") if not _at_default(key, v.get(key))})
    if topology != "fat-tree":
        for key in ("spines", "uplink_speed_gbps"):
            if v.get(key) is not None:
                doc[key] = v[key]
        if not _at_default("min_spines", v.get("min_spines")):
            doc["min_spines"] = v["min_spines"]
        grow_to = {key: v[name] for key, name in GROW_TO_FIELDS.items() if v.get(name) is not None}
        if grow_to:
            doc["grow_to"] = grow_to
        for key in ("oversubscription", "reserved_leaf_ports"):
            if not _at_default(key, v.get(key)):
                doc[key] = v[key]
    doc["switches"] = {role: v[role] for role in SWITCH_FIELDS if v.get(role) is not None}
    media = {tier: v.get(name) for tier, name in MEDIA_FIELDS.items()}
    media = {tier: kind for tier, kind in media.items() if not _at_default(f"media.{tier}", kind)}
    if media:
        doc["media"] = media
    if v.get("price_book") is not None:
        doc["price_book"] = v["price_book"]
    layout = {key: v[key] for key in LAYOUT_FIELDS if v.get(key) is not None}
    if layout:
        doc["layout"] = layout
    networks = networks_from_fields(v)
    if networks:
        doc["networks"] = networks
    if needs_catalog(v):
        transport = transport_from_fields(
            v, default_type=leaf_transport(v.get("leaf")), server_nic=server_nic(v.get("server"))
        )
    else:
        transport = transport_from_fields(v)
    if transport:
        doc["transport"] = transport
    return doc


def _at_default(path: str, value) -> bool:
    """Whether a field's ``value`` adds nothing to the spec: empty, or the spec key's default
    in its definition (one plane, tiers ``auto``, media ``auto``...).

    >>> _at_default("planes", 1), _at_default("planes", None), _at_default("planes", 2)
    (True, True, False)
    """
    return value is None or value == rule_at(spec_schema(), path).get("default")


def form_field_for(spec_field: str) -> str | None:
    """The wizard field that shows problems of ``spec_field`` (``None``: the whole form).

    >>> form_field_for("switches.leaf"), form_field_for("media.leaf-spine"), form_field_for("x")
    ('leaf', 'media_leaf_spine', None)
    >>> [form_field_for(f) for f in ("spines", "min_spines", "uplink_speed_gbps", "racks")]
    ['spines', 'min_spines', 'uplink_speed_gbps', 'servers']
    >>> form_field_for("grow_to.gpus"), form_field_for("grow_to.racks"), form_field_for("grow_to")
    ('grow_to_gpus', 'grow_to_gpus', 'grow_to_gpus')
    >>> form_field_for("networks.storage.storage_ports"), form_field_for("networks.oob")
    ('storage_storage_ports', 'network_oob')
    >>> form_field_for("transport.cnp_dscp"), form_field_for("transport.nics.B3140H.data_dscp")
    ('transport_cnp_dscp', 'transport_nic_data_dscp')
    """
    head, _, rest = spec_field.partition(".")
    if head == "networks":
        return network_form_field(spec_field)
    if head == "transport":
        return transport_form_field(spec_field)
    if head == "grow_to":
        return GROW_TO_FIELDS.get(rest, GROW_TO_FIELDS["gpus"])
    if spec_field in SHOWN_IN:
        return SHOWN_IN[spec_field]
    if head == "switches":
        return rest if rest in SWITCH_FIELDS else "leaf"
    if head == "media":
        return MEDIA_FIELDS.get(rest)
    if head == "layout":
        return rest if rest in LAYOUT_FIELDS else None
    return spec_field if spec_field in PLAIN_FIELDS else None


def form_problem(problem: dict) -> dict:
    """A spec problem (``{field, message}``, ``field`` a spec path) as the wizard shows it:
    ``field`` the form field that shows it (``""``: the form as a whole), ``spec_field`` the
    spec path, and the message prefixed with that path when the form field is not exactly it.

    >>> form_problem({"field": "switches.leaf", "message": "no such switch"})
    {'field': 'leaf', 'spec_field': 'switches.leaf', 'message': 'no such switch'}
    >>> form_problem({"field": "layout.rack_units", "message": "too small"})["message"]
    'layout.rack_units: too small'

    A network's problem is named by its spec path, once:

    >>> form_problem({"field": "networks.storage.storage_ports", "message": "not an integer"})
    {'field': 'storage_storage_ports', 'spec_field': 'networks.storage.storage_ports', \
'message': 'networks.storage.storage_ports: not an integer'}
    >>> form_problem({"field": "networks.oob.uplinks", "message": "networks.oob.uplinks: 4 ports"})[
    ...     "message"]
    'networks.oob.uplinks: 4 ports'
    """
    field, message = problem["field"], problem["message"]
    target = form_field_for(field)
    exact = target == field or (
        target and (field.startswith(("switches.", "media.", "layout.")) or field == "grow_to.gpus")
    )
    if not exact and field and not message.startswith(f"{field}:"):
        message = f"{field}: {message}"
    return {"field": target or "", "spec_field": field, "message": message}


def leaf_fit(server: str) -> dict:
    """Every catalog switch, and whether it can be the leaf of ``server``.

    Returns ``{"server", "known", "switches": [{slug, name, fits, reason}]}``, switches that
    fit first (then by slug); ``reason`` is the rule's own message ("" when it fits).
    ``known`` is false when the catalog has no such server (every switch then fits: the
    server field shows that problem).
    """
    facts = catalog_facts(for_new=True)
    model = facts.devices.get(server)
    known = model is not None and model.category == "server"
    rows = []
    for slug, device in sorted(facts.devices.items()):
        if device.category != "switch" or device.slug != slug:  # aliases: once
            continue
        reason = ""
        if known:
            options = canvas.link_options(server, slug, facts=facts)
            if not list(options):
                reason = " ".join(r["message"] for r in options.refusal) or "no media fits"
        rows.append({"slug": slug, "name": device.name, "fits": not reason, "reason": reason})
    rows.sort(key=lambda row: (not row["fits"], row["slug"]))
    return {"server": server, "known": known, "switches": rows}


def wizard_defaults(servers: list[str]) -> dict:
    """The server and leaf a blank wizard starts with: the first server in ``servers`` that
    some switch can serve, and the first switch that fits it (``{}`` when none does)."""
    for server in servers:
        fitting = [row["slug"] for row in leaf_fit(server)["switches"] if row["fits"]]
        if fitting:
            return {"server": server, "leaf": fitting[0]}
    return {}


def short(text: str, limit: int = 90) -> str:
    """``text`` cut at a word before ``limit`` characters, with "…" when cut.

    >>> short("a b c", 10), short("one two three four", 12)
    ('a b c', 'one two…')
    """
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"

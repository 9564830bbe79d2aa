"""The design wizard's cluster-network steps: the spec's ``networks`` block as form fields,
both ways (issue 18).

One optional step per network (storage, in-band, out-of-band, converged), each an "include"
checkbox (``network_<name>``) and the keys the wizard shows (``<name>_<key>``, e.g.
``storage_leaf``, ``oob_pdus_per_rack``), and the shared keys once under their own names
(``management_nodes``, ``ufm_appliances``, ``management_racks``). A field left empty leaves
its key out of the spec, so the planner's default applies
(:mod:`planner.domain.networks.common`); :func:`network_defaults` says what that default is
for a server, for the placeholders. A key the wizard does not show (``spines``, ``nfs_links``
...) makes a spec one the fields cannot show whole: the wizard then opens it as its text.

:func:`planner.designs.wizard.spec_from_fields` calls :func:`networks_from_fields`, and
:func:`planner.designs.forms.initial_from_spec` calls :func:`networks_initial`: the one
mapping, each way. Values are not checked here: the spec rules name each problem's field
(``networks.storage.storage_ports``), and :func:`network_form_field` says which form field
shows it.
"""

from __future__ import annotations

from collections.abc import Mapping

from planner.domain.networks.common import (
    FAMILY_DEFAULTS,
    RULE_DEFAULTS,
    SHARED_FIELDS,
    family_defaults,
)
from planner.domain.spec import spec_schema
from planner.domain.specfields import rule_at

#: The networks the wizard shows, in the page's order, and the spec keys of each it shows.
NETWORK_KEYS: dict[str, tuple[str, ...]] = {
    "storage": (
        "leaf",
        "spine",
        "speed_gbps",
        "ports_per_node",
        "dual_homed",
        "oversubscription",
        "storage_ports",
        "storage_port_speed_gbps",
        "storage_leaves",
    ),
    "inband": ("leaf", "core", "speed_gbps", "ports_per_node", "dual_homed", "uplinks"),
    "oob": (
        "leaf",
        "ports_per_node",
        "uplinks",
        "pdus_per_rack",
        "switch_multiple",
        "switches_per_rack",
    ),
    "converged": (
        "leaf",
        "spine",
        "speed_gbps",
        "ports_per_node",
        "dual_homed",
        "oversubscription",
        "storage_ports",
        "storage_port_speed_gbps",
        "storage_leaves",
        "uplinks",
    ),
}
#: Keys that name a catalog switch (a list of the catalog's switches).
SWITCH_KEYS = frozenset({"leaf", "spine", "core"})
#: Keys that are yes/no (a list: default, yes, no): booleans in the spec's definition.
BOOLEAN_KEYS = frozenset(
    key
    for network, keys in NETWORK_KEYS.items()
    for key in keys
    if rule_at(spec_schema(), f"networks.{network}.{key}").get("type") == "boolean"
)
#: Form text of a boolean key's value.
BOOLEAN_TEXT = {True: "yes", False: "no"}
#: What an absent key means when the planner derives it rather than taking a fixed value.
DERIVED_DEFAULTS = {
    "leaf": "",  # no default: the spec must name the switch (the planner says so)
    "spine": "same as leaf",
    "core": "same as leaf",
    "speed_gbps": "leaf's port speed",
    "storage_port_speed_gbps": "same as speed",
    "storage_leaves": "fewest that fit",
}


def include_field(network: str) -> str:
    """The form field (a checkbox) that includes ``network``: ``network_storage``."""
    return f"network_{network}"


def network_field(network: str, key: str) -> str:
    """The form field of ``networks.<network>.<key>``: ``storage_leaf``."""
    return f"{network}_{key}"


#: Form fields that name a catalog switch.
NETWORK_SWITCH_FIELDS = frozenset(
    network_field(network, key)
    for network, keys in NETWORK_KEYS.items()
    for key in keys
    if key in SWITCH_KEYS
)
#: Form fields that hold a number typed as text (a ratio such as ``4:3`` stays text).
NETWORK_NUMBER_FIELDS = frozenset(
    [
        network_field(network, key)
        for network, keys in NETWORK_KEYS.items()
        for key in keys
        if key not in SWITCH_KEYS | BOOLEAN_KEYS
    ]
    + list(SHARED_FIELDS)
)


def is_checked(value) -> bool:
    """Whether a checkbox's value (as the browser sends it, or the form cleaned it) is on.

    >>> [is_checked(v) for v in ("on", True, "true", "", None, False, "off")]
    [True, True, True, False, False, False, False]
    """
    if isinstance(value, str):
        return value.strip().lower() in ("on", "true", "yes", "1")
    return value is True


def networks_from_fields(values: Mapping) -> dict:
    """The spec's ``networks`` block the fields describe (``{}``: none).

    ``values`` are the wizard's field values after
    :func:`planner.designs.wizard.field_value` (``None`` for an empty box, numbers read).
    A network is in the block when its checkbox is on, with the keys whose fields are filled;
    the fields of a network left out are ignored. The shared keys go in when filled.

    >>> networks_from_fields({"network_storage": "on", "storage_ports_per_node": 2,
    ...     "storage_dual_homed": "no", "network_oob": None, "oob_uplinks": 4,
    ...     "management_nodes": 3})
    {'storage': {'ports_per_node': 2, 'dual_homed': False}, 'management_nodes': 3}
    """
    networks: dict = {}
    for network, keys in NETWORK_KEYS.items():
        if not is_checked(values.get(include_field(network))):
            continue
        block = {}
        for key in keys:
            value = values.get(network_field(network, key))
            if value is None:
                continue
            if key in BOOLEAN_KEYS and isinstance(value, str):
                value = {"yes": True, "no": False}.get(value.strip().lower(), value)
            block[key] = value
        networks[network] = block
    for key in SHARED_FIELDS:
        if values.get(key) is not None:
            networks[key] = values[key]
    return networks


def networks_initial(networks) -> dict:
    """Field values showing a spec's ``networks`` block: each network's checkbox (``"on"``),
    the keys the wizard shows, and the shared keys. Keys it does not show are left out (the
    wizard then cannot show the spec whole, and opens its text).

    >>> networks_initial({"compute": {}, "storage": {"dual_homed": True}, "oob": {},
    ...     "ufm_appliances": 2})
    {'network_storage': 'on', 'storage_dual_homed': 'yes', 'network_oob': 'on', 'ufm_appliances': 2}
    """
    initial: dict = {}
    if not isinstance(networks, dict):
        return initial
    for network, keys in NETWORK_KEYS.items():
        if network not in networks:
            continue
        initial[include_field(network)] = "on"
        block = networks[network] if isinstance(networks[network], dict) else {}
        for key in keys:
            if key not in block:
                continue
            value = block[key]
            if key in BOOLEAN_KEYS and isinstance(value, bool):
                value = BOOLEAN_TEXT[value]
            initial[network_field(network, key)] = value
    for key in SHARED_FIELDS:
        if key in networks:
            initial[key] = networks[key]
    return initial


def network_form_field(spec_field: str) -> str | None:
    """The wizard field that shows problems of ``spec_field`` under ``networks``: the key's
    field, else the network's checkbox (``None``: the form as a whole).

    >>> [network_form_field(f) for f in ("networks.oob.leaf", "networks.converged",
    ...     "networks.inband.nfs_links", "networks.management_racks", "networks")]
    ['oob_leaf', 'network_converged', 'network_inband', 'management_racks', None]
    """
    parts = spec_field.split(".")
    if len(parts) < 2 or parts[0] != "networks":
        return None
    name = parts[1]
    if name in SHARED_FIELDS and len(parts) == 2:
        return name
    if name not in NETWORK_KEYS:
        return None
    if len(parts) > 2 and parts[2] in NETWORK_KEYS[name]:
        return network_field(name, parts[2])
    return include_field(name)


def _default_text(value) -> str:
    if isinstance(value, bool):
        return BOOLEAN_TEXT[value]
    return "" if value is None else str(value)


#: Servers whose family has reference defaults (the rest take the rule defaults alone).
FAMILY_SERVERS = tuple(sorted(FAMILY_DEFAULTS))


def network_defaults(server: str) -> dict[str, str]:
    """What each network field means when left empty, for ``server``: the value the planner
    takes (``"QM9700"``, ``"4:3"``, ``"yes"``), how it derives one (``"same as leaf"``), or
    ``""`` when there is none (a switch model no reference gives must be named).

    The server family's reference defaults come over the rule defaults, as the planner takes
    them (:func:`planner.domain.networks.common.family_defaults`: DGX-H100 and DGX-H200 the
    H100 SuperPOD RA's, RA-11333-001 V11 Tables 7 and 8; DGX-B200 the B200 RA's; ...).

    >>> ra, other = network_defaults("DGX-H100"), network_defaults("XE9680")
    >>> ra["storage_leaf"], ra["storage_oversubscription"], ra["oob_switch_multiple"]
    ('QM9700', '4:3', '2')
    >>> other["storage_leaf"], other["storage_spine"], other["management_nodes"]
    ('', 'same as leaf', '0')
    """
    family = family_defaults(server)
    shared = {**RULE_DEFAULTS["shared"], **(family.get("shared") or {})}
    out = {key: _default_text(shared.get(key)) for key in SHARED_FIELDS}
    for network, keys in NETWORK_KEYS.items():
        values = {**RULE_DEFAULTS[network], **(family.get(network) or {})}
        for key in keys:
            value = values.get(key)
            text = DERIVED_DEFAULTS.get(key, "") if value is None else _default_text(value)
            out[network_field(network, key)] = text
    return out

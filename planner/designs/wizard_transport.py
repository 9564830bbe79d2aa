"""The design wizard's transport step: the spec's ``transport`` block as form fields, both ways
(issue 20).

One optional step: the transport (``transport_type``: empty = from the leaf switch, InfiniBand
or RoCEv2), then the fields of that transport. RoCE: the switch profile and the keys of
:data:`ROCE_KEYS` (``transport_<key>``), and the server's NIC marking (``transport_nic_<key>``,
:data:`NIC_KEYS`), which the spec keys by the NIC's catalog part (``transport.nics.<slug>``):
the wizard's server has one compute NIC (:func:`planner.domain.transport.resolve.nic_of_server`:
its NIC part, or the server itself when its NICs are on board). InfiniBand: the keys of
:data:`IB_KEYS`.

A field left empty leaves its key out of the block, so the profile's default applies
(:mod:`planner.domain.transport.settings`); :func:`transport_table` says what each default is
and where it comes from, for the placeholders and help texts. The fields of the transport the
design does not run are left out of the spec (as a network step's fields when its box is not
ticked). A block the fields cannot show (``mtu_by_role``, a NIC other than the server's, two
NICs) makes the wizard open the spec as its text.

:func:`planner.designs.wizard.spec_from_fields` calls :func:`transport_from_fields` and
:func:`planner.designs.forms.initial_from_spec` calls :func:`transport_initial`: the one
mapping, each way. Values are not checked here: the spec rules name each problem's field
(``transport.ecn_min_kb``) and :func:`transport_form_field` says which form field shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from planner.domain.spec import spec_schema
from planner.domain.specfields import rule_at
from planner.domain.transport.block import IB_FIELDS, NIC_FIELDS, normalize
from planner.domain.transport.resolve import SHARP_ASICS, SHARP_SOURCE, nic_of_server
from planner.domain.transport.settings import (
    IB_DEFAULTS,
    NIC_PROFILE_DEFAULTS,
    NOT_FOUND,
    ROCE_PROFILE_DEFAULTS,
    nic_profile_for,
    switch_profile_for,
)

#: The form field of the transport itself.
TYPE_FIELD = "transport_type"
#: The RoCE keys the wizard shows (``mtu_by_role`` and ``nics`` are not plain fields).
ROCE_KEYS = (
    "profile",
    "lossless_priority",
    "lossless_dscp",
    "cnp_priority",
    "cnp_dscp",
    "trust",
    "ecn_min_kb",
    "ecn_max_kb",
    "pfc_mode",
    "mtu_b",
    "pfc_watchdog",
    "load_balancing",
    "multiplane_mode",
)
#: The keys of the server NIC's marking (``transport.nics.<slug>.<key>``).
NIC_KEYS = NIC_FIELDS
#: The InfiniBand keys.
IB_KEYS = IB_FIELDS


def _keys_of(*kinds: str) -> frozenset[str]:
    """The transport keys (of the block and of a NIC's) whose rule in the spec's definition
    is of one of ``kinds``: ``boolean``, ``array``, or ``enum`` (a list of values)."""
    keys = set()
    for path, names in (("transport", (*ROCE_KEYS, *IB_KEYS)), ("transport.nics.*", NIC_KEYS)):
        for key in names:
            rule = rule_at(spec_schema(), f"{path}.{key}")
            kind = "enum" if "enum" in rule else rule.get("type")
            if kind in kinds:
                keys.add(key)
    return frozenset(keys)


#: Keys that are yes/no (a list: default, yes, no).
BOOLEAN_KEYS = _keys_of("boolean")
#: Keys that hold a list of numbers, typed as "24, 26" or "24-31".
LIST_KEYS = _keys_of("array")
#: Keys that are one of a list (the rest of the keys hold a number).
CHOICE_KEYS = _keys_of("enum")
BOOLEAN_TEXT = {True: "yes", False: "no"}
TRANSPORT_NAMES = {"roce": "RoCEv2", "infiniband": "InfiniBand"}


def roce_field(key: str) -> str:
    """The form field of ``transport.<key>`` (RoCE or InfiniBand): ``transport_ecn_min_kb``."""
    return f"transport_{key}"


ib_field = roce_field


def nic_field(key: str) -> str:
    """The form field of ``transport.nics.<server's NIC>.<key>``: ``transport_nic_cnp_dscp``."""
    return f"transport_nic_{key}"


ROCE_FIELDS = tuple(roce_field(key) for key in ROCE_KEYS)
NIC_FORM_FIELDS = tuple(nic_field(key) for key in NIC_KEYS)
IB_FORM_FIELDS = tuple(ib_field(key) for key in IB_KEYS)
#: Every field of the step, the transport first.
TRANSPORT_FIELDS = (TYPE_FIELD, *ROCE_FIELDS, *NIC_FORM_FIELDS, *IB_FORM_FIELDS)
#: Form fields that hold a number typed as text.
TRANSPORT_NUMBER_FIELDS = frozenset(
    [roce_field(k) for k in ROCE_KEYS if k not in CHOICE_KEYS | BOOLEAN_KEYS | LIST_KEYS]
    + [nic_field(k) for k in NIC_KEYS if k not in CHOICE_KEYS]
)


def parse_numbers(text: str) -> list:
    """A typed list of numbers (``"24, 26"``, ``"24-31"``): each item as the number it reads
    as, or as typed when it reads as none (the spec rules then name the field).

    >>> parse_numbers("24-27, 30"), parse_numbers(" 26 "), parse_numbers("24, x")
    ([24, 25, 26, 27, 30], [26], [24, 'x'])
    """
    out: list = []
    for item in (part.strip() for part in re.split(r"[,\s]+", text.strip())):
        if not item:
            continue
        bounds = re.fullmatch(r"(\d+)\s*-\s*(\d+)", item)
        if bounds and int(bounds[1]) <= int(bounds[2]) <= int(bounds[1]) + 64:
            out.extend(range(int(bounds[1]), int(bounds[2]) + 1))
        else:
            out.append(int(item) if item.isdigit() else item)
    return out


def numbers_text(values) -> str:
    """A list of numbers as the field shows it: runs of three or more as ``a-b``.

    >>> numbers_text([24, 25, 26, 27, 30]), numbers_text([24, 26]), numbers_text([26, 24, 25])
    ('24-27, 30', '24, 26', '26, 24, 25')
    """
    values = list(values)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return ", ".join(str(v) for v in values)
    parts, start = [], 0
    for end in range(1, len(values) + 1):
        if end < len(values) and values[end] == values[end - 1] + 1:
            continue
        run = values[start:end]
        parts += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else [str(v) for v in run]
        start = end
    return ", ".join(parts)


def _value(key: str, value):
    """A field's value (after :func:`planner.designs.wizard.field_value`) as the spec's."""
    if key in BOOLEAN_KEYS and isinstance(value, str):
        return {"yes": True, "no": False}.get(value.strip().lower(), value)
    if key in LIST_KEYS and isinstance(value, str):
        return parse_numbers(value)
    return value


def _text(key: str, value):
    if key in BOOLEAN_KEYS and isinstance(value, bool):
        return BOOLEAN_TEXT[value]
    if key in LIST_KEYS and isinstance(value, list | tuple):
        return numbers_text(value)
    return value


def transport_from_fields(
    values: Mapping, *, default_type: str | None = None, server_nic: str | None = None
) -> dict:
    """The spec's ``transport`` block the fields describe (``{}``: none).

    ``values`` are the wizard's field values after
    :func:`planner.designs.wizard.field_value` (``None`` for an empty box, numbers read).
    ``default_type`` is the transport of the leaf switch (used when ``transport_type`` is
    empty; ``None``: not known, the fields of both go in) and ``server_nic`` the key of the
    server's NIC (``transport.nics.<key>``; ``None``: not known, the NIC fields stay out).

    >>> transport_from_fields({"transport_type": "roce", "transport_ecn_min_kb": 150,
    ...     "transport_lossless_dscp": "24-26", "transport_pfc_watchdog": "no",
    ...     "transport_nic_data_dscp": 24, "transport_sharp": "yes"}, server_nic="B3140H")
    {'type': 'roce', 'lossless_dscp': [24, 25, 26], 'ecn_min_kb': 150, 'pfc_watchdog': False, \
'nics': {'B3140H': {'data_dscp': 24}}}
    >>> transport_from_fields({"transport_type": None, "transport_sharp": "yes"},
    ...     default_type="infiniband")
    {'sharp': True}
    >>> transport_from_fields({"transport_type": None})
    {}
    """
    kind = values.get(TYPE_FIELD)
    runs = kind if kind in TRANSPORT_NAMES else default_type
    block: dict = {}
    if kind is not None:
        block["type"] = kind
    if runs != "infiniband":
        for key in ROCE_KEYS:
            if values.get(roce_field(key)) is not None:
                block[key] = _value(key, values[roce_field(key)])
        nic = {
            key: values[nic_field(key)]
            for key in NIC_KEYS
            if values.get(nic_field(key)) is not None
        }
        if nic and server_nic:
            block["nics"] = {server_nic: nic}
    if runs != "roce":
        for key in IB_KEYS:
            if values.get(ib_field(key)) is not None:
                block[key] = _value(key, values[ib_field(key)])
    return block


def needs_catalog(values: Mapping) -> bool:
    """Whether :func:`transport_from_fields` needs the leaf's transport or the server's NIC:
    a field of a transport is filled (the transport itself alone needs neither). ``values``
    as :func:`transport_from_fields` takes them (``None`` for an empty box).

    >>> needs_catalog({"transport_type": "roce", "transport_mtu_b": None})
    False
    >>> needs_catalog({"transport_nic_cnp_priority": 0})
    True
    """
    return any(values.get(name) is not None for name in TRANSPORT_FIELDS[1:])


def transport_initial(block, *, server_nic: str | None = None) -> dict:
    """Field values showing a spec's ``transport`` block: the keys the wizard shows. A NIC
    other than the server's (``server_nic``) is left out (the wizard then cannot show the spec
    whole, and opens its text).

    >>> transport_initial({"type": "roce", "profile": "arista", "lossless_dscp": [24, 25, 26],
    ...     "pfc_watchdog": True, "nics": {"B3140H": {"data_dscp": 24}}}, server_nic="B3140H")
    {'transport_type': 'roce', 'transport_profile': 'arista', 'transport_lossless_dscp': \
'24-26', 'transport_pfc_watchdog': 'yes', 'transport_nic_data_dscp': 24}
    >>> transport_initial("infiniband")
    {'transport_type': 'infiniband'}
    """
    initial: dict = {}
    if not isinstance(block, dict | str):
        return initial
    block = normalize(block)
    if block.get("type") is not None:
        initial[TYPE_FIELD] = block["type"]
    for key in (*ROCE_KEYS, *IB_KEYS):
        if key in block:
            initial[roce_field(key)] = _text(key, block[key])
    nics = block.get("nics")
    if isinstance(nics, dict) and len(nics) == 1 and server_nic in nics:
        nic = nics[server_nic] if isinstance(nics[server_nic], dict) else {}
        for key in NIC_KEYS:
            if key in nic:
                initial[nic_field(key)] = nic[key]
    return initial


def transport_form_field(spec_field: str) -> str | None:
    """The wizard field that shows problems of ``spec_field`` under ``transport``: the key's
    field, a NIC's key's field, else the transport's (``None``: not a transport field).

    >>> [transport_form_field(f) for f in ("transport.ecn_min_kb", "transport.lossless_dscp.2",
    ...     "transport.nics.B3140H.cnp_dscp", "transport.nics.X", "transport.mtu_by_role.leaf",
    ...     "transport", "networks.oob")]
    ['transport_ecn_min_kb', 'transport_lossless_dscp', 'transport_nic_cnp_dscp', \
'transport_nic_profile', 'transport_mtu_b', 'transport_type', None]
    """
    parts = spec_field.split(".")
    if parts[0] != "transport":
        return None
    if len(parts) == 1:
        return TYPE_FIELD
    key = parts[1]
    if key == "nics":
        nic_key = parts[3] if len(parts) > 3 else ""
        return nic_field(nic_key if nic_key in NIC_KEYS else "profile")
    if key == "mtu_by_role":
        return roce_field("mtu_b")
    if key == "type":
        return TYPE_FIELD
    if key in ROCE_KEYS or key in IB_KEYS:
        return roce_field(key)
    return TYPE_FIELD


# Defaults and their sources, for the page -----------------------------------------------------
SWITCH_PROFILE_LABELS = {
    "nvidia-spectrum-x": "NVIDIA Spectrum-X",
    "arista": "Arista",
    "cisco": "Cisco",
    "juniper": "Juniper",
    "custom": "Custom (no defaults)",
}
NIC_PROFILE_LABELS = {
    "nvidia-connectx": "NVIDIA ConnectX / BlueField",
    "intel-gaudi3": "Intel Gaudi 3",
    "broadcom-thor2": "Broadcom Thor 2",
    "custom": "Custom (no defaults)",
}
CHOICE_LABELS = {
    "trust": {"dscp": "DSCP (L3)", "pcp": "PCP (L2)"},
    "pfc_mode": {
        "lossless": "Lossless (PFC)",
        "semi-lossless": "Semi-lossless (pause honoured, not propagated)",
        "lossy": "Lossy (ECN only)",
    },
    "load_balancing": {
        "ecmp": "ECMP",
        "flowlet": "Flowlet",
        "adaptive": "Adaptive routing",
        "spraying": "Packet spraying",
    },
    "multiplane_mode": {
        "none": "None (one plane per NIC port)",
        "swplb": "Software plane load balancing (swplb)",
        "hwplb": "Hardware plane load balancing (hwplb)",
    },
}
_URL = re.compile(r"https?://[^\s();]+")


def source_parts(source: str | None) -> dict[str, str]:
    """A default's source (``"URL (primary; note)"``, ``"inferred: note (URL)"``) as its first
    address and the rest of its text, as a sentence (``"Primary source: note"``); a further
    address in the note shows as its host.

    >>> source_parts("https://x.example/a (primary; show roce)")
    {'url': 'https://x.example/a', 'text': 'Primary source: show roce'}
    >>> source_parts("inferred: EOS maps CS3 (https://y.example/b)")
    {'url': 'https://y.example/b', 'text': 'Inferred: EOS maps CS3'}
    >>> source_parts("https://x.example/a (primary; v26.7 says 4 (https://z.example/c/d))")["text"]
    'Primary source: v26.7 says 4 (z.example)'
    """
    text = str(source or "")
    match = _URL.search(text)
    url = match[0] if match else ""
    rest = (text[: match.start()] + text[match.end() :]).strip() if match else text
    rest = _URL.sub(lambda m: m[0].split("/")[2], rest)
    rest = re.sub(r"\(\s*\)", "", rest).strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    grade, _, note = rest.partition(";")
    if grade.strip() in ("primary", "secondary"):
        rest = f"{grade.strip().capitalize()} source" + (f": {note.strip()}" if note else "")
    elif rest.startswith("inferred:"):
        rest = "Inferred:" + rest[len("inferred:") :]
    return {"url": url, "text": rest.strip()}


def value_text(key: str, value) -> str:
    """A default value as the page shows it ("" for none).

    >>> value_text("lossless_dscp", (24, 25, 26)), value_text("shield", True)
    ('24-26', 'yes')
    >>> value_text("mtu_b", 9216), value_text("pfc_mode", "lossy"), value_text("trust", None)
    ('9,216', 'Lossy (ECN only)', '')
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return BOOLEAN_TEXT[value]
    if isinstance(value, list | tuple):
        return numbers_text(value)
    if isinstance(value, int):
        return f"{value:,}"
    return CHOICE_LABELS.get(key, {}).get(value, str(value))


def _entry(key: str, sourced, whose: str) -> dict[str, str]:
    """One field's default for the page: its value text, the help text and the address."""
    text = value_text(key, sourced.value)
    source = source_parts(sourced.source)
    if not text:
        why = "none published where searched" if sourced.source == NOT_FOUND else source["text"]
        help_text = f"{whose}: no default ({why}); give it here"
        return {"default": "", "help": help_text, "url": source["url"]}
    help_text = f"{whose}: {text}. {source['text']}"
    return {"default": text, "help": help_text, "url": source["url"]}


def _profile_entries(defaults: Mapping, label: str) -> dict[str, dict[str, str]]:
    return {key: _entry(key, sourced, f"{label} profile") for key, sourced in defaults.items()}


def transport_table(facts) -> dict:
    """What the step shows for each choice, from the catalog ``facts`` and the profiles of
    :mod:`planner.domain.transport.settings`: per leaf switch its transport and switch
    profile (and whether its ASIC runs SHARP); per GPU server its NIC's key, name and NIC
    profile; per switch profile, NIC profile and for InfiniBand each field's default (value
    text, help text with its provenance, and its address). The page embeds it; its script
    picks from it when the leaf, server, transport or a profile changes."""
    leaves, servers = {}, {}
    for slug, device in sorted(facts.devices.items()):
        if device.slug != slug:  # aliases: once
            continue
        part = facts.parts.get(slug) or {}
        if device.category == "switch":
            protocols = set(device.protocols)
            kind = "infiniband" if protocols == {"infiniband"} else "roce"
            maker = part.get("manufacturer") or ""
            leaves[slug] = {
                "type": kind,
                "profile": switch_profile_for(maker),
                "maker": maker,
                "sharp": part.get("asic") in SHARP_ASICS,
            }
        elif device.category == "server":
            key, name, maker = nic_of_server(facts, slug)
            profile = nic_profile_for(maker, name)
            servers[slug] = {"nic": key, "nic_name": name, "nic_profile": profile}
    sharp_source = source_parts(SHARP_SOURCE)
    return {
        "leaves": leaves,
        "servers": servers,
        "switch_profiles": {
            profile: _profile_entries(defaults, SWITCH_PROFILE_LABELS[profile].split(" (")[0])
            for profile, defaults in ROCE_PROFILE_DEFAULTS.items()
        },
        "nic_profiles": {
            profile: _profile_entries(defaults, NIC_PROFILE_LABELS[profile].split(" (")[0])
            for profile, defaults in NIC_PROFILE_DEFAULTS.items()
        },
        "infiniband": {
            **{key: _entry(key, s, "opensm") for key, s in IB_DEFAULTS.items()},
            "sharp": {
                "default": "",
                "help": "On where every switch runs SHARP. " + sharp_source["text"],
                "url": sharp_source["url"],
            },
        },
        "names": {
            "transport": TRANSPORT_NAMES,
            "switch_profile": SWITCH_PROFILE_LABELS,
            "nic_profile": NIC_PROFILE_LABELS,
        },
    }


def transport_view(table: dict, values: Mapping) -> dict:
    """The step as it shows for the fields ``values`` (form field -> text): the transport it
    runs (``kind``), each field's ``default`` (a box's placeholder, a list's empty entry) and
    ``help``/``url``, the three lists' empty entries (``blanks``) and the NIC's heading.
    The page's script does the same from the same table (``frontend/src/wizard.js``
    ``transportView``)."""
    leaf = table["leaves"].get(str(values.get("leaf") or "")) or {}
    server = table["servers"].get(str(values.get("server") or "")) or {}
    names = table["names"]
    kind = str(values.get(TYPE_FIELD) or "") or leaf.get("type") or ""
    profile = str(values.get(roce_field("profile")) or "") or leaf.get("profile") or "custom"
    profile = profile if profile in table["switch_profiles"] else "custom"
    nic_profile = str(values.get(nic_field("profile")) or "") or server.get("nic_profile") or ""
    nic_profile = nic_profile if nic_profile in table["nic_profiles"] else "custom"
    fields: dict[str, dict] = {}
    for key, entry in table["switch_profiles"][profile].items():
        fields[roce_field(key)] = entry
    for key, entry in table["nic_profiles"][nic_profile].items():
        fields[nic_field(key)] = entry
    for key, entry in table["infiniband"].items():
        fields[ib_field(key)] = entry
    if leaf:
        sharp = BOOLEAN_TEXT[bool(leaf.get("sharp"))]
        fields[ib_field("sharp")] = {**table["infiniband"]["sharp"], "default": sharp}
    leaf_name = str(values.get("leaf") or "the leaf switch")
    if leaf:
        type_blank = f"Default: {names['transport'][leaf['type']]} (from {leaf_name})"
        profile_blank = f"Default: {names['switch_profile'][leaf['profile']]} (from {leaf_name})"
    else:
        type_blank, profile_blank = "Default: from the leaf switch", "Default: from the leaf switch"
    nic = server.get("nic") or ""
    nic_blank = (
        f"Default: {names['nic_profile'][server['nic_profile']]} (from {nic})"
        if server
        else "Default: from the NIC's maker"
    )
    fields[TYPE_FIELD] = {
        "default": "",
        "help": "InfiniBand where the leaf switch speaks InfiniBand only, else RoCEv2.",
        "url": "",
    }
    fields[roce_field("profile")] = {
        "default": "",
        "help": "Its values fill every field left empty; default: the leaf switch's maker.",
        "url": "",
    }
    fields[nic_field("profile")] = {
        "default": "",
        "help": "What the NIC marks and sends; default: the NIC's maker.",
        "url": "",
    }
    name = server.get("nic_name") or ""
    heading = f"Server NIC {nic}" + (f" ({name})" if name and name != nic else "") if nic else ""
    return {
        "kind": kind,
        "fields": fields,
        "blanks": {
            TYPE_FIELD: type_blank,
            roce_field("profile"): profile_blank,
            nic_field("profile"): nic_blank,
        },
        "nic": nic,
        "nic_heading": heading or "The server's NIC",
    }

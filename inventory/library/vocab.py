"""Controlled vocabularies of the catalog (the strings stored in the database and in files).

Each tuple lists ``(value, label)`` pairs; the Django choices and the file formats both read
them from here, so a value means the same thing everywhere.
"""

import re

FORM_FACTORS = [
    ("OSFP", "OSFP (800G class, 8 lanes)"),
    ("OSFP224", "OSFP224 (1.6T class, 8 x 200G)"),
    ("QSFP112", "QSFP112 (4 x 100G)"),
    ("QSFP-DD", "QSFP-DD (8 x 50G)"),
    ("QSFP-DD800", "QSFP-DD800 (8 x 100G)"),
    ("QSFP56", "QSFP56 (4 x 50G)"),
    ("QSFP28", "QSFP28 (4 x 25G)"),
    ("SFP28", "SFP28"),
    ("SFP56", "SFP56"),
    ("SFP", "SFP / SFP+ (1G / 10G)"),
    ("OSFP-XD", "OSFP-XD (16 lanes)"),
    ("RJ45", "RJ45 (BASE-T)"),
    ("CPO", "Co-packaged optics port"),
]
TOPS = [("ihs", "Finned top (IHS)"), ("rhs", "Flat top (RHS)"), ("none", "Not applicable")]
#: A NIC record's ``card_form_factor`` when the NIC is built into the server that names it
#: (``compute_nic``): part of the server, never a card of its own in a bill of materials.
ON_BOARD = "on-board"
PROTOCOLS = [("infiniband", "InfiniBand"), ("ethernet", "Ethernet"), ("nvlink", "NVLink")]
MODULATIONS = [("PAM4", "PAM4"), ("NRZ", "NRZ")]
MEDIA = [("mmf", "Multimode fiber"), ("smf", "Single-mode fiber"), ("copper", "Copper")]
FIBER_GRADES = [
    ("OM3", "OM3"),
    ("OM4", "OM4"),
    ("OM5", "OM5"),
    ("OS2", "OS2"),
    ("OS1a", "OS1a"),
]
CONNECTORS = [
    ("mpo12-apc", "MPO-12/APC"),
    ("mpo12-upc", "MPO-12/UPC"),
    ("mpo16-apc", "MPO-16/APC"),
    ("mpo16-upc", "MPO-16/UPC"),
    ("lc-duplex", "Duplex LC"),
    ("cs", "CS"),
    ("sn", "SN"),
    ("mmc12", "MMC-12"),
    ("rj45", "RJ45 jack (twisted pair)"),
    ("none", "None (copper)"),
]
CABLE_TYPES = [
    ("dac", "Passive copper (DAC)"),
    ("acc", "Linear active copper (LACC/ACC)"),
    ("aec", "Active electrical (AEC)"),
    ("aoc", "Active optical (AOC)"),
]
TOPOLOGIES = [
    ("straight", "Straight"),
    ("1:2", "1:2 breakout"),
    ("1:4", "1:4 breakout"),
    ("1:8", "1:8 breakout"),
]
#: A passive fiber's topology: the cable topologies, plus the structured-cabling parts
#: (:mod:`planner.domain.physical.structured`): an MPO trunk between two patch panels, the
#: panel housing itself, an MPO-to-LC cassette and an MPO-to-LC breakout harness. They are
#: fibers of the catalog (priced and counted like them) that media selection never picks
#: for a link (it takes straight and 1:2 fibers only).
FIBER_TOPOLOGIES = [
    *TOPOLOGIES,
    ("trunk", "MPO trunk (panel to panel)"),
    ("panel", "Patch panel (housing)"),
    ("cassette", "MPO-to-LC cassette"),
    ("harness", "MPO-to-LC breakout harness"),
]
AIRFLOWS = [
    ("front-to-rear", "Front to rear"),
    ("rear-to-front", "Rear to front"),
    ("liquid", "Liquid"),
    ("hybrid", "Hybrid"),
]
COOLING = [("air", "Air"), ("liquid", "Liquid"), ("hybrid", "Hybrid")]
FORWARDING_MODES = [("cut-through", "Cut-through"), ("store-and-forward", "Store-and-forward")]
SIDES = [("switch", "Switch side"), ("host", "Host (NIC) side"), ("any", "Either side")]
DSP = [("dsp", "DSP"), ("linear", "Linear (LPO)"), ("lro", "Linear receive (LRO)")]
#: Where a module's FEC runs. ``host-kp4`` and ``host-rs544`` name the same code, RS(544,514)
#: ("KP4", IEEE 802.3 clause 91/119), as InfiniBand and Ethernet documents write it; both mean
#: the host terminates it. ``in-module``: the module's DSP runs its own FEC.
FEC = [
    ("host-kp4", "Host KP4 FEC"),
    ("host-rs544", "Host RS(544,514) FEC"),
    ("in-module", "FEC in the module"),
]
LIFECYCLES = [("shipping", "Shipping"), ("announced", "Announced"), ("legacy", "Legacy")]
GRADES = [
    ("datasheet", "Datasheet (vendor document)"),
    ("secondary", "Secondary (reseller, blog, mirror)"),
    ("inferred", "Inferred (our arithmetic)"),
    ("estimate", "Estimate"),
]
CAGE_ROLES = [("data", "Data"), ("mgmt", "Management")]
SERVER_KINDS = [
    ("server", "Server"),
    ("rack-system", "Rack-scale system"),
    ("management", "Management / head node"),
    ("appliance", "Fabric-manager appliance"),
    ("pdu", "Rack PDU"),
]
#: Server kinds a design's ``server`` may name (the others are parts of the cluster's other
#: networks: head nodes, fabric-manager appliances, PDUs).
GPU_SERVER_KINDS = ("server", "rack-system")
PORT_ROLES = [
    ("storage", "Storage"),
    ("inband", "In-band management"),
    ("oob", "Out-of-band"),
    ("frontend", "Front-end"),
    ("converged", "Converged storage + in-band"),
]


def values(vocabulary: list[tuple[str, str]]) -> set[str]:
    """The set of stored values of a vocabulary.

    Examples
    --------
    >>> sorted(values(MEDIA))
    ['copper', 'mmf', 'smf']
    """
    return {value for value, _ in vocabulary}


def form_factor_family(name: str) -> list[str]:
    """The form factors of the family ``name`` starts: every one whose name begins with it.

    A filter for "OSFP" then finds OSFP224 and OSFP-XD cages too, and "QSFP" every QSFP kind.

    Examples
    --------
    >>> form_factor_family("osfp")
    ['OSFP', 'OSFP224', 'OSFP-XD']
    >>> form_factor_family("QSFP-DD")
    ['QSFP-DD', 'QSFP-DD800']
    """
    wanted = name.strip().upper()
    return [value for value, _ in FORM_FACTORS if wanted and value.upper().startswith(wanted)]


def form_factor_families() -> list[tuple[str, list[str]]]:
    """Each family root (the leading letters of a form factor) with its members, in vocab order.

    Examples
    --------
    >>> [root for root, _ in form_factor_families()]
    ['OSFP', 'QSFP', 'SFP', 'RJ', 'CPO']
    """
    roots = dict.fromkeys(re.match(r"[A-Za-z]+", value).group(0) for value, _ in FORM_FACTORS)
    return [(root, form_factor_family(root)) for root in roots]

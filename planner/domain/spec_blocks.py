"""The spec's blocks kept as written: the JSON Schema rules of ``transport``, ``networks``,
``power`` and ``campus``, and the value types they share (``$defs``).

:class:`planner.domain.spec.DesignSpec` keeps these blocks as the document gives them (their
defaults are filled in when the fabric is built), so their fields are declared here as rules
rather than as dataclass fields; :func:`planner.domain.spec.spec_schema` puts them in the
schema and the wizard's steps read their descriptions (``planner.designs.forms``). Enums are
the transport module's own tuples, so a new routing engine is added once.
Nothing here imports Django.
"""

from __future__ import annotations

from planner.domain.transport.settings import (
    LOAD_BALANCING,
    MULTIPLANE_MODES,
    NIC_PROFILES,
    PFC_MODES,
    ROUTING_ENGINES,
    SWITCH_PROFILES,
    TRANSPORTS,
    TRUST_MODES,
)

TRANSPORT_RULE = {
    "description": (
        "The fabric's transport (issue 20): a word (infiniband | roce) or a mapping. Default: "
        "infiniband when the leaf switches speak InfiniBand only, else roce. RoCE fields "
        "default from a vendor profile (each value with its source; "
        "planner.domain.transport.settings), InfiniBand fields from opensm's defaults."
    ),
    "oneOf": [
        {"enum": list(TRANSPORTS)},
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "type": {"title": "Transport", "enum": list(TRANSPORTS)},
                "profile": {
                    "title": "Switch QoS profile",
                    "enum": list(SWITCH_PROFILES),
                    "description": (
                        "RoCE switch profile whose defaults fill the fields not given. Default:"
                        " from the leaf switch's manufacturer (custom: none)."
                    ),
                },
                "lossless_priority": {
                    "title": "Lossless priority",
                    "$ref": "#/$defs/priority",
                    "description": "The PFC (lossless) priority of RoCE data.",
                },
                "lossless_dscp": {
                    "title": "Lossless DSCP values",
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 64,
                    "uniqueItems": True,
                    "items": {"$ref": "#/$defs/dscp"},
                    "description": ("DSCP values the switches map to the lossless priority."),
                },
                "cnp_priority": {
                    "title": "CNP priority",
                    "$ref": "#/$defs/priority",
                    "description": "Priority of congestion notification packets (CNP).",
                },
                "cnp_dscp": {"title": "CNP DSCP", "$ref": "#/$defs/dscp"},
                "trust": {
                    "title": "Switch trust mode",
                    "enum": list(TRUST_MODES),
                    "description": ("What the switch ports classify by: L3 DSCP or L2 PCP."),
                },
                "ecn_min_kb": {
                    "title": "ECN min threshold (KB)",
                    "type": "integer",
                    "minimum": 1,
                    "description": "ECN marking starts at this queue depth (KB).",
                },
                "ecn_max_kb": {
                    "title": "ECN max threshold (KB)",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "ECN marks every packet from this queue depth (KB); at most the "
                        "switch's packet buffer."
                    ),
                },
                "pfc_mode": {
                    "title": "PFC mode",
                    "enum": list(PFC_MODES),
                    "description": (
                        "lossless: PFC on the RoCE priority; semi-lossless: pause honoured, not"
                        " propagated; lossy: ECN only."
                    ),
                },
                "mtu_b": {
                    "title": "MTU (bytes)",
                    "$ref": "#/$defs/mtu",
                    "description": "MTU of every port of the fabric (bytes).",
                },
                "mtu_by_role": {
                    "type": "object",
                    "additionalProperties": False,
                    "minProperties": 1,
                    "properties": {
                        "server": {"$ref": "#/$defs/mtu"},
                        "leaf": {"$ref": "#/$defs/mtu"},
                        "spine": {"$ref": "#/$defs/mtu"},
                        "core": {"$ref": "#/$defs/mtu"},
                    },
                    "description": (
                        "The MTU of one role's ports where it differs from mtu_b (server = the "
                        "host NICs)."
                    ),
                },
                "pfc_watchdog": {"title": "PFC watchdog", "type": "boolean"},
                "load_balancing": {"title": "Load balancing", "enum": list(LOAD_BALANCING)},
                "multiplane_mode": {
                    "title": "Multiplane mode",
                    "enum": list(MULTIPLANE_MODES),
                    "description": (
                        "Spectrum-X multiplane load balancing; hwplb needs ConnectX-8 or "
                        "ConnectX-9."
                    ),
                },
                "nics": {
                    "type": "object",
                    "minProperties": 1,
                    "description": (
                        "Per NIC part (or server model whose NICs are on board), its host QoS "
                        "over its NIC profile."
                    ),
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "profile": {"title": "NIC QoS profile", "enum": list(NIC_PROFILES)},
                            "data_priority": {
                                "title": "NIC data priority",
                                "$ref": "#/$defs/priority",
                            },
                            "data_dscp": {"title": "NIC data DSCP", "$ref": "#/$defs/dscp"},
                            "cnp_priority": {
                                "title": "NIC CNP priority",
                                "$ref": "#/$defs/priority",
                            },
                            "cnp_dscp": {"title": "NIC CNP DSCP", "$ref": "#/$defs/dscp"},
                            "trust": {"title": "NIC trust mode", "enum": list(TRUST_MODES)},
                        },
                    },
                },
                "routing_engine": {
                    "title": "Routing engine",
                    "enum": list(ROUTING_ENGINES),
                    "description": (
                        "InfiniBand subnet manager routing engine (opensm default ar_updn)."
                    ),
                },
                "adaptive_routing": {"title": "Adaptive routing", "type": "boolean"},
                "shield": {
                    "title": "SHIELD (fast link fault recovery)",
                    "type": "boolean",
                    "description": "InfiniBand SHIELD fast link fault recovery.",
                },
                "sharp": {
                    "title": "SHARP (in-network reductions)",
                    "type": "boolean",
                    "description": (
                        "SHARP in-network reductions (Quantum, Quantum-2, Quantum-3 switches). "
                        "Default: on where every switch supports it."
                    ),
                },
            },
        },
    ],
}

NETWORKS_RULE = {
    "type": "object",
    "additionalProperties": False,
    "description": (
        "The cluster's other networks (issue 18). Each block present is built; omitted fields "
        "take the server family's reference defaults (DGX-H100/H200: NVIDIA DGX SuperPOD H100 "
        "RA-11333-001 V11, Tables 7 and 8)."
    ),
    "properties": {
        "compute": {
            "type": "object",
            "additionalProperties": False,
            "properties": {},
            "description": (
                "The compute fabric: the spec's own topology, switches and media (no fields here)."
            ),
        },
        "storage": {
            "type": "object",
            "additionalProperties": False,
            "description": ("Storage fabric: node leaves, storage leaves, spines."),
            "properties": {
                "leaf": {
                    "title": "Leaf switch",
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "Catalog slug of the leaf switches. H100 RA: QM9700; no default for "
                        "other servers."
                    ),
                },
                "spine": {
                    "title": "Spine switch",
                    "type": "string",
                    "minLength": 1,
                    "description": ("Catalog slug of the spine switches. Default: the leaf model."),
                },
                "speed_gbps": {
                    "title": "Speed (Gb/s)",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Speed of node and switch-to-switch links. H100 RA: 400; otherwise the "
                        "leaf's port speed."
                    ),
                },
                "ports_per_node": {
                    "title": "Ports per node",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Ports per node on this network. Default 2 (DGX H100: port 1 of slot 1 "
                        "and slot 2)."
                    ),
                },
                "dual_homed": {
                    "title": "Dual-homed",
                    "type": "boolean",
                    "description": ("Each node's ports on different leaves. Default true."),
                },
                "oversubscription": {
                    "title": "Oversubscription",
                    "oneOf": [
                        {"type": "number", "minimum": 1, "maximum": 16},
                        {"type": "string", "pattern": "^[1-9][0-9]*:[1-9][0-9]*$"},
                    ],
                    "description": (
                        "Node-leaf downlink:uplink ratio, as a number or 'down:up'. H100 RA "
                        "storage: '4:3' ('near 4:3'); otherwise 1."
                    ),
                },
                "storage_ports": {
                    "title": "Storage-array ports",
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Storage-array ports on the storage leaves, at storage_port_speed_gbps,"
                        " connected 1:1. H100 RA: 96 (its 48 x 2 x 200G splitters; the RA does "
                        "not derive it: it depends on the storage chosen); otherwise 0."
                    ),
                },
                "storage_port_speed_gbps": {
                    "title": "Storage port speed (Gb/s)",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Storage-array port speed; slower than speed_gbps = a leg of an AOC "
                        "splitter. H100 RA: 200; otherwise speed_gbps."
                    ),
                },
                "storage_leaves": {
                    "title": "Storage leaves",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Leaves for the storage arrays. H100 RA: 4 (its 16 switches read as 8 "
                        "node leaves + 4 storage leaves + 4 spines, inferred); otherwise the "
                        "fewest that fit."
                    ),
                },
                "spines": {
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Exact spine count. Default: the fewest (at least 2) that take every "
                        "leaf uplink."
                    ),
                },
                "ufm_appliances": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "UFM appliances on this fabric, two ports each on one 1:2 cable to a "
                        "leaf. H100 RA: 2; otherwise 0."
                    ),
                },
                "management_ports_per_node": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Ports per management node on this network (networks.management_nodes "
                        "of them). Default 2."
                    ),
                },
                "read_gbytes_per_node": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 100000,
                    "description": (
                        "Storage read rate asked per reading node, in GB/s (10^9 bytes a "
                        "second; Gb/s / 8), line rate. Checked against what the network "
                        "carries: node ports, node-leaf uplinks at the oversubscription, "
                        "storage-leaf uplinks and the storage arrays' ports shared by the "
                        "readers (summary networks.<name>.bandwidth; a validation warning "
                        "storage-read-short when short). H100 RA: 40 ('a GDS-enabled "
                        "application should be able to read data at over 40 GBps'); otherwise "
                        "nothing is checked."
                    ),
                },
                "concurrent_readers": {
                    "oneOf": [{"type": "integer", "minimum": 1}, {"const": "all"}],
                    "description": (
                        "Nodes reading at once for read_gbytes_per_node: a number (the first "
                        "nodes) or 'all'. H100 RA: 1 (its 40 GBps is one application's, "
                        "inferred); otherwise 'all'."
                    ),
                },
            },
        },
        "converged": {
            "type": "object",
            "additionalProperties": False,
            "description": (
                "One Ethernet leaf-spine for storage and in-band (Enterprise RA 'CPU Converged')."
            ),
            "properties": {
                "leaf": {
                    "title": "Leaf switch",
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "Catalog slug of the leaf switches (required: no reference default)."
                    ),
                },
                "spine": {
                    "title": "Spine switch",
                    "type": "string",
                    "minLength": 1,
                    "description": ("Catalog slug of the spine switches. Default: the leaf model."),
                },
                "speed_gbps": {
                    "title": "Speed (Gb/s)",
                    "type": "integer",
                    "minimum": 1,
                    "description": "Link speed. Default: the leaf's port speed.",
                },
                "ports_per_node": {
                    "title": "Ports per node",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Ports per node on this network. Default 2 (DGX H100: port 1 of slot 1 "
                        "and slot 2)."
                    ),
                },
                "dual_homed": {
                    "title": "Dual-homed",
                    "type": "boolean",
                    "description": ("Each node's ports on different leaves. Default true."),
                },
                "oversubscription": {
                    "title": "Oversubscription",
                    "oneOf": [
                        {"type": "number", "minimum": 1, "maximum": 16},
                        {"type": "string", "pattern": "^[1-9][0-9]*:[1-9][0-9]*$"},
                    ],
                    "description": "Node-leaf downlink:uplink ratio. Default 1.",
                },
                "storage_ports": {
                    "title": "Storage-array ports",
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Storage-array ports on storage leaves, connected 1:1. Default 0."
                    ),
                },
                "storage_port_speed_gbps": {
                    "title": "Storage port speed (Gb/s)",
                    "type": "integer",
                    "minimum": 1,
                    "description": "Storage-array port speed. Default: speed_gbps.",
                },
                "storage_leaves": {
                    "title": "Storage leaves",
                    "type": "integer",
                    "minimum": 1,
                    "description": ("Leaves for the storage arrays. Default: the fewest that fit."),
                },
                "spines": {
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Exact spine count. Default: the fewest (at least 2) that take every "
                        "leaf uplink."
                    ),
                },
                "management_ports_per_node": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Ports per management node on this network (networks.management_nodes "
                        "of them). Default 2."
                    ),
                },
                "uplinks": {
                    "title": "Uplinks to customer core",
                    "type": "integer",
                    "minimum": 0,
                    "description": ("Links from the spines to the customer's core. Default 0."),
                },
                "read_gbytes_per_node": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 100000,
                    "description": (
                        "Storage read rate asked per reading node, in GB/s (10^9 bytes a "
                        "second; Gb/s / 8), line rate. Checked against what the network "
                        "carries: node ports, node-leaf uplinks at the oversubscription, "
                        "storage-leaf uplinks and the storage arrays' ports shared by the "
                        "readers (summary networks.<name>.bandwidth; a validation warning "
                        "storage-read-short when short). Default: nothing is checked."
                    ),
                },
                "concurrent_readers": {
                    "oneOf": [{"type": "integer", "minimum": 1}, {"const": "all"}],
                    "description": (
                        "Nodes reading at once for read_gbytes_per_node: a number (the first "
                        "nodes) or 'all'. Default 'all'."
                    ),
                },
            },
        },
        "inband": {
            "type": "object",
            "additionalProperties": False,
            "description": "In-band management: leaf pairs under a core pair.",
            "properties": {
                "leaf": {
                    "title": "Leaf switch",
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "Catalog slug of the leaf switches. H100 RA: SN4600C; no default for "
                        "other servers."
                    ),
                },
                "core": {
                    "title": "Core switch",
                    "type": "string",
                    "minLength": 1,
                    "description": ("Catalog slug of the core switches. Default: the leaf model."),
                },
                "speed_gbps": {
                    "title": "Speed (Gb/s)",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Link speed. H100 RA: 100 ('operate at 100 Gbps and are bonded'); "
                        "otherwise the leaf's port speed."
                    ),
                },
                "ports_per_node": {
                    "title": "Ports per node",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "Bonded ports per node. Default 2 (DGX H100: port 2 of slot 1 and slot 2)."
                    ),
                },
                "dual_homed": {
                    "title": "Dual-homed",
                    "type": "boolean",
                    "description": (
                        "Each node's ports on a leaf pair (MLAG), leaves built in pairs with "
                        "ISL cables. Default true."
                    ),
                },
                "leaf_uplinks": {
                    "type": "integer",
                    "minimum": 1,
                    "description": ("Uplinks per leaf, spread over the cores. Default 4."),
                },
                "isl_per_pair": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "ISL cables per leaf pair (dual_homed). Default 2.",
                },
                "cores": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Core switches. Default 2 (a pair).",
                },
                "uplinks": {
                    "title": "Uplinks to customer core",
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Uplinks from the cores to the customer's core. H100 RA: 4 (CWDM4); "
                        "otherwise 0."
                    ),
                },
                "nfs_links": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "NFS storage links on the cores. H100 RA: 8 (storage-specific; the RA "
                        "does not derive it); otherwise 0."
                    ),
                },
                "management_ports_per_node": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Ports per management node (networks.management_nodes of them). Default 2."
                    ),
                },
            },
        },
        "oob": {
            "type": "object",
            "additionalProperties": False,
            "description": (
                "Out-of-band management: 1 GbE RJ45 access switches sized from every managed "
                "port, with uplinks into in-band."
            ),
            "properties": {
                "leaf": {
                    "title": "Access switch (1 GbE)",
                    "type": "string",
                    "minLength": 1,
                    "description": (
                        "Catalog slug of the 1 GbE RJ45 access switches. H100 RA: SN2201; no "
                        "default for other servers."
                    ),
                },
                "ports_per_node": {
                    "title": "BMC ports per node",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "BMC ports per node (a rack-scale system: per compute tray). Default 1."
                    ),
                },
                "uplinks": {
                    "title": "Uplinks per switch",
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Uplinks per OOB switch into the in-band cores. Default 2 ('Two uplinks"
                        " per OOB to in-band')."
                    ),
                },
                "uplink_speed_gbps": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Uplink speed. Default 100.",
                },
                "switch_multiple": {
                    "title": "Switch count multiple",
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "The OOB switch count ceil(ports / RJ45 ports) is rounded up to a "
                        "multiple of this. H100 RA: 2 (it builds 8 SN2201 for 317 ports; "
                        "ceil(317 / 48) = 7); otherwise 1."
                    ),
                },
                "pdus_per_rack": {
                    "title": "PDUs per compute rack",
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "PDUs per compute rack (a layout rack holding servers). Default 3 (H100"
                        " RA: 96 PDUs / 32 racks)."
                    ),
                },
                "pdus_per_management_rack": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "PDUs per management rack (networks.management_racks). Default 2 (H100 "
                        "RA: 12 / 6)."
                    ),
                },
                "ufm_back_to_back": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "UFM back-to-back cables. Default: one per UFM pair "
                        "(networks.ufm_appliances / 2; H100 RA: 2)."
                    ),
                },
                "storage_mgmt_ports": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Storage appliances' management ports ('Varies' in the H100 RA). Default 0."
                    ),
                },
                "nvlink_switch_trays": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "NVLink switch trays with an OOB port. Default: from the catalog (a "
                        "rack-scale system's switch trays), else 0."
                    ),
                },
                "switches_per_rack": {
                    "title": "Switches per compute rack",
                    "type": ["number", "null"],
                    "exclusiveMinimum": 0,
                    "description": (
                        "OOB switches placed by rack group instead of by port count: a whole "
                        "number is that many switches in every compute rack (GB300 / GB200 "
                        "NVL72: 2, '2 SN2201 OOB switches' per rack), a unit fraction one "
                        "switch per that many consecutive compute racks (DGX B200 SuperPOD: "
                        "0.25, one per 4 racks: 16 SN2201 for 64 racks). Each group's switches "
                        "serve its racks' BMC, NVLink-tray and PDU ports (refused when they "
                        "would need more ports than the switches have); the switches of every "
                        "network, management and UFM nodes and management-rack PDUs take the "
                        "spare ports, with more switches only if they do not fit. "
                        "switch_multiple is then not applied. Default: DGX-B200 0.25, "
                        "GB200-NVL72 / GB300-NVL72 2, otherwise none (ceil(ports / RJ45 "
                        "ports))."
                    ),
                },
            },
        },
        "management_nodes": {
            "title": "Management nodes",
            "type": "integer",
            "minimum": 0,
            "description": (
                "Management (head / BCM) nodes. H100 RA: 4 (Table 7, V11); otherwise 0."
            ),
        },
        "ufm_appliances": {
            "title": "UFM appliances",
            "type": "integer",
            "minimum": 0,
            "description": (
                "UFM / fabric-manager appliances of all fabrics (OOB ports). H100 RA: 4; "
                "otherwise 0."
            ),
        },
        "management_racks": {
            "title": "Management racks",
            "type": "integer",
            "minimum": 0,
            "description": (
                "Management racks (2 PDUs each by default). H100 RA: 6 (38 racks - 32 compute "
                "racks); otherwise 0."
            ),
        },
    },
}

POWER_RULE = {
    "type": "object",
    "additionalProperties": False,
    "description": (
        "Power feeds of the racks (planner/analyses/resilience/domains.py): each feed name a "
        "rack is fed from makes a failure domain (the feed across the hall, and per rack its "
        "PDU). A device stands on every feed of its rack (redundant power supplies, one per "
        "feed), so a device on A and B keeps running when one of them fails. Not given: feeds "
        "not stated."
    ),
    "properties": {
        "feeds": {
            "$ref": "#/$defs/power_feeds",
            "description": "The feeds every rack is fed from, e.g. [A, B].",
        },
        "by_rack_kind": {
            "type": "object",
            "additionalProperties": False,
            "description": (
                "Feeds per rack kind, over feeds: server racks and network (switch) racks."
            ),
            "properties": {
                "server": {"$ref": "#/$defs/power_feeds"},
                "network": {"$ref": "#/$defs/power_feeds"},
            },
        },
    },
}

CAMPUS_RULE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["buildings"],
    "description": (
        "The design across halls or buildings (planner/domain/campus.py): units shared out "
        "among the buildings in order, the top tier (cores, or spines in two tiers) in "
        "core_building, so the tier below it runs between buildings on single-mode optics; "
        "those links are the campus tier of the summary, power, BOM and cabling plan."
    ),
    "properties": {
        "buildings": {
            "type": "integer",
            "minimum": 1,
            "maximum": 64,
            "description": ("Halls or buildings, each laid out as its own floor."),
        },
        "distance_m": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": (
                "Fiber route between the fiber entrances of any two buildings, metres."
            ),
        },
        "distances_m": {
            "type": "array",
            "items": {"type": "array", "items": {"type": "number", "minimum": 0}},
            "description": (
                "Fiber route between every two buildings: a symmetric matrix, 0 on the diagonal"
                " (instead of distance_m)."
            ),
        },
        "core_building": {
            "oneOf": [{"type": "integer", "minimum": 1}, {"const": "by-plane"}],
            "description": (
                "Building (1-based) of the top tier; by-plane: plane p's top tier in building "
                "(p - 1) mod buildings + 1. Default: the building nearest all the others."
            ),
        },
        "entrance_m": {
            "type": "number",
            "minimum": 0,
            "default": 0,
            "description": (
                "Run added at each end of a link between buildings, from the hall to the "
                "building's fiber entrance (riser, entrance room)."
            ),
        },
        "entrance_panels": {
            "type": "integer",
            "minimum": 0,
            "maximum": 4,
            "default": 1,
            "description": (
                "Patch panels at each building's fiber entrance that a link between buildings "
                "crosses (one mated LC pair each in its loss budget); 0 for a run spliced "
                "through."
            ),
        },
    },
}

BLOCK_DEFS = {
    "power_feeds": {
        "type": "array",
        "minItems": 1,
        "maxItems": 4,
        "uniqueItems": True,
        "items": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,15}$"},
    },
    "priority": {
        "type": "integer",
        "minimum": 0,
        "maximum": 7,
        "description": "An 802.1p priority, 0-7.",
    },
    "dscp": {"type": "integer", "minimum": 0, "maximum": 63, "description": "A DSCP value, 0-63."},
    "mtu": {"type": "integer", "minimum": 576, "maximum": 9216, "description": "An MTU in bytes."},
}

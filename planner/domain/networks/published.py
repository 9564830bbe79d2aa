"""Published switch counts of the cluster networks, by reference architecture, with sources.

Every figure behind :data:`planner.domain.networks.common.B200_DEFAULTS` and
:data:`~planner.domain.networks.common.NVL72_DEFAULTS` (the H100 rows are in
``tests/unit/test_networks.py`` and :mod:`planner.domain.networks.common`), each with its
address, the sentence or table row as printed, and the date it was read. "Primary" is read
in NVIDIA's own page; "secondary" through a third party that read NVIDIA's document. What
the rules reproduce is tested in ``tests/unit/test_networks_published.py``; what they do not
is said below, with the convention that differs.

All pages were read on 2026-12-02 (stored copies of the pages; they may lag the live sites).

DGX SuperPOD with DGX B200, RA-11334-001 V08 (2025-04-24)
---------------------------------------------------------

``b200-table-4`` (primary), compute fabric, reproduced:
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/network-fabrics.html
    "Table 4. Compute fabric component count": rows "1 | 31¹ | 248 | 8 | 4 | 252 | 256",
    "2 | 63 | 504 | 16 | 8 | 508 | 512", "3 | 95 | 760 | 24 | 16 | 764 | 768",
    "4 | 127 | 1016 | 32 | 16 | 1020 | 1024" (SU, nodes, GPUs, leaf, spine, compute and UFM
    cables, spine-leaf cables); "¹. This is a 32 node per SU design, however a DGX system must
    be removed to accommodate for UFM connectivity." The same page: "DGX SuperPOD
    configurations utilize four network fabrics: Compute Fabric, Storage Fabric, In-Band
    Management Network, Out-of-Band Management Network".

``b200-figure-3-2`` (secondary), the other networks of the 4 SU build: RA-11334-001 V08
    Figure 3.2 "Management rack configuration" (printed page 13; its labels are part of the
    image, so it was read through the Rackula project's research notes,
    https://github.com/RackulaLives/Rackula/blob/6867e8318ab855fa78e78153f9b677d2cc7c5be8/docs/research/3287-external.md,
    section "SuperPOD with DGX B200", citing the RA's PDF
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/_downloads/4b3d3302fa4fc6854b595ccff50b9932/RA11334001-DSPB200-ReferenceArch.pdf):

    - "Racks 1 and 2: 16 x QM9700 compute leaves, 2 x compute UFMs, 16 x QM9700 compute
      spines."
    - "Racks 3 and 4: 16 x QM9700 compute leaves, 2 x SN5600 in-band spines, 2 x SN5600
      in-band leaves, 2 x storage UFMs, 2 x SN2201 in-band leaves, 7 x management nodes."
    - "Rack 5: 8 x QM9700 storage leaves, 4 x QM9700 storage spines, 16 x SN2201 out-of-band
      leaves."

    Its scale is the 4 SU, 127-node build: the figure holds the 32 compute leaves and 16
    spines of Table 4's 4 SU row. The same notes quote the RA for the node ports: in-band
    connections "operate at 200 Gbps and are bonded"; Figure 4.1 labels one port per
    BlueField-3 card "In-Band Management" and the other "Storage Single Port QSFP" (2 storage +
    2 in-band ports per DGX B200); "two DGX B200 per rack (section 2.5.1)"; "Figure 3.1 draws
    three PDUs in each compute rack".

    Reproduced by the rules with the DGX-B200 defaults:

    - storage, 8 QM9700 leaves: 127 x 2 storage ports at 400G, at most
      floor(64 x 4/3 / (1 + 4/3)) = 36 per leaf at 4:3 (the H100 RA's "near 4:3", inferred
      for B200: the B200 storage text was not read) -> 8 leaves;
    - storage, 4 QM9700 spines: the printed count is the default of ``spines`` (the
      convention that differs: the fewest-spines rule gives ceil(8 x 24 / 64) = 3 spines at
      4:3; 4 spines would follow from 1:1 leaves, 8 x 32 uplinks, which then leave no port
      for the storage UFMs and management nodes; the figure draws no storage arrays);
    - in-band, 2 SN5600 leaves + 2 SN5600 spines (cores): 254 ports at 200G on a 256 x 200G
      leaf, less 4 uplinks and 2 ISL ports -> one leaf pair, under the core pair;
    - management: 7 management nodes, 2 + 2 UFM appliances, 5 management racks (printed
      values, the shared defaults).

    - OOB, 16 SN2201, by rack group: the layout holds the 127 DGX two per rack in 64 compute
      racks, and ``networks.oob.switches_per_rack`` = 0.25 (the DGX-B200 default: one switch
      per 4 compute racks, inferred from 64 / 16; the figure prints the count, not a rule)
      builds 16. Each switch takes its 4 racks' 8 BMCs and 12 PDUs; the other 87 managed
      ports (48 compute + 12 storage + 4 in-band switches, 11 management and UFM nodes, 2 UFM
      back-to-back, 10 management-rack PDUs) fit the groups' spare ports. By port count
      (``switches_per_rack: null``) the rule builds ceil(406 / 48) = 9 for the same 406 ports.
      The figure draws all 16 in management rack 5; the elements place each in its rack
      group's top 2 U (a placement that differs).

    Not reproduced:

    - in-band, the 2 SN2201 in-band leaves: the in-band rule has one leaf model (leaf pairs
      under a core pair); what the SN2201 leaves serve (1/10G in-band ports, e.g. the
      management nodes' or the DGX's 10 GbE RJ45) is not stated in the figure.

DGX BasePOD, RA-11127-001 V5 (2025-08-06), Table 4.2 (secondary: the table as read in the same
Rackula notes, section "BasePOD bill (RA V5, Table 4.2, printed page 13)"; the RA's page
https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/reference-architectures.html
(primary) names the fabrics: "Management and storage fabric | NVIDIA SN4600C switches", "OOB
management fabric | NVIDIA SN2201 switches", and "five dual-socket x86 servers for system
management"):

    "QM9700 switch | 920-9B210-00FN-0M0 | 2 | 2", "SN2201, 48 RJ45, P2C | 920-9N110-00F1-0C0
    | 1 | 2", "SN4600C, 64 QSFP28, P2C | 920-9N302-00F7-0C2 | 2 | 2", "1 GbE Cat 6 | n/a |
    29 | 45", "100GbE AOC 30 m, DGX to in-band | 980-9I13N-00C030 | 8 | 16", "100G QSFP
    passive, in-band ISL | 980-9I54C-00V001 | 2 | 2", "100GbE AOC 10 m, OOB to in-band |
    980-9I13N-00C010 | 2 | 4", "BCM management servers | varies | 5 | 5", "100GbE AOC 10 m,
    management servers to in-band | 980-9I13N-00C010 | 10 | 10" (4 nodes | 8 nodes).

    Reproduced (links, with the in-band rule on SN4600C at 100G): DGX to in-band 8 / 16 (2
    bonded ports per DGX), management servers to in-band 10 (5 x 2), in-band ISL 2 (one leaf
    pair x 2).

    Explained with a spec field (inferred): OOB 1 / 2 SN2201, where a port count gives 1 and
    1 (NVIDIA adds the second switch at 8 nodes), are ``switches_per_rack: 0.5`` with two DGX
    B200 per rack (the SuperPOD RA's; the table gives no rack count): 2 and 4 racks.

    Not reproduced: the in-band switch counts. BasePOD's management and storage Ethernet is
    one SN4600C MLAG pair with no core (the rules always add a core pair, or spines on a
    converged fabric, whose minimum is 1: 2 leaves + 1 core at best); the Cat 6 count is 4
    per DGX + 13 (29 = 4 x 4 + 13, 45 = 8 x 4 + 13), whose split into BMC, host and PDU
    ports is not stated, so it is not reproduced either.

DGX SuperPOD with DGX GB200, RA-11338-001 V01 (2025-06-16), and GB200 / GB300 NVL72
-----------------------------------------------------------------------------------

``gb200-fabrics`` (primary):
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html
    "These network segments are carried by four different physical fabrics: Multi-node NVLink
    Fabric (MN-NVL), Compute InfiniBand Fabric, Storage and In-band Ethernet Fabric,
    Out-of-Band network"; "Each DGX GB200 rack is built with 18 compute trays and 9 NVLink
    switch trays."

``mission-control-ns`` (primary):
    https://docs.nvidia.com/mission-control/docs/ext-north-south-network-gb200-deploy-guide/2.3.0/ext-north-south-network-gb200-intro.html
    "Featuring NVIDIA DGX GB200 and GB300 NVL72"; "SN5600 | (INBAND) Cumulus OS, 64 ports of
    800Gb"; "SN2201 | (OOB) 48 1G Base-T". Its planning page
    https://docs.nvidia.com/mission-control/docs/north-south-network-deployment-guide/2.0.0/nsnetcfg-network-planning-design.html
    "ipminet[1-n]: IPMI Covers GB200 (2x per GB200 rack) SN2201s"; and
    https://docs.nvidia.com/mission-control/docs/ext-north-south-network-gb200-deploy-guide/2.0.0/ext-north-south-net-plan-design.html
    "Ethernet switches x amount of SN5600" (no count).

``nvl72-enterprise-ra`` (primary):
    https://docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/network-logical-architecture.html
    "The CPU Converged (North/South) network connects the nodes using two 400 Gb/s ports to
    two separate switches to provide redundancy and high storage throughput. This network is
    used for node communications with compute, storage, in-band management, and end-user
    connections." Components page
    https://docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/components.html
    (GB300 NVL72): "2 SN2201 OOB switches for integrated management access of rack
    components"; "8 power shelves of 33 kW, with each shelf having six 5.5 kW PSUs".

``mnnvl-tuning`` (primary):
    https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html
    "Each compute tray connects to the ethernet switch through the two BF-3 NICs, and the
    external-net is on the 400G ports." / "... and the internal-net is on 200G ports." /
    "IPMI-net: Used for OOB management and connects the BMCs of the compute and switch trays."

    Used as defaults: converged SN5600 leaves and spines, 2 x 400G per compute tray
    (dual-homed), OOB SN2201 with one BMC port per compute tray and per NVLink switch tray, no
    rack PDUs (power shelves). The 200G in-band ports on the same BlueField-3 cards are not
    counted: the converged rule has one port speed (a convention that differs).

    Reproduced by rack group: 2 SN2201 per NVL72 rack (GB300 components page; the Mission
    Control "2x per GB200 rack"), the default ``switches_per_rack`` 2: the two switches sit
    in the rack and share its 18 compute-tray BMCs and 9 NVLink switch trays; the other
    networks' switches take their spare ports (8 GB300 racks: 16 SN2201, where the port
    count gives 5). The convention that differs: one OOB port per compute tray and per NVLink
    switch tray; the per-tray OOB ports (BlueField-3 BMCs, NVLink switch trays' COMe, power
    shelves) are not published as counts.

    Not found: per-SU or per-scale switch counts of the GB200 SuperPOD's storage + in-band
    fabric (searched: the RA's network-fabrics page, Mission Control's planning pages).

DGX SuperPOD with DGX B300 (RA-11337-001 V01, Spectrum-4; RA-11339-001 V01, Quantum-X800)
------------------------------------------------------------------------------------------

``b300-fabrics`` (primary):
    https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/network-fabrics.html
    "DGX SuperPOD configurations utilize four network fabrics: Compute Fabric, Storage Fabric,
    Ethernet Fabric with two network segments - Inband Network, Out-of-band Network".
    https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
    "Figure 3 shows an example management rack configuration with networking switches,
    management servers, storage arrays, and UFM appliances. Sizes and quantities will vary
    depending upon models used. This example is for 1SU." Table 3 gives compute counts only.

    Not found: storage, in-band or OOB switch models or counts for DGX B300 in text; the
    management-rack figure's labels were not read. No DGX-B300 defaults are given: its
    switch fields stay required.
"""

#: Sources by key, as cited in the docstring above and by the tests.
SOURCES = {
    "b200-table-4": "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/network-fabrics.html",
    "b200-figure-3-2": "https://github.com/RackulaLives/Rackula/blob/6867e8318ab855fa78e78153f9b677d2cc7c5be8/docs/research/3287-external.md",
    "basepod-table-4-2": "https://github.com/RackulaLives/Rackula/blob/6867e8318ab855fa78e78153f9b677d2cc7c5be8/docs/research/3287-external.md",
    "gb200-fabrics": "https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/network-fabrics.html",
    "mission-control-ns": "https://docs.nvidia.com/mission-control/docs/ext-north-south-network-gb200-deploy-guide/2.3.0/ext-north-south-network-gb200-intro.html",
    "nvl72-enterprise-ra": "https://docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/network-logical-architecture.html",
    "nvl72-components": "https://docs.nvidia.com/enterprise-reference-architectures/nvl72-ai-factory/latest/components.html",
    "mnnvl-tuning": "https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html",
    "b300-fabrics": "https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/network-fabrics.html",
}
READ_ON = "2026-12-02"

__all__ = ["READ_ON", "SOURCES"]

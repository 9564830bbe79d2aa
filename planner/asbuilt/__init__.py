"""What the built fabric reports, checked against a design revision: the installed cabling
(LLDP neighbour tables, ``ibnetdiscover`` topologies, NetBox cable exports) and per-port
counter snapshots (telemetry), each stored as one all-or-nothing import."""

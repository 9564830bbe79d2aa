"""What the built fabric reports, read against a design's fabric (pure: no Django).

- :mod:`.names`: device and port names as switches and hosts write them -> the design's
  node, logical port and link (shared by the cabling and counter imports).
- :mod:`.cabling`: the as-built cabling check (missing, unexpected, swapped, wrong rail or
  plane, wrong speed), and :mod:`.parsers`: LLDP JSON/CSV, ``ibnetdiscover`` and NetBox
  cable exports into neighbour rows.
"""

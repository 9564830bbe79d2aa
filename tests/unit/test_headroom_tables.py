"""Switch-side PFC headroom tables reproduce the rows NVIDIA publishes in SONiC (issue 36.5).

Each case is a row of a ``pg_profile_lookup.ini`` in sonic-net/sonic-buildimage at commit
086b03bd70f9 (``# speed cable size xon xoff threshold``), under
``device/mellanox/<platform>/<SKU>/``; the headroom a lossless port reserves is ``xon + xoff``.
"""

import numpy as np
import pytest

from planner.domain.transport.headroom import VENDOR_HEADROOM, headroom_table


@pytest.mark.parametrize(
    ("switch", "speed", "run_m", "row"),
    [
        # x86_64-nvidia_sn5600-r0/ACS-SN5600: "400000 40m 303104 19456 283648 0"
        ("SN5600", 400, 40, (303104, 19456, 283648)),
        # the same file, "800000 300m 1198080 38912 1150976 0"
        ("SN5600", 800, 300, (1198080, 38912, 1150976)),
        # ACS-SN5400 is a link to ACS-SN5600: "100000 5m 133120 19456 113664 0"
        ("SN5400", 100, 5, (133120, 19456, 113664)),
        # ACS-MSN4600C links to ACS-MSN4700: "100000 40m 63488 19456 44032 0"
        ("SN4600C", 100, 40, (63488, 19456, 44032)),
        # ACS-SN2201: "100000 300m 123904 19456 104448 0"
        ("SN2201", 100, 300, (123904, 19456, 104448)),
        # Mellanox-SN5610N-C224O8 (shared headroom pool): "800000 40m 38912 38912 132096 0"
        ("SN5610", 800, 40, (38912, 38912, 132096)),
        # Mellanox-SN5640-C512S2: "400000 250m 19456 19456 217088 0"
        ("SN5640", 400, 250, (19456, 19456, 217088)),
        # ACS-SN6600_LD: "800000 40m 229376 43008 186368 0"
        ("SN6600-LD", 800, 40, (229376, 43008, 186368)),
    ],
)
def test_published_rows(switch, speed, run_m, row):
    _, xon, xoff = row
    table = headroom_table(switch)
    assert table.headroom_bytes(np.array([speed]), np.array([run_m]))[0] == xon + xoff
    assert table.xoff_bytes(np.array([speed]), np.array([run_m]))[0] == xoff


def test_a_run_takes_the_shortest_listed_length_that_covers_it():
    table = VENDOR_HEADROOM["SN5600"]  # 5, 40 and 300 m
    got = table.headroom_bytes(np.array([400] * 5), np.array([0.5, 5.0, 5.1, 299.0, 300.5]))
    assert got[:4].tolist() == [250880, 250880, 303104, 697344]
    assert np.isnan(got[4])  # past the longest row: no vendor figure
    assert np.isnan(table.headroom_bytes(np.array([1600]), np.array([3.0]))[0])  # no 1.6T row


def test_every_table_cites_its_platform_file():
    for slug, table in VENDOR_HEADROOM.items():
        assert table.source.startswith("https://github.com/sonic-net/sonic-buildimage/blob/"), slug
        assert table.platform in table.source and "(primary" in table.source, slug
    assert headroom_table("QFX5240-64OD") is None  # none published where searched

"""Small builders for catalog rows in tests (through the services, like real writes), and the
design specs several test modules build on (seed catalog parts)."""

from inventory.models import CATEGORY_MODELS, Manufacturer
from inventory.services import part_save

SOURCES = {"ds": {"url": "https://example.com/datasheet", "grade": "datasheet"}}
#: One scalable unit: 31 DGX H100 on a QM9700 leaf per rail, 4 leaf ports kept free.
ONE_SU_SPEC = {
    "name": "1 SU",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 31,
    "servers_per_su": 32,
    "reserved_leaf_ports": 4,
    "switches": {"leaf": "QM9700"},
}
#: The smallest design the tests use: 4 DGX H100 on QM9700 leaves.
TINY_SPEC = {
    "name": "Tiny",
    "topology": "rail-optimized",
    "server": "DGX-H100",
    "servers": 4,
    "switches": {"leaf": "QM9700"},
}


def manufacturer(slug="acme", name="ACME Networks"):
    return Manufacturer.objects.get_or_create(slug=slug, defaults={"name": name})[0]


def part(category, slug, *, vendor=None, provenance=None, **spec):
    model = CATEGORY_MODELS[category]
    obj = model(
        slug=slug,
        name=spec.pop("name", slug),
        manufacturer=vendor or manufacturer(),
        sources=SOURCES,
        provenance=provenance
        if provenance is not None
        else {key: {"source": "ds", "grade": "datasheet"} for key in spec},
        **spec,
    )
    return part_save(part=obj)


def osfp_switch(slug="SW-OSFP", **extra):
    return part(
        "switch",
        slug,
        protocols=["infiniband"],
        power_typical_w=700,
        power_max_w=1700,
        rack_units=1,
        cage_groups=[
            {
                "role": "data",
                "count": 32,
                "form_factor": "OSFP",
                "top": "ihs",
                "ports_per_cage": 2,
                "port_speed_gbps": 400,
                "lanes_per_port": 4,
                "lane_rate_gbps": 100,
                "max_module_power_w": 17,
            }
        ],
        **extra,
    )


def twin_sr(slug="TWIN-SR", **extra):
    spec = {
        "form_factor": "OSFP",
        "top": "ihs",
        "ports_per_module": 2,
        "speed_gbps": 800,
        "port_speed_gbps": 400,
        "lanes": 8,
        "lane_rate_gbps": 100,
        "media": "mmf",
        "pmd": "2xSR4",
        "connector": "mpo12-apc",
        "reach_m": 50,
        "power_max_w": 15,
        "protocols": ["infiniband", "ethernet"],
        "side": "switch",
    }
    spec.update(extra)
    return part("transceiver", slug, **spec)

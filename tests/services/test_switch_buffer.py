"""The switch packet buffer (issue 20): imported from the seed with its source."""

from inventory.models import SwitchModel


def test_seed_switch_buffer_is_sourced(seed_catalog):
    qfx = SwitchModel.objects.get(slug="QFX5240-64OD")
    assert qfx.buffer_mb == 165.2
    assert qfx.provenance["buffer_mb"]["source"] == "juniper-qfx52xx-cos"
    assert "juniper.net" in qfx.sources["juniper-qfx52xx-cos"]["url"]
    assert SwitchModel.objects.get(slug="SN5600").buffer_mb is None  # not published

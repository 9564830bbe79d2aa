"""The wizard offers GPU servers and rack-scale systems as a design's server, not the
management parts of the cluster's other networks (head nodes, UFM appliances, PDUs)."""

from inventory.models import ServerModel
from planner.designs.forms import DesignWizardForm


def test_wizard_offers_only_gpu_servers(seed_catalog, user):
    offered = {slug for slug, _ in DesignWizardForm(user=user).fields["server"].choices}
    kinds = dict(ServerModel.objects.values_list("slug", "kind"))
    assert {"DGX-H100", "GB300-NVL72"} <= offered
    assert {kinds[slug] for slug in offered} <= {"server", "rack-system"}
    others = {slug for slug, kind in kinds.items() if kind in ("pdu", "appliance", "management")}
    assert others and not others & offered

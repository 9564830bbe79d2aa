"""What a design produces: bill of materials, cabling plan and exports (pure, no Django).

- :mod:`.bom`: :func:`bill_of_materials` (counting rules shared with the summary);
- :mod:`.cabling`: the cabling plan (rows, streaming CSV); :mod:`.cabling_import` reads an
  edited plan back into an edit document;
- :mod:`.exports`: BOM CSV, NetBox, NVIDIA P2P, Arista AVD and JSON.
"""

from planner.domain.outputs.avd import (
    AVD_COLUMNS,
    AvdExportError,
    avd_topology_lines,
    avd_yaml_model_refusal,
)
from planner.domain.outputs.bom import (
    CATEGORIES,
    CATEGORY_LABELS,
    SPARES_CATEGORIES,
    BillOfMaterials,
    BomError,
    BomLine,
    bill_of_materials,
    clean_spares_pct,
    spares_for,
)
from planner.domain.outputs.cabling import (
    CABLING_COLUMNS,
    cabling_csv_lines,
    cabling_rows,
    csv_lines,
    link_labels,
)
from planner.domain.outputs.cabling_import import (
    CablingEdit,
    CablingImportError,
    CablingProblem,
    cabling_edit,
)
from planner.domain.outputs.exports import (
    BOM_COLUMNS,
    EXPORT_FORMATS,
    NETBOX_CABLE_COLUMNS,
    NETBOX_DEVICE_COLUMNS,
    P2P_COLUMNS,
    bom_csv_lines,
    design_json,
    netbox_cable_lines,
    netbox_device_lines,
    network_elements,
    p2p_lines,
)

__all__ = [
    "AVD_COLUMNS",
    "AvdExportError",
    "avd_topology_lines",
    "avd_yaml_model_refusal",
    "BOM_COLUMNS",
    "CABLING_COLUMNS",
    "CATEGORIES",
    "CATEGORY_LABELS",
    "EXPORT_FORMATS",
    "NETBOX_CABLE_COLUMNS",
    "NETBOX_DEVICE_COLUMNS",
    "P2P_COLUMNS",
    "SPARES_CATEGORIES",
    "BillOfMaterials",
    "BomError",
    "BomLine",
    "CablingEdit",
    "CablingImportError",
    "CablingProblem",
    "bill_of_materials",
    "bom_csv_lines",
    "cabling_csv_lines",
    "cabling_edit",
    "cabling_rows",
    "clean_spares_pct",
    "csv_lines",
    "design_json",
    "link_labels",
    "netbox_cable_lines",
    "netbox_device_lines",
    "network_elements",
    "p2p_lines",
    "spares_for",
]

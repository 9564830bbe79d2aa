"""Clear the NaN and infinite numbers an import could store before issue 34 (a catalog CSV with
``max_length_m=NaN``): the API could not answer for any part list holding one. Each becomes
unknown (null), the value a part has when its datasheet does not say; the import rules now
refuse them (:mod:`inventory.library.quantities`)."""

import math

from django.db import migrations, models

CATEGORY_MODELS = (
    "SwitchModel",
    "NICModel",
    "ServerModel",
    "Transceiver",
    "CableAssembly",
    "FiberCable",
    "RackType",
    "Price",
)


def clear_non_finite(apps, schema_editor):
    for name in CATEGORY_MODELS:
        model = apps.get_model("inventory", name)
        floats = [
            f.name for f in model._meta.get_fields() if isinstance(f, models.FloatField) and f.null
        ]
        for row in model.objects.only("pk", *floats).iterator():
            bad = [
                name_
                for name_ in floats
                if getattr(row, name_) is not None and not math.isfinite(getattr(row, name_))
            ]
            if bad:
                model.objects.filter(pk=row.pk).update(**dict.fromkeys(bad))


class Migration(migrations.Migration):
    dependencies = [("inventory", "0010_cable_length_parts")]

    operations = [migrations.RunPython(clear_non_finite, migrations.RunPython.noop)]

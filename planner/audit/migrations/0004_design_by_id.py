"""An event names its design by id alone: the old foreign key's column (``design_id``) goes,
``design_ref`` keeps every id (and gains an index, as the foreign key had).

``design_ref`` was written with the foreign key on every event about a saved design, and kept
its id when the design was deleted (the key was then set to null); an event whose
``design_ref`` is empty but whose key is set (none is known) gets the key's id before the
column goes, so no design id is lost.
"""

from django.db import migrations, models
from django.db.models import F


def keep_design_ids(apps, schema_editor):
    AuditEvent = apps.get_model("audit", "AuditEvent")
    AuditEvent.objects.using(schema_editor.connection.alias).filter(
        design_ref__isnull=True, design__isnull=False
    ).update(design_ref=F("design"))


class Migration(migrations.Migration):

    dependencies = [
        ("audit", "0003_team_changed"),
    ]

    operations = [
        migrations.RunPython(keep_design_ids, migrations.RunPython.noop),
        migrations.RemoveField(model_name="auditevent", name="design"),
        migrations.AlterField(
            model_name="auditevent",
            name="design_ref",
            field=models.PositiveIntegerField(
                blank=True, db_index=True, help_text="The design's id (kept after a delete).", null=True
            ),
        ),
    ]

"""A revision drawn on the canvas has no spec (was ``planner.0002_revision_spec_blank_for_drawn``)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [("planner", "0002_revision_spec_blank_for_drawn")]

    dependencies = [
        ("designs", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name='designrevision',
            name='spec',
            field=models.JSONField(blank=True, help_text='The design spec, with defaults filled in ({} for a design drawn on the canvas).'),
        ),
    ]

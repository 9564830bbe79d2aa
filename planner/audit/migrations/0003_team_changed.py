"""The teams' action (was ``planner.0010_audit_team_changed``)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [("planner", "0010_audit_team_changed")]

    dependencies = [
        ("audit", "0002_catalog_audit_actions"),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditevent',
            name='action',
            field=models.CharField(choices=[('design.created', 'Design created'), ('design.changed', 'Design changed'), ('design.revised', 'Revision saved'), ('design.restored', 'Revision restored'), ('design.deleted', 'Design deleted'), ('job.submitted', 'Job submitted'), ('job.cancelled', 'Job cancelled'), ('export.downloaded', 'Export downloaded'), ('quote.changed', 'Quote changed'), ('import.applied', 'Import applied'), ('catalog.changed', 'Catalog changed'), ('catalog.deleted', 'Catalog entry deleted'), ('catalog.archived', 'Catalog part archived'), ('price.changed', 'Prices changed'), ('team.changed', 'Team members changed')], max_length=32),
        ),
    ]

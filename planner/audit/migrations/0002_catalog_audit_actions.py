"""The catalog's and the price books' actions (was ``planner.0005_catalog_audit_actions``)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [("planner", "0005_catalog_audit_actions")]

    dependencies = [
        ("audit", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditevent',
            name='action',
            field=models.CharField(choices=[('design.created', 'Design created'), ('design.changed', 'Design changed'), ('design.revised', 'Revision saved'), ('design.restored', 'Revision restored'), ('design.deleted', 'Design deleted'), ('job.submitted', 'Job submitted'), ('job.cancelled', 'Job cancelled'), ('export.downloaded', 'Export downloaded'), ('quote.changed', 'Quote changed'), ('import.applied', 'Import applied'), ('catalog.changed', 'Catalog changed'), ('catalog.deleted', 'Catalog entry deleted'), ('catalog.archived', 'Catalog part archived'), ('price.changed', 'Prices changed')], max_length=32),
        ),
    ]

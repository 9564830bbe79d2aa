"""FieldImport, as the planner app created it (its 0009_field_imports), now under the app label
``asbuilt`` in the same table (``planner_fieldimport``).

A database made before the move has applied ``planner.0009_field_imports``: ``replaces`` marks
this migration applied there, so nothing is created twice and the rows stay where they are.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [("planner", "0009_field_imports")]

    dependencies = [
        ("designs", "0002_revision_spec_blank_for_drawn"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='FieldImport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('cabling', 'As-built cabling'), ('counters', 'Counter snapshot')], max_length=16)),
                ('source_format', models.CharField(choices=[('lldp-json', 'LLDP neighbours (JSON)'), ('lldp-csv', 'LLDP neighbours (CSV)'), ('ibnetdiscover', 'InfiniBand ibnetdiscover'), ('netbox-cables', 'NetBox cable export (CSV)'), ('counters-csv', 'Port counters (CSV)'), ('counters-json', 'Port counters (JSON)')], max_length=24)),
                ('file_name', models.CharField(blank=True, max_length=200)),
                ('created', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('summary', models.JSONField(blank=True, default=dict)),
                ('report', models.JSONField(blank=True, default=dict)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='field_imports', to=settings.AUTH_USER_MODEL)),
                ('revision', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='field_imports', to='designs.designrevision')),
            ],
            options={
                'db_table': 'planner_fieldimport',
                'ordering': ['-created', '-id'],
            },
        ),
    ]

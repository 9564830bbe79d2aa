"""Design and DesignRevision, as the planner app created them (its 0001_initial, later named
0001_designs), now under the app label ``designs`` in the same tables (``planner_design``,
``planner_designrevision``).

A database made before the move has applied ``planner.0001_initial`` (the teams' and the
designs' initial migrations replace that name, and every database that holds these tables
records it): ``replaces`` marks this migration applied there, so nothing is created twice and
the rows stay where they are. A new database runs it after teams.
"""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [("planner", "0001_initial")]

    dependencies = [
        ("teams", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Design',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('description', models.TextField(blank=True, max_length=2000)),
                ('sharing', models.CharField(choices=[('private', 'Private (owner only)'), ('team-read', 'Team can view'), ('team-edit', 'Team editors can change')], default='private', max_length=10)),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('updated', models.DateTimeField(auto_now=True)),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='designs', to=settings.AUTH_USER_MODEL)),
                ('team', models.ForeignKey(blank=True, help_text='Team the design is shared with (see sharing).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='designs', to='teams.team')),
            ],
            options={
                'db_table': 'planner_design',
                'ordering': ['-updated', '-pk'],
            },
        ),
        migrations.CreateModel(
            name='DesignRevision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField(validators=[django.core.validators.MinValueValidator(1)])),
                ('spec', models.JSONField(help_text='The design spec, with defaults filled in.')),
                ('topology', models.BinaryField(help_text='zlib-compressed JSON of Fabric.to_dict().')),
                ('summary', models.JSONField(default=dict)),
                ('kind', models.CharField(choices=[('generated', 'Generated'), ('edited', 'Edited'), ('restored', 'Restored')], default='generated', max_length=10)),
                ('message', models.CharField(blank=True, max_length=300)),
                ('created', models.DateTimeField(auto_now_add=True)),
                ('parent', models.PositiveIntegerField(blank=True, help_text='Number of the revision this one was made from.', null=True)),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='design_revisions', to=settings.AUTH_USER_MODEL)),
                ('design', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='designs.design')),
            ],
            options={
                'db_table': 'planner_designrevision',
                'ordering': ['design', '-number'],
                'constraints': [models.UniqueConstraint(fields=('design', 'number'), name='planner_revision_unique'), models.CheckConstraint(condition=models.Q(('number__gte', 1)), name='planner_revision_number_positive')],
            },
        ),
        migrations.AddConstraint(
            model_name='design',
            constraint=models.CheckConstraint(condition=models.Q(('sharing', 'private'), ('team__isnull', False), _connector='OR'), name='planner_design_shared_needs_team'),
        ),
    ]

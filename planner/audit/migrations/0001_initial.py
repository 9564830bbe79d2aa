"""AuditEvent, as the planner app created it (its 0003_membership_prices_audit), now under the
app label ``audit`` in the same table (``planner_auditevent``).

A database made before the move has applied ``planner.0003_membership_prices_audit`` and holds
the table: ``replaces`` marks this migration applied there, so nothing is created twice and the
rows stay where they are. A new database runs it (it depends on teams alone).

The event's design was a foreign key to ``planner.design``; here it is its column alone
(``design_id``, a plain number), so the log points at no app above it, and
``0004_design_by_id`` removes it once its ids are kept in ``design_ref``.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ACTIONS = [
    ("design.created", "Design created"),
    ("design.changed", "Design changed"),
    ("design.revised", "Revision saved"),
    ("design.restored", "Revision restored"),
    ("design.deleted", "Design deleted"),
    ("job.submitted", "Job submitted"),
    ("job.cancelled", "Job cancelled"),
    ("export.downloaded", "Export downloaded"),
    ("quote.changed", "Quote changed"),
    ("import.applied", "Import applied"),
]


class Migration(migrations.Migration):

    initial = True

    replaces = [("planner", "0003_membership_prices_audit")]

    dependencies = [
        ("teams", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("action", models.CharField(choices=ACTIONS, max_length=32)),
                # The old foreign key's column, as a number (see the module's docstring).
                (
                    "design",
                    models.BigIntegerField(blank=True, null=True, db_column="design_id", db_index=True),
                ),
                ("design_ref", models.PositiveIntegerField(blank=True, null=True)),
                ("design_name", models.CharField(blank=True, max_length=100)),
                ("object_type", models.CharField(blank=True, max_length=40)),
                ("object_ref", models.CharField(blank=True, max_length=64)),
                ("summary", models.CharField(max_length=300)),
                ("details", models.JSONField(blank=True, default=dict)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="audit_events",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "team",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="audit_events",
                        to="teams.team",
                    ),
                ),
            ],
            options={
                "db_table": "planner_auditevent",
                "ordering": ["-created", "-pk"],
                "indexes": [
                    models.Index(fields=["team", "-created"], name="planner_audit_team_created")
                ],
            },
        ),
    ]

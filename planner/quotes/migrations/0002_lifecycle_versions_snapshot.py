"""A quote's lifecycle, versions and sent snapshot (was
``planner.0006_quote_lifecycle_versions_snapshot``)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    replaces = [("planner", "0006_quote_lifecycle_versions_snapshot")]

    dependencies = [
        ("inventory", "0007_switch_buffer"),
        ("quotes", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="quote",
            options={"ordering": ["-year", "-sequence", "-version"]},
        ),
        migrations.RemoveConstraint(
            model_name="quote",
            name="planner_quote_sequence",
        ),
        migrations.AddField(
            model_name="quote",
            name="answered_at",
            field=models.DateTimeField(
                blank=True, editable=False, help_text="When it was accepted or declined.", null=True
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="previous",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                help_text="The version this one was re-priced from.",
                null=True,
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="next_versions",
                to="quotes.quote",
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="sent_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="quote",
            name="sent_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="quotes_sent",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="snapshot",
            field=models.JSONField(
                blank=True,
                editable=False,
                help_text="The quote as sent: priced lines, offers, totals, design and book names.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="status",
            field=models.CharField(
                choices=[
                    ("draft", "Draft"),
                    ("sent", "Sent"),
                    ("accepted", "Accepted"),
                    ("declined", "Declined"),
                    ("superseded", "Superseded"),
                ],
                default="draft",
                editable=False,
                max_length=12,
            ),
        ),
        migrations.AddField(
            model_name="quote",
            name="version",
            field=models.PositiveSmallIntegerField(default=1, editable=False),
        ),
        migrations.AlterField(
            model_name="quote",
            name="number",
            field=models.CharField(db_index=True, editable=False, max_length=20),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.UniqueConstraint(
                fields=("year", "sequence", "version"), name="planner_quote_sequence_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.UniqueConstraint(
                fields=("number", "version"), name="planner_quote_number_version"
            ),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.CheckConstraint(
                condition=models.Q(("version__gte", 1)), name="planner_quote_version_from_1"
            ),
        ),
        migrations.AddConstraint(
            model_name="quote",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("status", "draft"), ("snapshot__isnull", False), _connector="OR"
                ),
                name="planner_quote_sent_has_snapshot",
            ),
        ),
    ]

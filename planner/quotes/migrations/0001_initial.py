"""Quote and QuoteNumberSequence, as the planner app created them (its 0004_quotes), now under
the app label ``quotes`` in the same tables (``planner_quote``, ``planner_quotenumbersequence``).

A database made before the move has applied ``planner.0004_quotes``: ``replaces`` marks this
migration applied there, so nothing is created twice and the rows stay where they are. A new
database runs it after the designs and the catalog, which a quote points at.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import planner.quotes.models


class Migration(migrations.Migration):
    initial = True

    replaces = [("planner", "0004_quotes")]

    dependencies = [
        ("inventory", "0001_initial"),
        ("designs", "0002_revision_spec_blank_for_drawn"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="QuoteNumberSequence",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("year", models.PositiveSmallIntegerField(unique=True)),
                ("last", models.PositiveIntegerField(default=0)),
            ],
            options={"db_table": "planner_quotenumbersequence"},
        ),
        migrations.CreateModel(
            name="Quote",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("year", models.PositiveSmallIntegerField(editable=False)),
                ("sequence", models.PositiveIntegerField(editable=False)),
                ("number", models.CharField(editable=False, max_length=20, unique=True)),
                ("customer", models.CharField(max_length=200)),
                (
                    "price_condition",
                    models.CharField(
                        choices=[("new", "New"), ("msrp", "List price (MSRP)"), ("used", "Used")],
                        default="new",
                        help_text="Which offers of the price book count (the lowest per part).",
                        max_length=8,
                    ),
                ),
                ("currency", models.CharField(help_text="ISO 4217 code, e.g. USD.", max_length=3)),
                (
                    "discounts_pct",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Discount percent per category (missing = 0).",
                    ),
                ),
                (
                    "margin_pct",
                    models.DecimalField(
                        decimal_places=2,
                        default=0,
                        help_text="Margin on the sell price: sell = cost / (1 - margin).",
                        max_digits=5,
                    ),
                ),
                (
                    "spares_pct",
                    models.JSONField(
                        blank=True,
                        default=dict,
                        help_text="Spares percent per category (missing = 0).",
                    ),
                ),
                ("valid_until", models.DateField(default=planner.quotes.models.quote_default_valid_until)),
                ("notes", models.TextField(blank=True, max_length=4000)),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("updated", models.DateTimeField(auto_now=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="quotes",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "design",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="quotes",
                        to="designs.design",
                    ),
                ),
                (
                    "price_book",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="quotes",
                        to="inventory.pricebook",
                    ),
                ),
                (
                    "revision",
                    models.ForeignKey(
                        help_text="The revision of the design this quote prices.",
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="quotes",
                        to="designs.designrevision",
                    ),
                ),
            ],
            options={
                "db_table": "planner_quote",
                "ordering": ["-year", "-sequence"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("year", "sequence"), name="planner_quote_sequence"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("margin_pct__gte", 0), ("margin_pct__lt", 100)),
                        name="planner_quote_margin_range",
                    ),
                ],
            },
        ),
    ]

"""The price right (``TeamMembership.can_view_prices``) and the margin floor
(``Team.margin_floor_pct``), which the planner app added in its 0003 and 0007.

A database migrated before the move has both columns already; one made at an older planner
state may lack either. So the state gains the fields, and the database gains each column only
where it is missing (``SeparateDatabaseAndState``): no data is touched either way.
"""

from decimal import Decimal

import django.core.validators
from django.db import migrations, models

CAN_VIEW_PRICES = models.BooleanField(
    default=False,
    help_text="Sees catalog prices, price books and priced quotes (sales role).",
)
MARGIN_FLOOR_PCT = models.DecimalField(
    blank=True,
    decimal_places=2,
    help_text="A quote with a lower margin (percent of the sell price) needs an owner's approval before it is sent; empty = no floor.",
    max_digits=5,
    null=True,
    validators=[
        django.core.validators.MinValueValidator(0),
        django.core.validators.MaxValueValidator(Decimal("99.99")),
    ],
    verbose_name="margin floor %",
)
FIELDS = [("teammembership", "can_view_prices", CAN_VIEW_PRICES), ("team", "margin_floor_pct", MARGIN_FLOOR_PCT)]


def add_missing_columns(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for model_name, field_name, _ in FIELDS:
            model = apps.get_model("teams", model_name)
            table = model._meta.db_table
            columns = {c.name for c in connection.introspection.get_table_description(cursor, table)}
            if field_name not in columns:
                schema_editor.add_field(model, model._meta.get_field(field_name))


class Migration(migrations.Migration):

    dependencies = [
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(model_name=model_name, name=field_name, field=field)
                for model_name, field_name, field in FIELDS
            ],
        ),
        # After the state change, so ``apps`` knows both fields.
        migrations.RunPython(add_missing_columns, migrations.RunPython.noop),
    ]

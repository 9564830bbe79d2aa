"""A margin below the team's floor, approved by a team owner (was
``planner.0007_team_margin_floor_quote_approval``; the floor itself is
``teams.0002_price_right_margin_floor``)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [("planner", "0007_team_margin_floor_quote_approval")]

    dependencies = [
        ("quotes", "0002_lifecycle_versions_snapshot"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='quote',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='quote',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, help_text="The team owner who approved a margin below the team's floor.", null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='quotes_approved', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='quote',
            name='approved_margin_pct',
            field=models.DecimalField(blank=True, decimal_places=2, editable=False, help_text='The margin approved; a changed margin needs a new approval.', max_digits=5, null=True),
        ),
    ]

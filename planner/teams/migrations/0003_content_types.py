"""Permissions and admin history of teams follow the move: the content types
``planner.team`` and ``planner.teammembership`` become ``teams.team`` and
``teams.teammembership`` (a new database has neither yet; nothing to do there)."""

from django.db import migrations

MODELS = ("team", "teammembership")


def move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MODELS:
        if ContentType.objects.using(db).filter(app_label="teams", model=model).exists():
            continue
        ContentType.objects.using(db).filter(app_label="planner", model=model).update(
            app_label="teams"
        )


def move_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MODELS:
        if ContentType.objects.using(db).filter(app_label="planner", model=model).exists():
            continue
        ContentType.objects.using(db).filter(app_label="teams", model=model).update(
            app_label="planner"
        )


class Migration(migrations.Migration):

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("teams", "0002_price_right_margin_floor"),
    ]

    operations = [migrations.RunPython(move_content_types, move_back)]

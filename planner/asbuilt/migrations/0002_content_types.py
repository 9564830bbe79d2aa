"""Permissions and admin history of as-built imports follow the move: the content type
``planner.fieldimport`` becomes ``asbuilt.fieldimport`` (a new database has neither yet;
nothing to do there)."""

from django.db import migrations

OLD, NEW = "planner", "asbuilt"
MODELS = ("fieldimport",)


def _move(apps, schema_editor, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    for model in MODELS:
        if not types.filter(app_label=target, model=model).exists():
            types.filter(app_label=source, model=model).update(app_label=target)


def move_content_types(apps, schema_editor):
    _move(apps, schema_editor, OLD, NEW)


def move_back(apps, schema_editor):
    _move(apps, schema_editor, NEW, OLD)


class Migration(migrations.Migration):

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("asbuilt", "0001_initial"),
    ]

    operations = [migrations.RunPython(move_content_types, move_back)]

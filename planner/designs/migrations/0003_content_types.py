"""Permissions and admin history of designs follow the move: the content types
``planner.design`` and ``planner.designrevision`` become ``designs.design`` and
``designs.designrevision`` (a new database has neither yet; nothing to do there)."""

from django.db import migrations

OLD, NEW = "planner", "designs"
MODELS = ("design", "designrevision")


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
        ("designs", "0002_revision_spec_blank_for_drawn"),
    ]

    operations = [migrations.RunPython(move_content_types, move_back)]

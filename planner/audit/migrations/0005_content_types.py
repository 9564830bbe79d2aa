"""Permissions and admin history of the audit log follow the move: the content type
``planner.auditevent`` becomes ``audit.auditevent`` (a new database has neither yet; nothing to
do there)."""

from django.db import migrations

OLD, NEW = "planner", "audit"
MODELS = ("auditevent",)


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
        ("audit", "0004_design_by_id"),
    ]

    operations = [migrations.RunPython(move_content_types, move_back)]

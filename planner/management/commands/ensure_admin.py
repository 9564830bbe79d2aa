"""Create the local admin account once, with a random password printed a single time."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Create a superuser 'admin' with a random password if no superuser exists. "
        "The password is printed once and kept in .var/admin-password (git-ignored)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        users = get_user_model()
        if users.objects.filter(is_superuser=True).exists():
            self.stdout.write("An admin account exists already.")
            return
        password = secrets.token_urlsafe(18)
        users.objects.create_superuser(username=username, email="", password=password)
        path = settings.VAR_DIR / "admin-password"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{username} {password}\n")
        path.chmod(0o600)
        self.stdout.write(
            self.style.SUCCESS(
                f"Created admin account. Username: {username}  Password: {password}\n"
                f"(kept in {path}; change it after logging in)"
            )
        )

"""Settings come from the environment; production mode is locked down."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEY = "k" * 20 + "-production-test-key-0123456789abcdefghijklmnopqrstuvwxyz"


def _manage(*args, **env):
    clean = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {"DEBUG", "PRODUCTION", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**clean, **env},
        timeout=120,
    )


def test_check_deploy_is_clean_in_production():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        PRODUCTION="1",
        SECRET_KEY=KEY,
        ALLOWED_HOSTS="fabric.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_deploy_warns_outside_production():
    result = _manage("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "SECURE_" in result.stdout + result.stderr


def test_production_requires_a_secret_key():
    result = _manage("check", PRODUCTION="1")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_settings_values():
    code = (
        "import django, os; from django.conf import settings; "
        "print(settings.DEBUG, settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE, "
        "settings.SECURE_HSTS_SECONDS > 0)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={
            **clean,
            "PRODUCTION": "1",
            "SECRET_KEY": KEY,
            "DJANGO_SETTINGS_MODULE": "planner.project.settings",
        },
    )
    assert result.stdout.split() == ["False", "True", "True", "True"], result.stderr


@pytest.mark.skipif(
    not (shutil.which("docker-compose") or shutil.which("docker")),
    reason="neither docker compose nor docker-compose installed",
)
def test_compose_file_is_accepted():
    if (
        shutil.which("docker")
        and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    ):
        command = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        command = ["docker-compose"]
    else:
        pytest.skip("no compose implementation")
    result = subprocess.run(
        [*command, "-f", "docker/compose.yaml", "config", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr

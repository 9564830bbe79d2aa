"""The compose files run any number of workers against one PostgreSQL and one Redis:
``--scale worker=N`` on the first machine, ``compose.worker.yaml`` on others."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"


def _compose() -> list[str] | None:
    if shutil.which("docker") and (
        subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0
    ):
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_the_worker_service_scales_and_shares_the_stores():
    main = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    worker = main["services"]["worker"]
    # --scale worker=N: no fixed name, no host port that a second copy would collide on
    assert "container_name" not in worker and "ports" not in worker
    assert "--concurrency" in worker["command"]
    other = yaml.safe_load((DOCKER / "compose.worker.yaml").read_text())["services"]["worker"]
    assert "container_name" not in other and "ports" not in other
    assert set(other["environment"]) >= {"DATABASE_URL", "REDIS_URL", "SECRET_KEY"}
    assert other["command"] == worker["command"]
    stores = yaml.safe_load((DOCKER / "compose.stores.yaml").read_text())["services"]
    assert stores["db"]["ports"][0].endswith(":5432:5432")
    assert stores["redis"]["ports"][0].endswith(":6379:6379")


def test_the_worker_compose_files_are_accepted():
    command = _compose()
    if command is None:
        pytest.skip("no compose implementation")
    env = {
        **os.environ,
        "SECRET_KEY": "x",
        "DATABASE_URL": "postgres://fabric:pw@10.0.0.5:5432/fabric",
        "REDIS_URL": "redis://10.0.0.5:6379/0",
    }
    for files in (["compose.yaml", "compose.stores.yaml"], ["compose.worker.yaml"]):
        args = [part for name in files for part in ("-f", f"docker/{name}")]
        result = subprocess.run(
            [*command, *args, "config", "-q"], cwd=ROOT, capture_output=True, text=True, env=env
        )
        assert result.returncode == 0, result.stderr
    missing = {k: v for k, v in env.items() if k != "REDIS_URL"}
    result = subprocess.run(
        [*command, "-f", "docker/compose.worker.yaml", "config", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=missing,
    )
    assert result.returncode != 0 and "REDIS_URL" in result.stderr  # says what to set

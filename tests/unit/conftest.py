"""Fixtures of the pure tests: the seed catalog as the domain packages see it."""

from pathlib import Path

import pytest

from inventory.library.files import read_catalog_folder
from planner.domain.catalog import facts_from_records

SEED = Path(__file__).resolve().parents[2] / "inventory" / "library" / "seed"


@pytest.fixture(scope="session")
def seed_records():
    """The seed catalog's part records, read once per run."""
    return read_catalog_folder(SEED).parts


@pytest.fixture(scope="module")
def facts(seed_records):
    """Catalog facts from the seed; a fresh object per module, so a test may add parts."""
    return facts_from_records(seed_records)

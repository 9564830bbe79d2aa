"""Catalog models: parts with sourced specs, and price books."""

from inventory.models.parts import *  # noqa: F403
from inventory.models.prices import *  # noqa: F403

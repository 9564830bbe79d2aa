"""Worked examples (``examples/*.yaml``): reference designs offered as presets.

Each file is a design spec; its leading ``#`` comment says which published architecture it
reproduces. The file name (without ``.yaml``) is the preset's slug.

Examples
--------
>>> presets = load_presets()
>>> "h100-superpod-4su" in [p.slug for p in presets]
True
>>> preset_get("h100-superpod-4su").spec["servers"]
127
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from planner.domain.spec import load_spec_text

EXAMPLES_DIR = Path(__file__).with_name("examples")


@dataclass(frozen=True)
class Preset:
    """A worked example: slug, name, description, source note and its spec document."""

    slug: str
    name: str
    description: str
    note: str
    spec: dict

    def as_dict(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "description": self.description,
            "note": self.note,
            "spec": copy.deepcopy(self.spec),
        }


def _leading_comment(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return " ".join(lines)


def _natural(path: Path) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.stem)]


@cache
def load_presets() -> tuple[Preset, ...]:
    """Every example, ordered by file name (numbers by value: 1su, 2su, 4su, 16su)."""
    return tuple(_preset(path) for path in sorted(EXAMPLES_DIR.glob("*.yaml"), key=_natural))


#: Published shapes of 100,000 GPUs and more (``examples/scale/*.yaml``): built and timed by
#: ``make bench`` (tests/bench_scale.py), not offered by the wizard nor built by the unit tests.
SCALE_DIR = EXAMPLES_DIR / "scale"


@cache
def load_scale_examples() -> tuple[Preset, ...]:
    """The large examples of :data:`SCALE_DIR`, as :class:`Preset` (ordered by file name).

    >>> [p.spec["servers"] for p in load_scale_examples()]
    [131072, 16384, 12500, 65536]
    """
    return tuple(_preset(path) for path in sorted(SCALE_DIR.glob("*.yaml"), key=_natural))


def _preset(path: Path) -> Preset:
    text = path.read_text(encoding="utf-8")
    spec = load_spec_text(text, name=path.name)
    return Preset(
        slug=path.stem,
        name=str(spec.get("name", path.stem)),
        description=str(spec.get("description", "")),
        note=_leading_comment(text),
        spec=spec,
    )


def preset_get(slug: str) -> Preset | None:
    """The example called ``slug``, or ``None``."""
    return next((p for p in load_presets() if p.slug == slug), None)

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
    presets = []
    for path in sorted(EXAMPLES_DIR.glob("*.yaml"), key=_natural):
        text = path.read_text(encoding="utf-8")
        spec = load_spec_text(text, name=path.name)
        presets.append(
            Preset(
                slug=path.stem,
                name=str(spec.get("name", path.stem)),
                description=str(spec.get("description", "")),
                note=_leading_comment(text),
                spec=spec,
            )
        )
    return tuple(presets)


def preset_get(slug: str) -> Preset | None:
    """The example called ``slug``, or ``None``."""
    return next((p for p in load_presets() if p.slug == slug), None)

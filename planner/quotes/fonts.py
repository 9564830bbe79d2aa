"""The font files of the quote PDF, from the operating system's font packages.

The quote PDF embeds DejaVu Sans (Latin, Greek, Cyrillic, Arabic, Hebrew) in three styles and
Noto Sans CJK (the fallback for Chinese, Japanese and Korean). Both come from the operating
system's own, maintained font packages rather than a Python package (Debian and Ubuntu:
``fonts-dejavu-core`` and ``fonts-noto-cjk``, installed by ``.ci/run`` and the Docker image;
Fedora: ``dejavu-sans-fonts`` and ``google-noto-sans-cjk-fonts``; macOS: the Homebrew casks
``font-dejavu`` and ``font-noto-sans-cjk``). Each file is looked for at Debian's path first,
then through fontconfig (``fc-match``), which answers any font it has, so only a file of the
expected name is taken.

A missing font is :class:`FontsMissing`, whose message names the files and the packages to
install. ``make setup`` and the Docker build (``python -m planner.quotes.fonts``, which needs
only the standard library) and the Django system check ``quotes.E001`` (every ``manage.py``
command that checks: ``make run``, ``migrate`` in docker compose) all say it before any PDF is
made. This module loads no Django.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FACES", "FontFace", "FontsMissing", "find_font", "font_files", "missing_message"]


@dataclass(frozen=True)
class FontFace:
    """One font file the PDF needs: its fontconfig pattern, file name and package names."""

    role: str
    pattern: str  # what fc-match is asked
    file_name: str
    debian_dir: str  # where Debian's package puts it
    debian_package: str


FACES = (
    FontFace(
        "regular",
        "DejaVu Sans:style=Book",
        "DejaVuSans.ttf",
        "/usr/share/fonts/truetype/dejavu",
        "fonts-dejavu-core",
    ),
    FontFace(
        "bold",
        "DejaVu Sans:style=Bold",
        "DejaVuSans-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu",
        "fonts-dejavu-core",
    ),
    FontFace(
        "italic",
        "DejaVu Sans:style=Oblique",
        "DejaVuSans-Oblique.ttf",
        "/usr/share/fonts/truetype/dejavu",
        "fonts-dejavu-core",
    ),
    FontFace(
        "cjk",
        "Noto Sans CJK JP:style=Regular",
        "NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto",
        "fonts-noto-cjk",
    ),
)


class FontsMissing(RuntimeError):
    """A font file the quote PDF needs is not installed; the message says what to install."""


def _fc_match(pattern: str) -> Path | None:
    """The file fontconfig answers for ``pattern``, or None without fontconfig."""
    fc_match = shutil.which("fc-match")
    if fc_match is None:
        return None
    try:
        result = subprocess.run(
            [fc_match, "--format=%{file}", pattern],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(result.stdout.strip()) if result.returncode == 0 and result.stdout else None


def find_font(face: FontFace, *, debian_dir: str | None = None, fc_match=_fc_match):
    """The path of ``face``'s file, or None when it is not installed.

    Debian's path first (no process started), then fontconfig; a file fontconfig offers in
    place of the one asked for (its nearest match) does not count.

    >>> find_font(FACES[0], debian_dir="/nowhere", fc_match=lambda pattern: None) is None
    True
    """
    known = Path(debian_dir or face.debian_dir) / face.file_name
    if known.is_file():
        return known
    found = fc_match(face.pattern)
    if found is not None and found.name == face.file_name and found.is_file():
        return found
    return None


def missing_message(missing: list[FontFace]) -> str:
    """What to say when ``missing`` faces are not installed.

    >>> print(missing_message([FACES[3]]))
    Quote PDFs need fonts that are not installed: NotoSansCJK-Regular.ttc (Noto Sans CJK JP).
    Install them with: apt-get install fonts-noto-cjk (Debian, Ubuntu)
    or, on other systems, DejaVu Sans and Noto Sans CJK from their font packages.
    """
    names = ", ".join(f"{face.file_name} ({face.pattern.split(':')[0]})" for face in missing)
    packages = " ".join(dict.fromkeys(face.debian_package for face in missing))
    return (
        f"Quote PDFs need fonts that are not installed: {names}.\n"
        f"Install them with: apt-get install {packages} (Debian, Ubuntu)\n"
        "or, on other systems, DejaVu Sans and Noto Sans CJK from their font packages."
    )


@functools.cache
def font_files() -> dict[str, Path]:
    """Each role of :data:`FACES` to its file (looked up once per process).

    Raises
    ------
    FontsMissing
        If any of the files is not installed, naming them and the packages to install.
    """
    found, missing = {}, []
    for face in FACES:
        path = find_font(face)
        if path is None:
            missing.append(face)
        else:
            found[face.role] = path
    if missing:
        raise FontsMissing(missing_message(missing))
    return found


def main() -> int:
    """Print the font files found, or what to install (exit status 1)."""
    try:
        files = font_files()
    except FontsMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for role, path in files.items():
        print(f"{role}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

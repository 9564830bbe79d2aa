"""The quote PDF's fonts come from the operating system's font packages (issue 35 item 4):
found at Debian's paths or through fontconfig, and a machine without them is told which
packages to install (``make setup``, the system check ``quotes.E001``), not a failure inside a
PDF."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.quotes import checks, fonts
from planner.quotes.fonts import FACES, FontsMissing, find_font, font_files, missing_message

CJK = FACES[3]


@pytest.fixture
def fresh_lookup():
    """The process-wide font lookup forgotten before and after the test."""
    font_files.cache_clear()
    yield
    font_files.cache_clear()


def _file(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_bytes(b"not a real font: only its name and presence matter here")
    return path


def test_the_debian_path_wins_without_asking_fontconfig(tmp_path):
    known = _file(tmp_path, CJK.file_name)

    def fc_match(pattern):
        raise AssertionError("fontconfig asked although the file is at the known path")

    assert find_font(CJK, debian_dir=str(tmp_path), fc_match=fc_match) == known


def test_fontconfig_finds_a_file_elsewhere(tmp_path):
    elsewhere = _file(tmp_path, CJK.file_name)
    asked = []

    def fc_match(pattern):
        asked.append(pattern)
        return elsewhere

    assert find_font(CJK, debian_dir=str(tmp_path / "none"), fc_match=fc_match) == elsewhere
    assert asked == ["Noto Sans CJK JP:style=Regular"]


def test_fontconfigs_nearest_match_is_not_taken(tmp_path):
    # fc-match always answers something: DejaVu Sans in place of a missing Noto Sans CJK.
    substitute = _file(tmp_path, "DejaVuSans.ttf")
    found = find_font(CJK, debian_dir=str(tmp_path / "none"), fc_match=lambda p: substitute)
    assert found is None
    gone = tmp_path / CJK.file_name  # named right, but not there
    assert find_font(CJK, debian_dir=str(tmp_path / "none"), fc_match=lambda p: gone) is None


def test_missing_fonts_name_the_files_and_the_packages(monkeypatch, fresh_lookup):
    monkeypatch.setattr(fonts, "find_font", lambda face: None)
    with pytest.raises(FontsMissing) as caught:
        font_files()
    message = str(caught.value)
    assert "DejaVuSans-Oblique.ttf" in message and "NotoSansCJK-Regular.ttc" in message
    assert "apt-get install fonts-dejavu-core fonts-noto-cjk (Debian" in message


def test_only_the_missing_package_is_named():
    message = missing_message([CJK])
    assert "apt-get install fonts-noto-cjk (Debian" in message
    assert "fonts-dejavu-core" not in message


def test_the_system_check_says_what_to_install(monkeypatch, fresh_lookup):
    monkeypatch.setattr(fonts, "find_font", lambda face: None if face is CJK else Path("/x"))
    (error,) = checks.check_pdf_fonts()
    assert error.id == "quotes.E001" and error.is_serious()
    assert "fonts-noto-cjk" in error.msg and "fonts-dejavu-core" not in error.msg


def test_the_system_check_passes_here(fresh_lookup):
    # This machine (as .ci/run and the Docker image) has the fonts installed.
    assert checks.check_pdf_fonts() == []


def test_the_command_line_check_exits_1_with_the_message(monkeypatch, capsys, fresh_lookup):
    monkeypatch.setattr(fonts, "find_font", lambda face: None)
    assert fonts.main() == 1
    assert "apt-get install fonts-dejavu-core fonts-noto-cjk" in capsys.readouterr().err


def test_the_command_line_check_lists_the_files(capsys, fresh_lookup):
    assert fonts.main() == 0
    printed = capsys.readouterr().out
    assert [line.split(":")[0] for line in printed.splitlines()] == [f.role for f in FACES]

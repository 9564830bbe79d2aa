"""Django system checks of the quotes: the quote PDF's fonts are installed (``quotes.E001``).

Run by every ``manage.py`` command that checks (``ensure_admin`` and ``serve`` of ``make run``,
``runserver``, ``migrate``, ``check``), so a machine without the fonts is told what to install
before a quote PDF is asked for, not with a failure inside one. (``collectstatic`` runs only the
static files' checks: the Docker build runs ``python -m planner.quotes.fonts`` instead.)
"""

from __future__ import annotations

from django.core import checks

from planner.quotes.fonts import FontsMissing, font_files


@checks.register()
def check_pdf_fonts(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """``quotes.E001`` when a font file of the quote PDF is missing."""
    try:
        font_files()
    except FontsMissing as error:
        return [checks.Error(str(error), id="quotes.E001")]
    return []

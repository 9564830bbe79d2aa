"""The documentation site at ``/docs/``: the MkDocs build of docs/ (``make docs``), read from
``settings.DOCS_SITE_DIR`` for signed-in users like every other page.

A folder answers with its ``index.html``, as MkDocs's directory URLs expect; a path outside the
site is refused (Django's 400 for a suspicious path); a file not in the site, or a site not
built yet, is a 404 page that says where to go. Files are small (pages, the theme's scripts,
screenshots under 150 KB, the search index), so each is answered whole, not streamed.
"""

from __future__ import annotations

import mimetypes

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils._os import safe_join
from django.views.decorators.http import require_safe


@require_safe
def docs_site(request, path: str = ""):
    """A file of the built site; ``path`` is relative to its root (``guide/sales/``)."""
    root = settings.DOCS_SITE_DIR
    if not (root / "index.html").is_file():
        return render(request, "planner/docs_missing.html", status=404)
    target = safe_join(root, path)  # SuspiciousFileOperation (400) outside the site
    if path and not path.endswith("/") and (root / path).is_dir():
        return redirect(f"{request.path}/")
    if path == "" or path.endswith("/"):
        target = safe_join(target, "index.html")
    try:
        with open(target, "rb") as handle:
            content = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return render(request, "planner/docs_missing.html", {"missing_page": path}, status=404)
    content_type, encoding = mimetypes.guess_type(target)
    response = HttpResponse(content, content_type=content_type or "application/octet-stream")
    if encoding:
        response.headers["Content-Encoding"] = encoding
    return response

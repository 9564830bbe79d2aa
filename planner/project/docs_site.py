"""The documentation site at ``/docs/``: the MkDocs build of docs/ (``make docs``), read from
``settings.DOCS_SITE_DIR`` for signed-in users like every other page.

The files are served as they were built (``django.views.static.serve``: safe path joining,
``Last-Modified``, conditional requests); a folder answers with its ``index.html``, as MkDocs's
directory URLs expect. Before the first build ``/docs/`` says how to build it (404).
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe
from django.views.static import serve


@require_safe
def docs_site(request, path: str = ""):
    """A file of the built site; ``path`` is relative to its root (``guide/sales/``)."""
    root = settings.DOCS_SITE_DIR
    if not (root / "index.html").is_file():
        return render(request, "planner/docs_missing.html", status=404)
    if path == "" or path.endswith("/"):
        path += "index.html"
    elif (root / path).is_dir():
        return redirect(f"{request.path}/")
    try:
        return serve(request, path, document_root=root)
    except Http404:
        return render(request, "planner/docs_missing.html", {"missing_page": path}, status=404)

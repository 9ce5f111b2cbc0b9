"""The server's HTML pages: one frame around each page's own body.

Every page is the same document around different content: the doctype, the charset, a title
and the one stylesheet.  That frame is written once (``pages/frame.html``), and each page file
under ``pages/`` holds only what it shows (its header bar, its sections, its script), so a
change to the frame (a stylesheet, a meta tag) reaches every page.  The page files stay outside
``static/``: a body without its frame is not a page to serve.
"""

from __future__ import annotations

from pathlib import Path

PAGES = Path(__file__).parent / "pages"

# Each page, by the name of its file, and the title its browser tab shows.
TITLES = {
    "index": "streamspatial",
    "watch": "streamspatial · watch",
    "annotate": "streamspatial · annotate",
}


def page_html(name: str) -> str:
    """The whole HTML document of page ``name`` (a key of :data:`TITLES`).

    Read at each request, as a static file would be, so an edited page shows on reload.
    """
    frame = (PAGES / "frame.html").read_text(encoding="utf-8")
    body = (PAGES / f"{name}.html").read_text(encoding="utf-8").removesuffix("\n")
    head, _, tail = frame.replace("$title", TITLES[name]).partition("$body")
    return head + body + tail


__all__ = ["PAGES", "TITLES", "page_html"]

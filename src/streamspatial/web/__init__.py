"""``streamspatial serve``: a browser UI for human streaming baselines and annotation.

Needs the ``[web]`` extra (FastAPI, uvicorn).  See ``docs/web.md``.
"""

from __future__ import annotations

from .app import ServeConfig, create_app
from .human import HumanStudy, StudyError

__all__ = ["HumanStudy", "ServeConfig", "StudyError", "create_app"]

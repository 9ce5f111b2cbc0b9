"""One training example with its pictures placed, and where an export goes: what every export
format takes.

A module of its own so that the formats (:mod:`.formats`) and the Hugging Face dataset writer
(:mod:`.hf_dataset`), which the formats use, both read it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Prepared:
    """One example with its pictures placed: turns as (role, text with ``<image>``s)."""

    id: str
    kind: str
    video: str
    t_q: float
    frame_times: tuple[float, ...]
    view_times: tuple[float, ...]
    turns: tuple[tuple[str, str], ...]
    images: tuple[str, ...]  # relative to the export folder, in placeholder order

    def messages(self) -> list[dict[str, str]]:
        """The turns as OpenAI-style messages (``role``, ``content``): the LLaMA-Factory layout,
        which the Hugging Face dataset's ``messages`` column keeps too."""
        return [{"role": role, "content": text} for role, text in self.turns]

    def extra(self) -> dict:
        """The fields every format carries for causality checks (no loader reads them)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "source_video": self.video,
            "t_q": float(self.t_q),
            "frame_times": [float(t) for t in self.frame_times],
            "view_times": [float(t) for t in self.view_times],
        }


@dataclass(frozen=True)
class ExportTarget:
    """Where a format writes, the same for every format: files go into ``folder``, which is
    moved to ``final`` once all are written (a format that records absolute paths names
    ``final``); ``dataset`` names the export; ``about``: the source folder's ``manifest`` and
    the export's ``policy``, ``frame_size`` and ``kinds``, for formats that describe
    themselves."""

    folder: Path
    final: Path
    dataset: str
    about: Mapping[str, Any] | None = None


__all__ = ["ExportTarget", "Prepared"]

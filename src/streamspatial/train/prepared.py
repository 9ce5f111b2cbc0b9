"""One training example with its pictures placed, as every export format takes it.

A module of its own so that the formats (:mod:`.formats`) and the Hugging Face dataset writer
(:mod:`.hf_dataset`), which the formats use, both read it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


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


__all__ = ["Prepared"]

"""The camera every episode is seen through: its field of view, and what counts as *seen*.

Two numbers that the steps which plan a walk (where events go so the camera sees them), draw it
(the renderer's lens) and ask about it (which objects a question may name) must agree on, and
that perception over the same frames must agree with too: an oracle memory that counted an
object as seen at fewer pixels than the question generators would know objects no question
may mention.  Both live here, below the simulator and perception alike.
"""

from __future__ import annotations

DEFAULT_VFOV = 60.0  # degrees: the vertical field of view every episode is rendered with
DEFAULT_MIN_PIXELS = 60  # at 320×240; scaled with the image area by :func:`min_pixels_for`


def min_pixels_for(width: int, height: int) -> int:
    """Visible pixels an object needs before it counts as *seen* (≈ 0.08 % of the image)."""
    return max(12, round(DEFAULT_MIN_PIXELS * width * height / (320 * 240)))


__all__ = ["DEFAULT_MIN_PIXELS", "DEFAULT_VFOV", "min_pixels_for"]

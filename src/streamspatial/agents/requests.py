"""Building an answer request: the pieces every agent shares.

Whatever an agent shows the model (sampled frames, a scene graph, folded memory), the request
ends the same way — the item's image options, the benchmark's prompt, and the fields a backend
may key on besides the content (choice letters, the frequent baseline's task key, the item id,
filled in by :func:`streamspatial.models.requests.item_request`) — so every agent works with
every backend, the baselines included.
"""

from __future__ import annotations

import base64

from streamspatial.core.errors import CausalityError
from streamspatial.core.schema import Item
from streamspatial.models.types import ImagePart, ModelRequest, Part, TextPart

OPTION_IMAGE_CAPTION = "Option {letter}:"


def option_image_parts(item: Item) -> list[Part]:
    """The item's image options (OVO-S-Bench 4.3 maps) as images, each after a caption naming
    its letter, in letter order; empty for text options.

    The images are sent as released (their own MIME type, no re-encoding; the benchmark
    reader has checked the base64) with no recording time: they are part of the question, not
    frames of the video.
    """
    parts: list[Part] = []
    for option in item.options:
        if option.image is None:
            continue
        header, _, payload = option.image.partition(",")
        mime = header.removeprefix("data:").split(";")[0] or "image/png"
        parts.append(TextPart(OPTION_IMAGE_CAPTION.format(letter=option.letter)))
        parts.append(ImagePart(jpeg=base64.b64decode(payload), time=None, mime=mime))
    return parts


def check_prefix(request: ModelRequest, item_id: str, t: float) -> None:
    """Refuse a request holding a frame after ``t`` (its history included): nothing after the
    query time leaves the harness.  The runner checks every answer request with it, and an
    agent its own calls made at other times (a polling loop)."""
    for f in request.frame_times:
        if f > t + 1e-6:
            raise CausalityError(f"request for item {item_id} at t={t} holds a frame at t={f}")


__all__ = ["OPTION_IMAGE_CAPTION", "check_prefix", "option_image_parts"]

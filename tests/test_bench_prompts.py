"""Prompt helpers shared by every adapter."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from streamspatial.bench.prompts import format_seconds, frame_caption, options_text
from streamspatial.core.schema import Option


def test_frame_caption():
    assert frame_caption(12.5) == "Frame at 12.5 s:"
    assert frame_caption(3.0) == "Frame at 3 s:"
    assert frame_caption(0.0) == "Frame at 0 s:"
    assert frame_caption(0.256) == "Frame at 0.26 s:"


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_format_seconds_is_the_time_to_two_decimals(t):
    text = format_seconds(t)
    assert float(text) == float(f"{t:.2f}")
    assert not text.endswith(".") and (("." not in text) or not text.endswith("0"))


def test_options_text_names_image_options_by_letter():
    opts = [
        Option(letter="A", text="About 3 m"),
        Option(letter="B", image="data:image/png;base64,x"),
    ]
    assert options_text(opts) == "A. About 3 m\nB. [map image B]"

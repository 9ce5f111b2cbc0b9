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


def test_ovos_official_prompt_is_the_repositorys_text():
    """prompts.py ``default`` and option_utils.py's placeholder and note (OVO-S-Bench repo)."""
    from streamspatial.bench.prompts import ovos_official_prompt

    opts = [
        Option(letter="A", image="data:image/png;base64,AAAA"),
        Option(letter="B", image="data:image/png;base64,AAAA"),
        Option(letter="C", text="None of them"),
    ]
    assert ovos_official_prompt("Which map?", opts) == (
        "You are evaluating a video understanding task. Based on the video frames provided, "
        "answer the following multiple choice question.\n\n"
        "Question: Which map?\n\n"
        "Options:\n"
        "A. [See option image labeled A]\nB. [See option image labeled B]\nC. None of them\n\n"
        "Instructions:\n"
        '- Respond with ONLY the letter of your answer (e.g., "A" or "B").\n'
        "- Do not include any explanation or additional text.\n\n"
        "Your answer:\n\n"
        "Note: The images that follow the video correspond to options A, B in order. Choose "
        "the option whose image best matches the question."
    )
    assert ovos_official_prompt("Q?", opts[2:], cot=True).endswith(
        "in the format: Answer: X\n\nYour reasoning and answer:"
    )


def test_vcbench_official_prompt_is_the_demos_text():
    from streamspatial.bench.prompts import vcbench_prompt

    assert vcbench_prompt("How many chairs?", official=True) == (
        "The video clip ends at the exact moment being asked about. How many chairs? Answer "
        "with ONLY a single integer number, nothing else."
    )

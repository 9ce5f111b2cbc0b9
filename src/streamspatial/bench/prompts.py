"""The benchmarks' own prompt texts, verbatim where a paper gives them.

Every paper template has a text-only form that never mentions frames (the blind baselines).
Frame times are not part of these texts: the request builder puts :func:`frame_caption` before
each image, so the model is told when every frame was recorded whatever the sampling policy.

Sources: OVO-S-Bench default and chain-of-thought templates (App. G.5, and as its
official repository sends them: ``prompts.py`` and the image-option note of
``option_utils.py``, used under ``--scorer official``); VCBench query format (§4.1 /
App. B.1, and the official ``eval/demo_gemini.py`` prompt under ``--scorer official``);
S3-Bench system prompt (App. 1.1 — the paper says
the answer formats "were predefined in the prompts" without printing them, so the format
instructions are ours); UCS-Bench's prompts (App. D.5) are figures not reproduced in
the text, so its template is ours, in the OVO-S style; VSI-Bench uses its public evaluation
prompts (pre-prompt and the two post-prompts of its lmms-eval task).

The seed's text renders the OVO-S example letters as ‘‘A’’ — LaTeX's typeset double quotes —
so the template sends plain double quotes: (e.g., "A" or "B").
"""

from __future__ import annotations

from collections.abc import Sequence

from streamspatial.core.schema import Option


def frame_caption(t: float) -> str:
    """The line put before each image in a request: ``"Frame at 12.5 s:"``."""
    return f"Frame at {format_seconds(t)} s:"


def video_caption(times: Sequence[float]) -> str:
    """The line put before frames sent as one video (``--frames video``), giving their times:
    ``"Video: 8 frames from 0 s to 14 s, one every 2 s:"``."""
    if len(times) == 1:
        return f"Video: 1 frame at {format_seconds(times[0])} s:"
    step = (times[-1] - times[0]) / (len(times) - 1)
    return (
        f"Video: {len(times)} frames from {format_seconds(times[0])} s to "
        f"{format_seconds(times[-1])} s, one every {format_seconds(step)} s:"
    )


def format_seconds(t: float) -> str:
    """Seconds with at most two decimals and no trailing zeros: 12.5, 3, 0.25."""
    text = f"{t:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def options_text(options: Sequence[Option]) -> str:
    """One option per line, ``"A. text"``; image options name their letter (image attached)."""
    return "\n".join(f"{o.letter}. {o.display()}" for o in options)


# --- OVO-S-Bench (App. G.5) ------------------------------------------------------

OVOS_HEADER = (
    "You are evaluating a video understanding task. Based on the video frames provided, "
    "answer the following multiple choice question."
)
OVOS_HEADER_TEXT_ONLY = (
    "You are evaluating a video understanding task. Answer the following multiple choice question."
)
OVOS_BODY = "Question: {question}\nOptions:\n{options_text}\n"
OVOS_INSTRUCTIONS_DEFAULT = (
    "Instructions:\n"
    '- Respond with ONLY the letter of your answer (e.g., "A" or "B").\n'
    "- Do not include any explanation or additional text.\n"
    "Your answer:"
)
OVOS_INSTRUCTIONS_COT = (
    "Instructions:\n"
    "- Think step by step about the spatial relationships and scene content shown in the "
    "frames.\n"
    "- After your reasoning, output your final answer on a new line in the format: Answer: X"
)
OVOS_INSTRUCTIONS_COT_TEXT_ONLY = (
    "Instructions:\n"
    "- Think step by step about the spatial relationships and scene content described in the "
    "question.\n"
    "- After your reasoning, output your final answer on a new line in the format: Answer: X"
)


def ovos_prompt(
    question: str, options: Sequence[Option], *, cot: bool = False, text_only: bool = False
) -> str:
    header = OVOS_HEADER_TEXT_ONLY if text_only else OVOS_HEADER
    return f"{header}\n{_ovos_choice(question, options, cot=cot, text_only=text_only)}"


def _ovos_choice(question: str, options: Sequence[Option], *, cot: bool, text_only: bool) -> str:
    """G.5's question, options and instructions (step by step with ``cot``), under a header."""
    if cot:
        instructions = OVOS_INSTRUCTIONS_COT_TEXT_ONLY if text_only else OVOS_INSTRUCTIONS_COT
    else:
        instructions = OVOS_INSTRUCTIONS_DEFAULT
    body = OVOS_BODY.format(question=question, options_text=options_text(options))
    return f"{body}{instructions}"


# --- OVO-S-Bench as its official repository sends it (prompts.py, option_utils.py) ---------
# The same words as G.5 with blank lines between the sections, a closing line of its own per
# style, and no text-only form (the official text-only run sends this prompt without frames).

OVOS_OFFICIAL_BODY = "{header}\n\nQuestion: {question}\n\nOptions:\n{options_text}\n\n"
OVOS_OFFICIAL_DEFAULT = (
    "Instructions:\n"
    '- Respond with ONLY the letter of your answer (e.g., "A" or "B").\n'
    "- Do not include any explanation or additional text.\n\n"
    "Your answer:"
)
OVOS_OFFICIAL_COT = (
    "Instructions:\n"
    "- Think step by step about the spatial relationships and scene content shown in the "
    "frames.\n"
    "- After your reasoning, output your final answer on a new line in the format: Answer: X\n\n"
    "Your reasoning and answer:"
)
OVOS_OFFICIAL_IMAGE_PLACEHOLDER = "[See option image labeled {letter}]"
OVOS_OFFICIAL_IMAGE_NOTE = (
    "Note: The images that follow the video correspond to options {letters} in order. "
    "Choose the option whose image best matches the question."
)


def ovos_official_prompt(question: str, options: Sequence[Option], *, cot: bool = False) -> str:
    """The OVO-S-Bench repository's prompt: image options become a placeholder naming their
    letter, and a note after the prompt says the images after the video are those options."""
    lines = [
        f"{o.letter}. "
        + (
            o.text
            if o.text is not None
            else OVOS_OFFICIAL_IMAGE_PLACEHOLDER.format(letter=o.letter)
        )
        for o in options
    ]
    body = OVOS_OFFICIAL_BODY.format(
        header=OVOS_HEADER, question=question, options_text="\n".join(lines)
    )
    prompt = body + (OVOS_OFFICIAL_COT if cot else OVOS_OFFICIAL_DEFAULT)
    images = [o.letter for o in options if o.is_image]
    if images:
        prompt += "\n\n" + OVOS_OFFICIAL_IMAGE_NOTE.format(letters=", ".join(images))
    return prompt


# --- VCBench (§4.1) --------------------------------------------------------------

VCBENCH_TEMPLATE = (
    "Based on the video content up to this moment, {question} Please answer with a single number."
)
VCBENCH_TEMPLATE_TEXT_ONLY = "{question} Please answer with a single number."


# The official repository's demo (eval/demo_gemini.py) asks with its own words; it has no
# text-only form.
VCBENCH_OFFICIAL_TEMPLATE = (
    "The video clip ends at the exact moment being asked about. {question} Answer with ONLY a "
    "single integer number, nothing else."
)


def vcbench_prompt(question: str, *, text_only: bool = False, official: bool = False) -> str:
    if official:
        return VCBENCH_OFFICIAL_TEMPLATE.format(question=question)
    template = VCBENCH_TEMPLATE_TEXT_ONLY if text_only else VCBENCH_TEMPLATE
    return template.format(question=question.strip())


# --- UCS-Bench (template ours) ----------------------------------------------------

UCS_HEADER = (
    "You are the camera wearer of this egocentric video. The frames show what you have seen "
    "up to now, the last one being your current view. Answer the following multiple choice "
    "question about your surroundings from your own current position and orientation."
)
UCS_HEADER_TEXT_ONLY = (
    "You are the camera wearer of an egocentric video. Answer the following multiple choice "
    "question about your surroundings from your own current position and orientation."
)


def ucs_prompt(
    question: str,
    options: Sequence[Option],
    query_time: float,
    *,
    cot: bool = False,
    text_only: bool = False,
) -> str:
    header = UCS_HEADER_TEXT_ONLY if text_only else UCS_HEADER
    when = f"The question is asked at {format_seconds(query_time)} s into the video.\n"
    if not options:  # an open-ended direction question (the UCS-Bench demo QA files)
        header = UCS_OPEN_HEADER_TEXT_ONLY if text_only else UCS_OPEN_HEADER
        return f"{header}\n{when}Question: {question}\n{UCS_DIRECTION_INSTRUCTIONS}"
    return f"{header}\n{when}{_ovos_choice(question, options, cot=cot, text_only=text_only)}"


UCS_OPEN_HEADER = (
    "You are the camera wearer of this egocentric video. The frames show what you have seen "
    "up to now, the last one being your current view. Answer the following question about "
    "your surroundings from your own current position and orientation."
)
UCS_OPEN_HEADER_TEXT_ONLY = (
    "You are the camera wearer of an egocentric video. Answer the following question about "
    "your surroundings from your own current position and orientation."
)
UCS_DIRECTION_INSTRUCTIONS = (
    "Instructions:\n"
    "- Answer in one short sentence saying where it is relative to you now: in front of you, "
    "behind you, to your left, to your right, front-left, front-right, back-left or "
    "back-right.\n"
    "- If it is in several places, name every direction.\n"
    "Your answer:"
)


# --- S3-Bench (App. 1.1) ----------------------------------------------------------

S3_SYSTEM_PROMPT = (
    "You are a spatial understanding agent; based on the observed spatial information, answer "
    "the corresponding questions."
)
S3_FORMAT_NUM = (
    "Answer with a single number only (distances and lengths in meters, areas in square "
    "meters, durations in seconds), without units or explanation."
)
S3_FORMAT_MC = "Answer with only the letter of the correct option."
S3_TIME_LINE = "The question is asked at {t} s into the video stream."


def s3_prompt(
    question: str,
    options: Sequence[Option],
    query_time: float,
    *,
    numeric: bool,
    cot: bool = False,
    text_only: bool = False,
) -> str:
    lines = []
    if not text_only:
        lines.append(S3_TIME_LINE.format(t=format_seconds(query_time)))
    lines.append(f"Question: {question}")
    if options:
        lines.append("Options:\n" + options_text(options))
    fmt = S3_FORMAT_NUM if numeric else S3_FORMAT_MC
    if cot:
        fmt = (
            "Think step by step, then give your final answer on a new line in the format: "
            "Answer: X. " + fmt
        )
    lines.append(fmt)
    return "\n".join(lines)


# --- VSI-Bench (its public evaluation prompts) ----------------------------------------------

VSI_PRE_PROMPT = "These are frames of a video."
VSI_MC_POST = "Answer with the option's letter from the given choices directly."
VSI_NUM_POST = "Please answer the question using a single word or phrase."


def vsibench_prompt(
    question: str, options: Sequence[Option], *, numeric: bool, text_only: bool = False
) -> str:
    parts = [] if text_only else [VSI_PRE_PROMPT]
    parts.append(question)
    if options:
        parts.append("Options:\n" + options_text(options))
    parts.append(VSI_NUM_POST if numeric else VSI_MC_POST)
    return "\n".join(parts)

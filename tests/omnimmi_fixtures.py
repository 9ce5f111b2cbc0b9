"""A release-shaped OmniMMI folder: the six JSON lists and their videos.

Every record is written from the schema OmniMMI/OmniMMI's README and ``evaluations/``
scripts read (never copied from the release): action prediction ``{video, question, answer,
vocab}``, speaker identification ``{…, timestamp}``, multi-turn dependency and dynamic state
grounding ``{video, qa: [{question, answer, timestamp "s -- e"}]}``, proactive alerting
``{video, question, answer: [s, e]}`` and proactive turn-taking ``{video, conversation}``.
The videos are timestamp videos (every frame shows its index), so the loopback server reads
which frames a request carried.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stream_fixtures import write_json, write_videos

VIDEOS = {"a.mp4": 10.0, "b.mp4": 8.0}


def files() -> dict[str, list[dict[str, Any]]]:
    return {
        "action_prediction.json": [
            {"video": "a.mp4", "question": "What will the person do next?",
             "answer": "crack eggs", "vocab": ["crack eggs", "pour milk", "stir"]},
        ],
        "speaker_identification.json": [
            {"video": "b.mp4", "question": "Who is speaking now?", "answer": "the man in red",
             "timestamp": 3.0},
        ],
        "multiturn_dependency_reasoning.json": [
            {"video": "a.mp4", "qa": [
                {"question": "What is the task of the instruction video?",
                 "answer": "Cook Omelet", "timestamp": "0.0 -- 4.0"},
                {"question": "What's the first step of ##ANSWER##?",
                 "answer": "Pouring the egg into the pot", "timestamp": "4.0 -- 6.0"},
            ]},
        ],
        "dynamic_state_grounding.json": [
            {"video": "b.mp4", "qa": [
                {"question": "What is on the table?", "answer": "a cup",
                 "timestamp": "0.0 -- 2.0"},
                {"question": "And now?", "answer": "nothing", "timestamp": "4.0 -- 6.0"},
            ]},
        ],
        "proactive_alerting.json": [
            {"video": "b.mp4", "question": "Tell me when the cup is picked up.",
             "answer": [3.0, 5.0]},
        ],
        "proactive_turntaking.json": [
            {"video": "a.mp4", "conversation": [{"Speaker A": "Did you see the game?"},
                                                {"Speaker B": "Yes, what a finish."}]},
        ],
    }  # fmt: skip


def write_release(root: Path) -> Path:
    """The release folder: ``videos/`` and the six JSON lists."""
    root.mkdir(parents=True, exist_ok=True)
    write_videos(root / "videos", VIDEOS)
    for name, records in files().items():
        write_json(root / name, records)
    return root

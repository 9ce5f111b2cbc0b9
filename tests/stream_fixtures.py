"""Release-shaped files of OVO-Bench, StreamingBench, OST-Bench and VSI-SUPER, with media.

Every record is written from the schemas the official code reads (never copied from a released
file), and its media are generated: timestamp videos whose every frame shows its index
(``write_timestamp_video``) and, for OST-Bench, still images drawn the same way, so the
loopback server can read which frame a request carried.

* OVO-Bench (``data/ovo_bench_new.json``, read by ``inference.py`` / ``utils/OVOBench.py``):
  ``{id, task, video, realtime, question, options, gt}`` with an ``answer`` text that the code
  ignores; forward items ``{id, task, video, test_info: [...]}`` — REC ``activity`` and
  ``{realtime, count}``, SSR ``{realtime, step, type}``, CRR ``question`` and
  ``{realtime, type}``.
* StreamingBench (``src/data/questions_*.json``): entries ``{video_path, questions: [...]}``;
  SQA an array of such lists; proactive questions with ``ground_truth_time_stamp`` and
  ``ground_truth_output``.
* OST-Bench (``data/OST_bench.json``): turns ``{scan_id, system_prompt, new_observations,
  user_message, type, answer, option}``; every question type ``collect_results`` reads.
* VSI-SUPER (the Cambrian-S lmms-eval tasks): Recall ``{video_path, question, options,
  answer, type}``, Count ``{video_path, question, answer, split}`` and its streaming split
  ``{…, query_times, answers}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from streamspatial.video.synthetic import draw_frame, write_timestamp_video

FPS = 10.0


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def write_videos(root: Path, videos: dict[str, float]) -> Path:
    for rel, seconds in videos.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        write_timestamp_video(root / rel, seconds=seconds, fps=FPS, size=(96, 64), gop=10)
    return root


# --- OVO-Bench -----------------------------------------------------------------------------

OVO_VIDEOS = {"Ego4D/a.mp4": 10.0, "COIN/b.mp4": 10.0}


def ovobench_rows() -> list[dict[str, Any]]:
    """Two real-time and two backward items, and one item of each forward task.  The REC
    probes ask at 4.3 s (official clip: up to 5 s) and 8 s; EPM's ``answer`` disagrees with
    ``options[gt]``, as it does in many released items."""
    mc = "What is on the table right now?"
    return [
        {
            "id": 0,
            "task": "STU",
            "video": "Ego4D/a.mp4",
            "realtime": 3,
            "question": mc,
            "answer": "a cup",
            "options": ["a cup", "a plate", "a bowl", "a pan"],
            "gt": 0,
        },
        {
            "id": 1,
            "task": "OCR",
            "video": "Ego4D/a.mp4",
            "realtime": 5.5,
            "question": "What does the sign say?",
            "answer": "EXIT",
            "options": ["OPEN", "EXIT", "STOP", "PUSH"],
            "gt": 1,
        },
        {
            "id": 2,
            "task": "EPM",
            "video": "Ego4D/a.mp4",
            "realtime": 7.25,
            "question": "Where did I put the keys?",
            "answer": "in the bag",
            "options": ["on the sofa", "in the drawer", "on the shelf", "by the door"],
            "gt": 2,
        },
        {
            "id": 3,
            "task": "ASI",
            "video": "COIN/b.mp4",
            "realtime": 6,
            "question": "What did I do after washing the cup?",
            "answer": "dried it",
            "options": ["dried it", "broke it", "filled it", "hid it"],
            "gt": 0,
        },
        {
            "id": 4,
            "task": "REC",
            "video": "COIN/b.mp4",
            "activity": "clap their hands",
            "test_info": [{"realtime": 4.3, "count": 2}, {"realtime": 8, "count": 3}],
        },
        {
            "id": 5,
            "task": "SSR",
            "video": "COIN/b.mp4",
            "test_info": [
                {"realtime": 2, "step": "pour the water", "type": 0},
                {"realtime": 5, "step": "pour the water", "type": 1},
            ],
        },
        {
            "id": 6,
            "task": "CRR",
            "video": "Ego4D/a.mp4",
            "question": "Who opens the door?",
            "answer": "the man",
            "ask_time": 2,
            "clue_time": 6,
            "test_info": [{"realtime": 2, "type": 0}, {"realtime": 9, "type": 1}],
        },
    ]


# --- StreamingBench ------------------------------------------------------------------------

STREAMING_VIDEOS = {"videos/sample_1_real.mp4": 12.0, "videos/sample_2_real.mp4": 12.0}


def streamingbench_real() -> list[dict[str, Any]]:
    """Five questions on two videos; two time stamps in the malformed spellings the release
    has (``"00:05"`` and ``"0:00:07"``, read as 5 s and 7 s)."""

    def q(task: str, question: str, stamp: str, answer: str) -> dict[str, Any]:
        return {
            "task_type": task,
            "question": question,
            "time_stamp": stamp,
            "answer": answer,
            "options": ["A. a cup.", "B. a map.", "C. a key.", "D. a pen."],
            "required_ability": "working memory",
        }

    return [
        {
            "time": "[0:00:00 - 0:00:10]",
            "video_path": "./videos/sample_1_real.mp4",
            "video_categories": "kitchen",
            "questions": [
                q("Object Perception", "What is on the counter right now?", "00:00:03", "A"),
                q("Object Perception", "What is in my hand right now?", "00:05", "B"),
            ],
        },
        {
            "time": "[0:00:05 - 0:00:11]",
            "video_path": "./videos/sample_2_real.mp4",
            "video_categories": "office",
            "questions": [
                q("Counting", "Which object appeared twice?", "0:00:07", "C"),
                q("Spatial Understanding", "What is left of the laptop?", "00:00:09", "D"),
                q("Spatial Understanding", "What is right of the laptop?", "00:00:10", "A"),
            ],
        },
    ]


def streamingbench_omni() -> list[dict[str, Any]]:
    """``questions_omni.json``'s shape (the real-time file's): two omni-source questions and
    the two contextual tasks that the release files in the omni file too."""

    def q(task: str, question: str, stamp: str, answer: str) -> dict[str, Any]:
        return {
            "task_type": task,
            "question": question,
            "time_stamp": stamp,
            "answer": answer,
            "options": ["A. happy.", "B. sad.", "C. the radio.", "D. nobody."],
            "required_ability": "working memory",
        }

    return [
        {
            "video_path": "./videos/sample_1_real.mp4",
            "questions": [
                q("Emotion Recognition", "How does the speaker feel?", "00:00:04", "A"),
                q("Source Discrimination", "Who is speaking?", "00:00:06", "C"),
            ],
        },
        {
            "video_path": "./videos/sample_2_real.mp4",
            "questions": [
                q("Misleading Context Understanding", "What did I say was red?", "00:00:05", "B"),
                q("Anomaly Context Understanding", "What was odd just now?", "00:00:08", "D"),
            ],
        },
    ]


def streamingbench_sqa() -> list[list[dict[str, Any]]]:
    """One dialogue of three questions whose options lack "A." prefixes."""

    def q(question: str, stamp: str, answer: str) -> dict[str, Any]:
        return {
            "task_type": "Sequential Question Answering",
            "question": question,
            "time_stamp": stamp,
            "answer": answer,
            "options": ["red", "green", "blue", "white"],
        }

    entry = "./videos/sample_1_real.mp4"
    return [
        [
            {"video_path": entry, "questions": [q("What colour is the cup?", "00:00:02", "A")]},
            {"video_path": entry, "questions": [q("And the plate?", "00:00:05", "B")]},
            {"video_path": entry, "questions": [q("And the bowl?", "00:00:08", "C")]},
        ]
    ]


def streamingbench_proactive() -> list[dict[str, Any]]:
    """Two proactive questions: polled from 2 s (ground truth 5 s) and from 1 s (truth 3 s)."""
    return [
        {
            "video_path": "./videos/sample_2_real.mp4",
            "questions": [
                {
                    "task_type": "Proactive Output",
                    "question": "Tell me when the ball turns red.",
                    "time_stamp": "00:00:02",
                    "ground_truth_time_stamp": "00:00:05",
                    "ground_truth_output": "The ball is red",
                }
            ],
        },
        {
            "video_path": "./videos/sample_1_real.mp4",
            "questions": [
                {
                    "task_type": "Proactive Output",
                    "question": "Tell me when the door opens.",
                    "time_stamp": "00:00:01",
                    "ground_truth_time_stamp": "00:00:03",
                    "ground_truth_output": "The door is open",
                }
            ],
        },
    ]


# --- OST-Bench -----------------------------------------------------------------------------

OST_SYSTEM = "You are an agent exploring a room. Answer as JSON: {answer, reason}."
OST_TYPES = [
    ("Agent_state-orientation(Judgement)", "judge"),
    ("Agent_state-position(Judgement)", "judge"),
    ("Agent_state-orientation(Estimation)", "esti"),
    ("Agent_state-position(Estimation)", "esti"),
    ("Agent_visible_info-existence(Judgement)", "judge"),
    ("Agent_visible_info-order(Judgement)", "judge"),
    ("Agent_visible_info-diversity(Judgement)", "judge"),
    ("Agent_visible_info-existence(Temporal-loc1)", "count"),
    ("Agent_visible_info-existence(Temporal-loc2)", "count"),
    ("Agent_visible_info-quantity(Counting)", "count"),
    ("Agent_object_spatial-direction(Judgement1)", "judge"),
    ("Agent_object_spatial-direction(Judgement2)", "judge"),
    ("Agent_object_spatial-direction(Judgement3)", "judge"),
    ("Agent_object_spatial-distance(Judgement1)", "judge"),
    ("Agent_object_spatial-distance(Judgement2)", "judge"),
    ("Agent_object_spatial-distance(Judgement3)", "judge"),
    ("Agent_object_spatial-direction(Estimation)", "esti"),
    ("Agent_object_spatial-distance(Estimation)", "esti"),
    ("Agent_object_spatial-direction(Temporal-loc)", "count"),
    ("Agent_object_spatial-distance(Temporal-loc)", "count"),
]
OST_SCANS = ("scene0001_00", "scene0002_00")


def ost_rows() -> list[dict[str, Any]]:
    """Two scans of ten turns each (every question type once) and a trailing turn of the
    evaluator's skip type "None"; each turn adds one or two images of its scan."""
    rows = []
    frame = {scan: 0 for scan in OST_SCANS}
    for n, (qtype, kind) in enumerate(OST_TYPES):
        scan = OST_SCANS[n // 10]
        shown = 1 + n % 2
        images = [f"{scan}/{frame[scan] + k:05d}.jpg" for k in range(shown)]
        frame[scan] += shown
        row: dict[str, Any] = {
            "scan_id": scan,
            "system_prompt": OST_SYSTEM,
            "new_observations": images,
            "type": qtype,
            "user_message": f"Turn {n}: {qtype}?",
        }
        if kind == "judge":
            row.update(option=["Left", "Right", "Front-left"], answer='"Right"')
        elif kind == "esti":
            row.update(option=[], answer=2.0)
        else:
            row.update(option=[], answer="3")
        rows.append(row)
    last = OST_SCANS[1]
    rows.append(
        {
            "scan_id": last,
            "system_prompt": OST_SYSTEM,
            "type": "None",
            "new_observations": [f"{last}/{frame[last]:05d}.jpg"],
            "user_message": "Keep exploring.",
            "answer": "",
            "option": [],
        }
    )
    return rows


def write_ost_images(root: Path, rows: list[dict[str, Any]]) -> Path:
    """Each scan's images, the k-th the scan shows drawing frame index k."""
    seen: dict[str, int] = {}
    for row in rows:
        for rel in row["new_observations"]:
            scan = rel.split("/")[0]
            k = seen.get(scan, 0)
            seen[scan] = k + 1
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(draw_frame(k, (96, 64))).save(root / rel, quality=95)
    return root


# --- VSI-SUPER -----------------------------------------------------------------------------

VSI_SUPER_VIDEOS = {"10mins/v1.mp4": 6.0, "30mins/v2.mp4": 8.0, "count/v3.mp4": 10.0}


def vsisuper_recall() -> list[dict[str, Any]]:
    opts = [
        "A. Sofa, Bed, Desk, Sink",
        "B. Bed, Sofa, Desk, Sink",
        "C. Desk, Sink, Sofa, Bed",
        "D. Sink, Desk, Bed, Sofa",
    ]
    q = "Which order did the teddy bear appear in?"
    return [
        {
            "video_path": "10mins/v1.mp4",
            "question": q,
            "options": opts,
            "answer": "B",
            "type": "10mins",
        },
        {
            "video_path": "30mins/v2.mp4",
            "question": q,
            "options": opts,
            "answer": "C",
            "type": "30mins",
        },
    ]


def vsisuper_count() -> list[dict[str, Any]]:
    q = "How many chairs are there in the house?"
    return [
        {"video_path": "count/v3.mp4", "question": q, "answer": 10, "split": "10mins"},
        {"video_path": "10mins/v1.mp4", "question": q, "answer": 4, "split": "10mins"},
        {
            "video_path": "count/v3.mp4",
            "question": q,
            "answers": [1, 2, 4],
            "query_times": [3, 6, 9],
            "split": "10mins_streaming",
        },
    ]

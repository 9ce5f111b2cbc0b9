"""Benchmark files in the schemas the benchmarks publish, written from their schema documents.

Nothing here is copied from a released file: every record is written from the published field
descriptions, so the tests hold the readers to the schema, not to one file.

* OVO-S-Bench: ``data/README.md`` of InternLM/OVO-S-Bench ("Schema" table): string ``id``
  (``{subcat}_{idx}``, L4 ``{main}_{NNN}``), no ``category_index``, ``level`` int,
  ``task_subcategory`` dotted for L1–L3 and equal to the main category for L4,
  ``options`` ``list<[label, content]>`` with L4.3 contents ``data:image/png;base64,…``,
  ``query_times`` list<float>, ``evidence_times`` list<[float, float]>, ``answers``
  list<string>.  The official loader (annotation_utils.py) also accepts options as a map,
  ``{key, value}`` records or a dict, a JSON array or ``{"annotations": [...]}``, and
  ``re_constructed`` overrides; inference.py pads ``answers`` to ``query_times``.
* UCS-Bench: the demo QA schema of cocowy1/UCS-Bench ``directme/demo`` (``qid, video_uid,
  question, question_timestamps "HH:MM:SS", answer`` free text, empty ``options``), the MC
  JSON-array schema read by ``directme/eval/eval_ucsbench.py`` and the JSONL schema documented
  in ``examples/evaluate_ucsbench_vlm.py``.
* VSI-Bench: the dataset card's features (``id`` int64, ``dataset, scene_name, question_type,
  question, ground_truth`` strings, ``options`` a sequence of strings or null).
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from streamspatial.video.synthetic import write_timestamp_video

FPS = 10.0
OVOS_VIDEOS = {"RoomTour3D/a.mp4": 8.0, "RoomTour3D/b.mp4": 9.0}
MAP_COLORS = ("red", "green", "blue")


def png_data_url(color: str, size: tuple[int, int] = (32, 24)) -> str:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _text_options(n: int) -> list[list[str]]:
    return [[letter, f"About {k + 1} m"] for k, letter in enumerate("ABCDEFG"[:n])]


def ovos_release_rows() -> list[dict[str, Any]]:
    """Five items in the release schema: L1, a multi-time Revisit Counting item whose answers
    are shorter than its query times, L4.1, L4.3 with three map images, and an L3 item with a
    ``re_constructed`` override.  Evidence ends exactly at the query time."""
    common = {"source_dataset": "RoomTour3D"}
    return [
        {
            **common,
            "id": "1.1.1_0",
            "video_id": "a",
            "video_path": "RoomTour3D/a.mp4",
            "level": 1,
            "task_main_category": "1.1",
            "task_subcategory": "1.1.1",
            "task_type_name": "Object-to-Object Absolute Distance",
            "question": "How far is the chair from the camera?",
            "options": _text_options(4),
            "query_times": [3.0],
            "evidence_times": [[1.0, 3.0]],
            "answers": ["B"],
        },
        {
            **common,
            "id": "2.1.2_0",
            "video_id": "a",
            "video_path": "RoomTour3D/a.mp4",
            "level": 2,
            "task_main_category": "2.1",
            "task_subcategory": "2.1.2",
            "task_type_name": "Revisit Counting",
            "question": "How many times have you entered the kitchen so far?",
            "options": _text_options(7),
            "query_times": [2.0, 5.0, 7.5],
            "evidence_times": [[0.5, 2.0], [3.0, 5.0], [6.0, 7.5]],
            "answers": ["A", "B"],  # padded with "B" for 7.5 s (official inference.py)
        },
        {
            **common,
            "id": "4.1_000",
            "video_id": "b",
            "video_path": "RoomTour3D/b.mp4",
            "level": 4,
            "task_main_category": "4.1",
            "task_subcategory": "4.1",
            "task_type_name": "Trajectory Sketch Matching",
            "question": "Which sketch matches your route?",
            "options": _text_options(4),
            "query_times": [6.0],
            "evidence_times": [[0.0, 6.0]],
            "answers": ["C"],
        },
        {
            **common,
            "id": "4.3_000",
            "video_id": "b",
            "video_path": "RoomTour3D/b.mp4",
            "level": 4,
            "task_main_category": "4.3",
            "task_subcategory": "4.3",
            "task_type_name": "Path-to-Map Matching",
            "question": "Which map matches the path walked so far?",
            "options": [
                [letter, png_data_url(c)] for letter, c in zip("ABC", MAP_COLORS, strict=True)
            ],
            "query_times": [8.5],
            "evidence_times": [[2.0, 8.5]],
            "answers": ["B"],
        },
        {
            **common,
            "id": "3.1.1_4",
            "video_id": "b",
            "video_path": "RoomTour3D/b.mp4",
            "level": 3,
            "task_main_category": "3.1",
            "task_subcategory": "3.1.1",
            "task_type_name": "Route Planning",
            "question": "(superseded)",
            "options": _text_options(2),
            "query_times": [4.0],
            "evidence_times": [[1.0, 4.0]],
            "answers": ["A"],
            "re_constructed": {
                "question": "Which way leads back to the door?",
                "options": {"A": "Left", "B": "Right", "C": "Straight on"},
                "answers": ["C"],
            },
        },
    ]


OVOS_SCALAR_COLUMNS = (
    "id",
    "source_dataset",
    "video_id",
    "video_path",
    "level",
    "task_main_category",
    "task_subcategory",
    "task_type_name",
    "question",
)


def _options_column(rows: list[dict[str, Any]], encoding: str) -> pa.Array:
    pairs = [r["options"] for r in rows]
    if encoding == "pairs":  # list<[label, content]>, the schema's own spelling
        return pa.array(pairs, type=pa.list_(pa.list_(pa.string())))
    if encoding == "map":
        return pa.array(
            [[tuple(p) for p in r] for r in pairs], type=pa.map_(pa.string(), pa.string())
        )
    if encoding == "records":  # a map written as a list of {key, value} structs
        return pa.array([[{"key": k, "value": v} for k, v in r] for r in pairs])
    if encoding == "json":
        return pa.array([json.dumps(dict(r)) for r in pairs])
    raise ValueError(encoding)


def write_ovos_parquet(path: Path, rows: list[dict[str, Any]], options: str = "pairs") -> Path:
    columns: dict[str, Any] = {c: [r[c] for r in rows] for c in OVOS_SCALAR_COLUMNS}
    columns["options"] = _options_column(rows, options)
    columns["query_times"] = pa.array([r["query_times"] for r in rows], pa.list_(pa.float64()))
    columns["evidence_times"] = pa.array(
        [r["evidence_times"] for r in rows], pa.list_(pa.list_(pa.float64()))
    )
    columns["answers"] = pa.array([r["answers"] for r in rows], pa.list_(pa.string()))
    if any("re_constructed" in r for r in rows):
        columns["re_constructed"] = [
            json.dumps(r["re_constructed"]) if "re_constructed" in r else None for r in rows
        ]
    pq.write_table(pa.table(columns), path)
    return path


def write_ovos_json(path: Path, rows: list[dict[str, Any]], *, wrapped: bool = False) -> Path:
    """The same rows as a JSON array (options as a dict, as the loader hands them on), or
    wrapped as ``{"annotations": [...]}``."""
    records = [{**r, "options": dict(r["options"])} for r in rows]
    path.write_text(json.dumps({"annotations": records} if wrapped else records, indent=1))
    return path


def write_ovos_videos(root: Path) -> Path:
    videos = root / "videos"
    for rel, seconds in OVOS_VIDEOS.items():
        (videos / rel).parent.mkdir(parents=True, exist_ok=True)
        write_timestamp_video(videos / rel, seconds=seconds, fps=FPS, size=(160, 120), gop=12)
    return videos


# --- UCS-Bench ----------------------------------------------------------------------------


def ucs_demo_rows() -> list[dict[str, Any]]:
    """Open-ended direction questions in the demo schema (``directme/demo``)."""
    answers = [
        ("00:00:02", "Which side is the lamp on right now?", "It is on your left."),
        (
            "00:00:05",
            "Which side is the door on right now?",
            "It is to your front-left and rear-left.",
        ),
        ("00:00:05", "Which side is the lamp on right now?", "It is behind you."),
        ("00:00:07", "Which side is the sofa on right now?", "It is to your rear-right."),
    ]
    return [
        {
            "qid": f"demo_{k:02d}",
            "video_uid": "demo_walk",
            "question": question,
            "question_timestamps": stamp,
            "answer": answer,
            "options": {},
        }
        for k, (stamp, question, answer) in enumerate(answers, start=1)
    ]


def ucs_mc_array_rows() -> list[dict[str, Any]]:
    """The MC JSON-array schema of eval_ucsbench.py; the second has no category."""
    return [
        {
            "qid": "mc_1",
            "video_uid": "demo_walk-mcq",
            "question": "Where is the lamp relative to you now?",
            "question_timestamps": "00:00:04",
            "options": {"A": "Left", "B": "Right", "C": "Behind", "D": "Front", "E": "Above"},
            "answer_label": "C",
            "category": "Position & Orientation",
            "subcategory": "Egocentric Direction",
            "qtype": "direction",
        },
        {
            "qid": "mc_2",
            "video_uid": "demo_walk__mcq",
            "question": "Can you reach the lamp?",
            "question_timestamps": "00:06",
            "options": {"A": "Yes", "B": "No"},
            "answer_label": "B",
        },
    ]


def ucs_jsonl_rows() -> list[dict[str, Any]]:
    """The JSONL schema of examples/evaluate_ucsbench_vlm.py (seconds, "A. …" options)."""
    return [
        {
            "video_uid": "demo_walk",
            "query_timestamp": 3.5,
            "question": "Where is the vending machine relative to me?",
            "options": ["A. On your left", "B. Behind you", "C. On your right"],
            "answer_idx": 2,
            "dimension": "position_orientation",
        },
        {
            "video_uid": "demo_walk",
            "query_timestamp": "6",
            "question": "How many chairs have you passed?",
            "options": ["A. One", "B. Two"],
            "answer_idx": 0,
        },
    ]


def write_json(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(rows, indent=2, ensure_ascii=False))
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def write_ucs_videos(root: Path, seconds: float = 8.0) -> Path:
    videos = root / "videos"
    videos.mkdir(parents=True, exist_ok=True)
    write_timestamp_video(videos / "demo_walk.mp4", seconds=seconds, fps=FPS, size=(160, 120))
    return videos


# --- VSI-Bench ----------------------------------------------------------------------------


def vsibench_rows() -> list[dict[str, Any]]:
    return [
        {
            "id": 1,
            "dataset": "arkitscenes",
            "scene_name": "41069025",
            "question_type": "object_counting",
            "question": "How many chair(s) are in this room?",
            "ground_truth": "4",
            "options": None,
        },
        {
            "id": 2,
            "dataset": "scannet",
            "scene_name": "scene0011_00",
            "question_type": "object_rel_direction_easy",
            "question": "Is the sofa to the left or the right of the tv?",
            "ground_truth": "B",
            "options": ["A. left", "B. right"],
        },
    ]


def write_vsibench_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    table = pa.table(
        {
            "id": pa.array([r["id"] for r in rows], pa.int64()),
            **{
                c: [r[c] for r in rows]
                for c in ("dataset", "scene_name", "question_type", "question", "ground_truth")
            },
            "options": pa.array([r["options"] for r in rows], pa.list_(pa.string())),
        }
    )
    pq.write_table(table, path)
    return path

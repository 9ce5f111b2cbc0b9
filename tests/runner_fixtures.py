"""Small generated benchmarks for the runner tests: timestamp videos + files in real formats.

Every video shows its frame index in the pixels (``write_timestamp_video``), so the loopback
server can tell which frame reached the model and when it was recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

from streamspatial.video.synthetic import write_timestamp_video

FPS = 10.0
SECONDS = 6.0
SIZE = (160, 120)


def make_videos(root: Path, names: list[str]) -> Path:
    videos = root / "videos"
    (videos / "src").mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(names):
        # Lengths differ so every file has its own content id (the frame cache is
        # content-addressed: identical files would share cached frames).
        write_timestamp_video(
            videos / "src" / name, seconds=SECONDS + k / FPS, fps=FPS, size=SIZE, gop=12
        )
    return videos


def ovos_rows() -> list[dict]:
    """Nine items on three videos, one Revisit-Counting item asked at three times."""
    specs = [
        # id, video, level, main, sub, task, query_times, evidence, answers
        (0, "a.mp4", 1, "1.1", "1.1.1", "Object Absolute Distance", [2.0], [[0.5, 1.5]], ["B"]),
        (1, "a.mp4", 1, "1.2", "1.2.1", "Relative Direction", [4.35], [[1.0, 3.0]], ["A"]),
        (
            2,
            "a.mp4",
            2,
            "2.1",
            "2.1.2",
            "Revisit Counting",
            [1.0, 3.0, 5.5],
            [[0.2, 0.8], [1.5, 2.5], [4.0, 5.0]],
            ["A", "B", "C"],
        ),
        (3, "b.mp4", 3, "3.1", "3.1.1", "Route Planning", [0.0], [[]], ["C"]),
        (4, "b.mp4", 3, "3.2", "3.2.1", "Perspective", [3.3], [[2.0, 3.0]], ["D"]),
        (5, "b.mp4", 4, "4.1", "4.1.1", "Map Sketch", [5.9], [[0.0, 5.0]], ["A"]),
        (6, "c.mp4", 4, "4.2", "4.2.1", "Path Length", [1.25], [[]], ["B"]),
        (7, "c.mp4", 2, "2.2", "2.2.1", "Object Permanence", [2.5], [[1.0, 2.0]], ["C"]),
        (8, "c.mp4", 1, "1.3", "1.3.1", "Object Count", [5.0], [[4.0, 4.5]], ["D"]),
    ]
    rows = []
    for iid, video, level, main, sub, task, qts, ev, answers in specs:
        n_opt = 4 if task != "Revisit Counting" else 5
        rows.append(
            {
                "id": iid,
                "category_index": f"{sub}_{iid}",
                "source_dataset": "synthetic" if iid % 2 else "synthetic2",
                "video_id": video.removesuffix(".mp4"),
                "video_path": f"src/{video}",
                "level": level,
                "task_main_category": main,
                "task_subcategory": sub,
                "task_type_name": task,
                "question": f"Question {iid}: where is the thing?",
                "options": {"ABCDE"[k]: f"option {k}" for k in range(n_opt)},
                "query_times": qts,
                "evidence_times": ev,
                "answers": answers,
            }
        )
    return rows


def write_ovos(root: Path) -> tuple[Path, Path]:
    """An OVO-S JSONL (OVO-S-Bench App. E.6 layout) and its videos; returns (file, videos)."""
    videos = make_videos(root, ["a.mp4", "b.mp4", "c.mp4"])
    path = root / "ovo_s_bench_l1_l4.jsonl"
    with path.open("w") as fh:
        for row in ovos_rows():
            fh.write(json.dumps(row) + "\n")
    return path, videos


def answer_from_frames(req) -> str:
    """A deterministic 'model': a letter from the latest frame it saw (A without frames)."""
    seen = [i for i in req.frame_indices if i is not None]
    return "ABCD"[max(seen) % 4] if seen else "A"

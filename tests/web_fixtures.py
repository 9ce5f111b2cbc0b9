"""A tiny OVO-S study for the web tests: two generated videos and three query points."""

from __future__ import annotations

import json
from pathlib import Path

from streamspatial.video.synthetic import write_timestamp_video

# (id, video, query time, answer); options are A–C.
QUERIES = [("1", "a.mp4", 2.0, "B"), ("2", "a.mp4", 3.5, "C"), ("3", "b.mp4", 1.2, "A")]


def ovos_row(item_id: str, video: str, t: float, answer: str) -> dict:
    return {
        "id": int(item_id),
        "category_index": f"2.1.1_{item_id}",
        "source_dataset": "synthetic",
        "video_id": Path(video).stem,
        "video_path": video,
        "level": 2,
        "task_main_category": "2.1",
        "task_subcategory": "2.1.1",
        "task_type_name": "Revisit Detection",
        "question": f"Question number {item_id}: which option is right?",
        "options": {"A": f"alpha {item_id}", "B": f"bravo {item_id}", "C": f"charlie {item_id}"},
        "query_times": [t],
        "evidence_times": [[0.0, t / 2]],
        "answers": [answer],
    }


def make_study(root: Path) -> tuple[Path, Path]:
    videos = root / "videos"
    videos.mkdir(parents=True)
    write_timestamp_video(videos / "a.mp4", seconds=4.0, fps=10, size=(160, 120))
    write_timestamp_video(videos / "b.mp4", seconds=2.0, fps=10, size=(160, 120))
    (root / "secret.txt").write_text("not a video\n")
    data = root / "bench.jsonl"
    data.write_text("".join(json.dumps(ovos_row(*q)) + "\n" for q in QUERIES))
    return data, videos

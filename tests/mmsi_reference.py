"""MMSI-Video-Bench's official code, transcribed for the tests (``InternRobotics/
MMSI-Video-Bench``): ``dataset.py``'s proportional sampling, ``models/api.py``'s placeholder
filling and ``evaluation.py``'s reader and printer, in the scripts' own shape."""

from __future__ import annotations

from typing import Any


def interval_sampling_list(a: int, b: int) -> list[int]:
    step = (a - 1) / (b - 1) if b > 1 else 0
    return [int(i * step) for i in range(b)]


def proportional_sample_from_lists(num_list: list[int], k: int) -> list[list[int]]:
    total_indices = interval_sampling_list(sum(num_list), k)
    sum_list = [0] + [sum(num_list[: i + 1]) for i in range(len(num_list))]
    out = []
    for i in range(len(sum_list) - 1):
        out.append([j - sum_list[i] for j in total_indices if sum_list[i] <= j < sum_list[i + 1]])
    return out


def sampled_frames(frames_list: list[list[str]], max_frame: int = 50) -> list[list[str]]:
    total = sum(len(f) for f in frames_list)
    if total <= max_frame:
        return frames_list
    idx = proportional_sample_from_lists([len(f) for f in frames_list], max_frame)
    return [[frames[j] for j in (ix or [0])] for frames, ix in zip(frames_list, idx, strict=True)]


def api_content(sample: dict[str, Any], max_frame: int = 50) -> list[str]:
    """``api_model.infer_frames``'s user message: text pieces and image names, in order."""
    text = sample["task_prompt"] + sample["user_prompt"] + sample["format_prompt"]
    images: list[str] = []
    for frames in sampled_frames(sample["frames_list"], max_frame):
        text = text.replace("<video>", "<image>" * len(frames), 1)
        images.extend(frames)
    images.extend(sample["ref_images"])
    pieces = text.split("<image>")
    out: list[str] = []
    for i, image in enumerate(images):
        out += [pieces[i], image]
    out.append(pieces[-1])
    return [p for p in out if len(p) > 0]


def clear_words(text: str) -> str:
    return (
        text.replace(" ", "").replace('"', "").replace("'", "").replace("\n", "").replace(":", "")
    )


def extract_answer(response: str) -> str:
    response = response.replace("<answer>", "").replace("</answer>", "")
    if response is None or "no answer" in response:
        return "O"
    if "boxed{" in response:
        return clear_words(response.split("boxed{")[1].split("}")[0])
    if '"answer":' in response:
        return clear_words(response.split('"answer":')[-1].split(",")[0].split(".")[0])
    elif "answer is" in response:
        return clear_words(response.split("answer is")[-1].split(",")[0].split(".")[0])
    elif "Answer: " in response:
        return clear_words(response.split("Answer: ")[-1].split(",")[0].split(".")[0])
    elif clear_words(response.split(".")[0]) in ["A", "B", "C", "D", "E", "F"]:
        return clear_words(response.split(".")[0])
    return "O"


ORDER_LIST = [
    "(Cross-Video) Memoery Update", "(Cross-Video) Multi-View Integration", "Planning",
    "Prediction", "(Motion Understanding) Camera Motion", "(Motion Understanding) Instance Motion",
    "(Motion Understanding) Interactive Motion",
    "(Spatial Construction) Instance-Instance Spatial Relationship",
    "(Spatial Construction) Instance-Scene Spatial Relationship",
    "(Spatial Construction) Scene-Scene Spatial Relationship",
    "(Spatial Construction) Instance/Scene Attribute",
    "(Spatial Construction) Camera-Instance Spatial Relationship",
    "(Spatial Construction) Camera-Scene Spatial Relationship",
]  # fmt: skip


def evaluate(results: list[dict[str, Any]]) -> dict[str, list[float]]:
    """The main loop's ``score_dict`` (the printer then reads Overall and ORDER_LIST)."""
    score_dict: dict[str, list[float]] = {"Overall": []}
    for data in results:
        qtype = data["type"]
        try:
            pred = extract_answer(data["response"])
            assert pred in ["A", "B", "C", "D", "E", "F"]
            score_dict.setdefault(qtype, []).append(float(pred == data["ground_truth"]))
            score_dict["Overall"].append(float(pred == data["ground_truth"]))
        except Exception:
            score_dict.setdefault(qtype, []).append(0.0)
            score_dict["Overall"].append(0.0)
    return score_dict

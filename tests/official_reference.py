"""The official scoring and sampling code, transcribed as the tests' expected values.

Each function restates one function of a benchmark's published code, line for line and with
its own library calls (numpy, Python's ``round`` and ``int``), so a test can compare
streamspatial's reimplementation against it on any input.  Sources (repository, file,
function):

* InternLM/OVO-S-Bench ``score.py``: ``extract_answer``, ``check_answer``,
  ``calculate_scores``.
* InternLM/OVO-S-Bench ``utils/frame_utils.py``: ``extract_frames_fixed_count``,
  ``extract_single_frame_at_query``, ``extract_recent_window``, ``extract_evidence_only``,
  ``extract_log_decay`` (the index computations; video reading left out).
* InternLM/OVO-S-Bench ``inference.py``: ``expand_annotations_to_queries`` (answer padding,
  query ids), ``_make_result``.
* buaa-colalab/VCBench ``eval/unify_results.py`` (``int(pred)``) and
  ``eval/compute_metrics.py``: ``compute_gpa``, ``compute_moc``, ``compute_uda``.
* cocowy1/UCS-Bench ``directme/eval/eval_ucsbench.py``: ``parse_option_from_answer``;
  ``directme/qa/prompts.py``: ``MultipleChoicePromptBuilder.parse_answer``.
* vision-x-nyu/thinking-in-space ``lmms_eval/tasks/vsibench/utils.py``: ``fuzzy_matching``,
  ``exact_match``, ``abs_dist_norm``, ``mean_relative_accuracy``, ``to_float``,
  ``vsibench_aggregate_results``.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

import numpy as np

# --- OVO-S-Bench score.py -------------------------------------------------------------------


def score_py_extract_answer(response: str) -> str:
    if not response:
        return ""
    response = response.strip()
    if "</think>" in response:
        response = response.split("</think>")[-1].strip()
    tail = response[-300:]
    m = re.search(r"(?:answer|final\s+answer|final)[:\s]+([A-E])\b", tail, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    m = re.search(r"<answer>\s*([A-E])\b", tail, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    m = re.search(r"\b([A-E])\b\s*\.?\s*$", tail, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    m = re.search(r"<\|begin_of_box\|>\s*([A-E])", tail, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    m = re.match(r"^([A-E])\b", response.upper())
    if m:
        return m.group(1)
    m = re.search(r"(?:answer|choice|option)s?[:\s]+([A-E])\b", response, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    m = re.search(r"[\(\[]\s*([A-E])\s*[\)\]]", response, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    return ""


def score_py_check_answer(response: str, ground_truth: Any) -> bool:
    extracted = score_py_extract_answer(response)
    if not extracted:
        return False
    if isinstance(ground_truth, list):
        gt_normalized = [str(gt).strip().upper() for gt in ground_truth]
    else:
        gt_normalized = [str(ground_truth).strip().upper()]
    return extracted in gt_normalized


def score_py_calculate_scores(results: list[dict[str, Any]]) -> dict[str, Any]:
    by_task: dict[str, list] = defaultdict(list)
    by_main_category: dict[str, list] = defaultdict(list)
    for result in results:
        if "error" in result and result.get("response") is None:
            continue
        task_sub = result.get("task_subcategory", "unknown")
        main_cat = task_sub.split(".")[0] if "." in task_sub else "unknown"
        response = result.get("response", "")
        ground_truth = result.get("ground_truth", [])
        is_correct = score_py_check_answer(response, ground_truth)
        by_task[task_sub].append(
            {"correct": is_correct, "extracted": score_py_extract_answer(response)}
        )
        by_main_category[main_cat].append(is_correct)
    task_scores = {}
    for task, items in sorted(by_task.items()):
        correct = sum(1 for item in items if item["correct"])
        total = len(items)
        task_scores[task] = {
            "correct": correct,
            "total": total,
            "accuracy": correct / total if total > 0 else 0,
        }
    category_scores = {}
    for cat, correct_list in sorted(by_main_category.items()):
        correct = sum(correct_list)
        total = len(correct_list)
        category_scores[cat] = {
            "correct": correct,
            "total": total,
            "accuracy": correct / total if total > 0 else 0,
        }
    all_correct = sum(s["correct"] for s in task_scores.values())
    all_total = sum(s["total"] for s in task_scores.values())
    return {
        "overall": {
            "correct": all_correct,
            "total": all_total,
            "accuracy": all_correct / all_total if all_total > 0 else 0,
        },
        "by_main_category": category_scores,
        "by_task": task_scores,
    }


def inference_pad_answers(query_times: list[float], answers: list[str]) -> list[str]:
    """inference.py ``expand_annotations_to_queries``: the answer of each query time."""
    if len(answers) < len(query_times):
        last_answer = answers[-1] if answers else ""
        answers = answers + [last_answer] * (len(query_times) - len(answers))
    return [answers[idx] if idx < len(answers) else answers[0] for idx in range(len(query_times))]


# --- OVO-S-Bench utils/frame_utils.py (target indices only) ------------------------------------


def frame_utils_fixed_count(query_time: float, video_fps: float, nframes: int) -> list[int]:
    end_frame = int(query_time * video_fps)
    if end_frame <= 0:
        end_frame = 1
    return sorted(set(np.linspace(0, end_frame, nframes, dtype=int).tolist()))


def frame_utils_single(query_time: float, video_fps: float) -> list[int]:
    return [max(0, int(query_time * video_fps))]


def frame_utils_recent_window(
    query_time: float, video_fps: float, nframes: int = 16, window_fps: float = 4.0
) -> list[int]:
    end_frame = max(0, int(query_time * video_fps))
    step_frames = max(1, int(round(video_fps / window_fps)))  # noqa: RUF046 - as written
    start_frame = max(0, end_frame - (nframes - 1) * step_frames)
    target_frames = list(range(start_frame, end_frame + 1, step_frames))
    if len(target_frames) > nframes:
        target_frames = target_frames[-nframes:]
    return sorted(set(int(t) for t in target_frames))


def frame_utils_evidence_only(
    query_time: float, video_fps: float, evidence_times: Any = None, nframes: int = 128
) -> list[int]:
    """Only the branch inference.py reaches: its queries carry no ``evidence_times``."""
    end_frame = max(1, int(query_time * video_fps))
    spans: list[tuple[int, int]] = []
    for span in evidence_times or []:
        s_f = max(0, int(float(span[0]) * video_fps))
        e_f = max(s_f, min(end_frame, int(float(span[1]) * video_fps)))
        if e_f > s_f:
            spans.append((s_f, e_f))
    assert not spans, "inference.py never passes evidence; the other branch is not needed"
    return sorted(set(np.linspace(0, end_frame, nframes, dtype=int).tolist()))


def frame_utils_log_decay(query_time: float, video_fps: float, nframes: int = 128) -> list[int]:
    end_frame = max(1, int(query_time * video_fps))
    near_start = max(0, end_frame - int(30 * video_fps))
    mid_start = max(0, end_frame - int(300 * video_fps))
    far_start = 0
    bands = [
        (near_start, end_frame, 0.60),
        (mid_start, near_start, 0.30),
        (far_start, mid_start, 0.10),
    ]
    targets: list[int] = []
    leftover = nframes
    for i, (s_f, e_f, frac) in enumerate(bands):
        if e_f <= s_f:
            continue
        n_band = nframes - len(targets) if i == len(bands) - 1 else int(round(nframes * frac))  # noqa: RUF046
        n_band = min(n_band, leftover)
        if n_band <= 0:
            continue
        targets += np.linspace(s_f, e_f - 1, n_band, dtype=int).tolist()
        leftover -= n_band
        if leftover <= 0:
            break
    targets = sorted(set(targets))
    if not targets:
        targets = [0]
    return targets


def decord_clamp(indices: list[int], total: int) -> list[int]:
    """frame_utils ``_extract_frames_raw``: ``min(max(int(f), 0), total - 1)``."""
    return sorted({min(max(int(f), 0), total - 1) for f in indices})


# --- VCBench ------------------------------------------------------------------------------


def unify_results_int(pred: Any) -> int | None:
    if pred is not None:
        try:
            pred = int(pred)
        except (ValueError, TypeError):
            pred = None
    return pred


def demo_prediction(raw_text: str | None) -> str | None:
    """demo_gemini.py: ``prediction = raw_text.strip() if raw_text else None``."""
    return raw_text.strip() if raw_text else None


def compute_gpa(predictions: list[float], gts: list[float]) -> float | None:
    n = len(predictions)
    if n == 0:
        return None
    total = 0.0
    for p, g in zip(predictions, gts, strict=True):
        sigma = 0.05 * max(g, 1)
        total += math.exp(-((p - g) ** 2) / (2 * sigma**2))
    return total / n


def compute_moc(predictions: list[float]) -> float | None:
    n = len(predictions)
    if n < 2:
        return None
    for i in range(n - 1):
        if predictions[i + 1] < predictions[i]:
            return i / (n - 1)
    return 1.0


def compute_uda(predictions: list[float], gts: list[float]) -> float | None:
    def sign(x: float) -> int:
        return 1 if x > 0 else (-1 if x < 0 else 0)

    n = len(predictions)
    if n < 2:
        return None
    matches = 0
    for i in range(n - 1):
        if sign(predictions[i + 1] - predictions[i]) == sign(gts[i + 1] - gts[i]):
            matches += 1
    return matches / (n - 1)


# --- UCS-Bench ----------------------------------------------------------------------------


def eval_ucsbench_parse_option_from_answer(raw: str) -> str:
    raw = (raw or "").strip()
    m = re.search(r"\b(?:Answer|answer)\s*[:：]?\s*([A-E])\b", raw)
    if m:
        return m.group(1).upper()
    m = re.search(r"\b([A-E])\b", raw)
    if m:
        return m.group(1).upper()
    m = re.search(r"\(([A-E])\)", raw)
    if m:
        return m.group(1).upper()
    return ""


def prompts_parse_answer(response: str, option_labels: str = "ABCDE") -> str | None:
    text = response.strip()
    upper = text.upper()
    valid = set(option_labels.upper())
    if not text:
        return None
    if len(upper) == 1 and upper in valid:
        return upper
    if len(upper) >= 2 and upper[0] in valid and upper[1] in ".):, ":
        return upper[0]
    m = re.search(r"(?:ANSWER\s*(?:IS|:)|CHOOSE|SELECT|PICK|CHOSE)\s*([A-E])\b", upper)
    if m and m.group(1) in valid:
        return m.group(1)
    m = re.search(r"(?:答案\s*(?:是|为|:)?|选择?)\s*([A-E])\b", text)
    if m and m.group(1).upper() in valid:
        return m.group(1).upper()
    m = re.search(r"[\[\(]([A-E])[\]\)]", upper)
    if m and m.group(1) in valid:
        return m.group(1)
    m = re.search(r"^([A-E])\b", upper, re.MULTILINE)
    if m and m.group(1) in valid:
        return m.group(1)
    return None


# --- VSI-Bench ----------------------------------------------------------------------------


def vsi_fuzzy_matching(pred: str) -> str:
    return pred.split(" ")[0].rstrip(".").strip()


def vsi_exact_match(pred: str, target: str) -> float:
    return 1.0 if pred.lower() == target.lower() else 0.0


def vsi_mean_relative_accuracy(pred: float, target: float, start=0.5, end=0.95, interval=0.05):
    num_pts = (end - start) / interval + 2
    conf_intervs = np.linspace(start, end, int(num_pts))
    accuracy = abs(pred - target) / target <= 1 - conf_intervs
    return accuracy.mean()


def vsi_to_float(pred: Any) -> float | None:
    try:
        pred = float(pred)
    except BaseException:  # as the task writes it
        pred = None
    return pred


def vsi_na_score(prediction: str, ground_truth: str) -> float:
    """vsibench_process_results for a numeric type, TypeError → worst case 0."""
    try:
        return float(
            vsi_mean_relative_accuracy(
                vsi_to_float(vsi_fuzzy_matching(prediction)), vsi_to_float(ground_truth)
            )
        )
    except TypeError:
        return 0.0


def vsi_aggregate(per_type: dict[str, float]) -> dict[str, float]:
    """vsibench_aggregate_results after the per-type means (keys: question types)."""
    output = dict(per_type)
    output["object_rel_direction_accuracy"] = (
        sum(
            [
                output.pop("object_rel_direction_easy", 0.0),
                output.pop("object_rel_direction_medium", 0.0),
                output.pop("object_rel_direction_hard", 0.0),
            ]
        )
        / 3.0
    )
    output["overall"] = sum(list(output.values())) / len(output)
    return output

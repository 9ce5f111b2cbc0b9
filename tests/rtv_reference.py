"""RTV-Bench's official scoring, transcribed from ``LJungang/RTV-Bench`` for the tests.

Kept in the scripts' own shape (dicts of a results file, counters, percentages) so the tests
compare streamspatial with the code as written, not with a second copy of streamspatial:

* ``scripts/utils/prompt_utils.py`` ``extract_pred_letter``;
* ``scripts/infer/infer_model_rtv.py``: ``pred == answer``, ``"ERROR"`` on an exception;
* ``scripts/eval/compute_acc.py`` ``evaluate_file`` and the summary's macros;
* ``scripts/eval/compute_score.py`` ``evaluate_one_file``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any


def extract_pred_letter(text: str, options: dict[str, str]) -> str:
    if not text:
        return "Unknown"
    valid = set(k.upper() for k in options)
    m = re.search(r"\b([A-Z])\b", text.upper())
    if m and m.group(1) in valid:
        return m.group(1)
    m = re.search(r"(OPTION|ANSWER)\s*[:\-]?\s*([A-Z])", text.upper())
    if m and m.group(2) in valid:
        return m.group(2)
    c0 = text.strip()[:1].upper()
    if c0 in valid:
        return c0
    return "Unknown"


def results(rows: list[dict[str, Any]], replies: list[str | None]) -> list[dict[str, Any]]:
    """The results file ``infer_model_rtv.py`` writes: each sample with pred and correct."""
    out = []
    for row, reply in zip(rows, replies, strict=True):
        pred = "ERROR" if reply is None else extract_pred_letter(reply.strip(), row["options"])
        out.append({**row, "pred": pred, "correct": bool(pred == row.get("answer", ""))})
    return out


def _qtype(qid: Any) -> str:
    if not isinstance(qid, str):
        return "invalid_format"
    parts = qid.split("-")
    if len(parts) >= 5 and parts[-2] in ("0", "1", "2"):
        return parts[-2]
    if len(parts) >= 4 and parts[-1] in ("0", "1", "2"):
        return parts[-1]
    return "unknown"


def _dim(t: str) -> str | None:
    if "SR" in t or "FP" in t:
        return "Reasoning"
    if "IA" in t or "PU" in t or "GU" in t:
        return "Understanding"
    if "TP" in t or "VP" in t or "SP" in t:
        return "Perception"
    return None


def _main(t: str) -> str | None:
    for cat in ("Object", "Action", "Event"):
        if t.startswith(f"{cat}-"):
            return cat
    return None


def compute_acc(data: list[dict[str, Any]]) -> dict[str, float | None]:
    """Rates in percent, named as ``build_report_text`` prints them."""
    c: dict[str, list[int]] = defaultdict(lambda: [0, 0])

    def add(key: str, ok: bool) -> None:
        c[key][0] += int(ok)
        c[key][1] += 1

    for item in data:
        ok = bool(item["correct"])
        qt = _qtype(item["questionID"])
        if qt not in ("0", "1", "2"):
            continue
        add("Overall", ok)
        add(f"QType {qt}", ok)
        main = _main(item["type"])
        if main:
            add(main, ok)
        dim = _dim(item["type"])
        parts = item["type"].split("-")
        sub = parts[1] if len(parts) > 1 else None
        if dim and sub:
            add(dim, ok)
            add(f"{dim}/{sub}", ok)
    rate = {k: v[0] / v[1] * 100 for k, v in c.items() if v[1]}

    def macro(keys: tuple[str, ...]) -> float | None:
        vals = [rate[k] for k in keys if k in rate]
        return sum(vals) / len(vals) if vals else None

    rate["Main Macro Avg"] = macro(("Object", "Action", "Event"))
    rate["QType Macro Avg"] = macro(("QType 0", "QType 1", "QType 2"))
    rate["Dimension Macro Avg"] = macro(("Reasoning", "Understanding", "Perception"))
    return rate


GROUP_ID_RE = re.compile(r"^q-group-([a-z0-9]+)-([012])(?:-[^-]+)*$", re.IGNORECASE)


def compute_score(data: list[dict[str, Any]]) -> dict[str, Any]:
    """``evaluate_one_file``: totals and the per-type stats."""
    groups: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for item in data:
        m = GROUP_ID_RE.match(item["questionID"].strip())
        if not m:
            continue
        groups[m.group(1)][f"q{m.group(2)}"].append(dict(item, correct=bool(item["correct"])))
    total_score = total_q2 = 0
    type_stats: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for g in groups.values():
        q0 = all(x["correct"] for x in g["q0"]) if len(g["q0"]) > 0 else True
        q1 = all(x["correct"] for x in g["q1"]) if len(g["q1"]) > 0 else True
        if ("q2" not in g) or len(g["q2"]) == 0:
            continue
        full_type = g["q2"][0]["type"]
        score = sum(x["correct"] for x in g["q2"]) if (q0 and q1) else 0
        total_score += score
        total_q2 += len(g["q2"])
        type_stats[full_type][0] += score
        type_stats[full_type][1] += len(g["q2"])
    return {"total_score": total_score, "total_q2": total_q2, "type_stats": dict(type_stats)}

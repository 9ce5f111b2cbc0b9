"""RTV-Bench under both scorers: its answer reader, its accuracy table and its group score.

Official (``LJungang/RTV-Bench``):

* ``scripts/utils/prompt_utils.py`` ``extract_pred_letter``: on the upper-cased reply, the
  *first* standalone letter ``\\b[A-Z]\\b`` if it is an option (so "A man walks…" reads A,
  and "I think B" reads nothing there: its first standalone letter is "I"); else
  ``(OPTION|ANSWER)\\s*[:-]?\\s*<letter>``; else the reply's first character; else
  ``"Unknown"``, which is wrong.  A failed call is ``"ERROR"`` (``infer_model_rtv.py``), wrong.
  A question is right when the letter equals ``answer``.
* ``scripts/eval/compute_acc.py``: accuracy (micro) over the questions whose id has a
  question type 0–2, by main category (the ``Object-``/``Action-``/``Event-`` prefix of
  ``type``), by question type, by dimension (Reasoning/Understanding/Perception by
  *substring* of ``type``, each with its ``type.split("-")[1]`` detail), and the three macros
  (means of the categories that have data).
* ``scripts/eval/compute_score.py``: questions grouped by the id's group; a group's level-2
  questions earn credit only when every level-0 and level-1 question of the group is right
  (a missing level passes); a group without level-2 questions is skipped.  Its type is the
  type of its *first* level-2 question; the score is credit over level-2 questions, overall,
  by main category, dimension and sub-dimension (``TP`` … ``FP``).  Reported as "Group score",
  beside the accuracy, never mixed into it.

Paper: the reply's leading letter (:func:`~streamspatial.grading.extract.leading_letter`);
the same tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import Scorable, ScoredQuery, Table, _records
from streamspatial.grading.extract import leading_letter
from streamspatial.grading.verdict import Scored

from .reader import (
    DIM_CATEGORIES,
    MAIN_CATEGORIES,
    QTYPES,
    SUBDIM_CATEGORIES,
    RTVBenchAdapter,
    acc_subtype,
    dimension,
    main_category,
    subdimension,
)

UNKNOWN, ERROR = "Unknown", "ERROR"
GROUP_SCORE = "Group score"
_STANDALONE = re.compile(r"\b([A-Z])\b")
_PHRASE = re.compile(r"(OPTION|ANSWER)\s*[:\-]?\s*([A-Z])")


def rtv_letter(text: str | None, letters: str) -> str:
    """``extract_pred_letter(text, options)``: a letter of ``letters`` or ``"Unknown"``."""
    if not text:
        return UNKNOWN
    upper = text.upper()
    m = _STANDALONE.search(upper)
    if m and m.group(1) in letters:
        return m.group(1)
    m = _PHRASE.search(upper)
    if m and m.group(2) in letters:
        return m.group(2)
    first = text.strip()[:1].upper()
    return first if first and first in letters else UNKNOWN


def rtvbench_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    pred = ERROR if text is None else rtv_letter(text, item.letters)
    if pred in (UNKNOWN, ERROR):
        return Scored(None, 0.0, False, "rtv-official")
    return Scored(pred, 1.0 if pred == query.answer else 0.0, True, "rtv-official")


def rtvbench_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    letter = leading_letter(text, item.letters)
    if letter is None:
        return Scored(None, 0.0, False, "paper")
    return Scored(letter, 1.0 if letter == query.answer else 0.0, True, "paper")


# --- tables --------------------------------------------------------------------------------


def _right(r: ScoredQuery) -> bool:
    return bool(r.valid and r.score)


def _row(group: str, name: str, right: int, total: int) -> dict[str, Any]:
    return {"group": group, "name": name, "n": total, "correct": right,
            "score": right / total if total else None}  # fmt: skip


def _macro(rows: list[dict[str, Any]]) -> float | None:
    """``macro_avg``: the mean of the rates that exist."""
    vals = [r["score"] for r in rows if r["score"] is not None]
    return sum(vals) / len(vals) if vals else None


def _count(recs: list[ScoredQuery]) -> tuple[int, int]:
    return sum(1 for r in recs if _right(r)), len(recs)


def _row_number(r: ScoredQuery) -> int:
    tail = r.item_id.rpartition("#")[2]
    return int(tail) if tail.isdigit() else 0


def accuracy_rows(recs: list[ScoredQuery]) -> list[dict[str, Any]]:
    """``compute_acc.py`` ``evaluate_file`` and ``build_report_text``."""
    counted = sorted((r for r in recs if r.level in QTYPES), key=_row_number)  # file order
    rows = [_row("accuracy", "Overall", *_count(counted))]
    mains = [_row("accuracy", c, *_count([r for r in counted if main_category(r.task) == c]))
             for c in MAIN_CATEGORIES]  # fmt: skip
    rows += [*mains, {**_row("accuracy", "Main Macro Avg", 0, 0), "score": _macro(mains)}]
    qtypes = [_row("accuracy", f"QType {q}", *_count([r for r in counted if r.level == q]))
              for q in QTYPES]  # fmt: skip
    rows += [*qtypes, {**_row("accuracy", "QType Macro Avg", 0, 0), "score": _macro(qtypes)}]
    dims = []
    for dim in DIM_CATEGORIES:
        in_dim = [r for r in counted if dimension(r.task) == dim and acc_subtype(r.task)]
        dims.append(_row("accuracy", dim, *_count(in_dim)))
        rows.append(dims[-1])
        subs = dict.fromkeys(str(acc_subtype(r.task)) for r in in_dim)  # first-seen order
        for s in subs:
            picked = [r for r in in_dim if acc_subtype(r.task) == s]
            rows.append(_row("accuracy", f"{dim}/{s}", *_count(picked)))
    rows.append({**_row("accuracy", "Dimension Macro Avg", 0, 0), "score": _macro(dims)})
    for r in rows:
        if r["name"].endswith("Macro Avg"):
            r["n"] = r["correct"] = None
    return rows


def group_score_rows(recs: list[ScoredQuery]) -> list[dict[str, Any]]:
    """``compute_score.py`` ``evaluate_one_file``: credit over level-2 questions."""
    groups: dict[str, dict[str, list[ScoredQuery]]] = {}
    for r in sorted(recs, key=_row_number):
        if not r.subcategory or "-" not in r.subcategory:
            continue  # compute_score logs "Invalid group questionID" and skips it
        gid, _, qtype = r.subcategory.rpartition("-")
        groups.setdefault(gid, {"0": [], "1": [], "2": []})[qtype].append(r)
    by_type: dict[str, list[int]] = {}
    for g in groups.values():
        if not g["2"]:
            continue  # "Group … missing q2"
        basic = all(_right(r) for r in g["0"]) and all(_right(r) for r in g["1"])
        credit = sum(1 for r in g["2"] if _right(r)) if basic else 0
        tally = by_type.setdefault(g["2"][0].task, [0, 0])
        tally[0] += credit
        tally[1] += len(g["2"])

    def total(keep: Any) -> tuple[int, int]:
        picked = [v for t, v in by_type.items() if keep(t)]
        return sum(v[0] for v in picked), sum(v[1] for v in picked)

    rows = [_row("group score", GROUP_SCORE, *total(lambda t: True))]
    rows += [_row("group score", f"{GROUP_SCORE}: {c}",
                  *total(lambda t, c=c: (main_category(t) or "Unknown") == c))
             for c in (*MAIN_CATEGORIES, "Unknown") if c != "Unknown"
             or any(main_category(t) is None for t in by_type)]  # fmt: skip
    rows += [_row("group score", f"{GROUP_SCORE}: {d}",
                  *total(lambda t, d=d: (dimension(t) or "Unknown") == d))
             for d in (*DIM_CATEGORIES, "Unknown") if d != "Unknown"
             or any(dimension(t) is None for t in by_type)]  # fmt: skip
    for s in SUBDIM_CATEGORIES:
        rows.append(
            _row("group score", f"{GROUP_SCORE}: {s}", *total(lambda t, s=s: subdimension(t) == s))
        )
    return rows


def rtvbench_table(records: Iterable[Scorable]) -> Table:
    """Accuracy as ``compute_acc.py`` prints it, then the group score of ``compute_score.py``."""
    recs = _records(records)
    official = any(r.rule not in (None, "paper") for r in recs)
    rows = accuracy_rows(recs) + group_score_rows(recs)
    left_out = sum(1 for r in recs if r.level not in QTYPES)
    notes = [
        f"{'official' if official else 'paper'} reading; accuracy micro over questions with a "
        "question type 0–2 in their id, macros over the categories with data; "
        f"{GROUP_SCORE}: level-2 credit only when every level-0 and level-1 question of its "
        "group is right"
    ]
    if left_out:
        notes.append(f"{left_out} question(s) without a question type 0–2 in their id left out "
                     "(compute_acc.py: invalid_qtype)")  # fmt: skip
    return Table(RTVBenchAdapter.title, ("group", "name", "n", "correct", "score"),
                 tuple(rows), tuple(notes))  # fmt: skip


HEADLINE = ("Overall", "Main Macro Avg", "QType Macro Avg", "Dimension Macro Avg", GROUP_SCORE)


def rtvbench_headline(table: Table) -> dict[str, float | None]:
    return {str(r["name"]): r["score"] for r in table.rows if r["name"] in HEADLINE}


__all__ = [
    "GROUP_SCORE",
    "HEADLINE",
    "accuracy_rows",
    "group_score_rows",
    "rtv_letter",
    "rtvbench_headline",
    "rtvbench_official",
    "rtvbench_paper",
    "rtvbench_table",
]

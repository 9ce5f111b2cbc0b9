"""Prediction files of other harnesses, written from their documented layouts (never copied).

* OVO-Bench ``inference.py``: ``results/<Model>/<Model>_<TASKS>_offline.json``, one object
  ``{"backward": [...], "realtime": [...], "forward": [...]}``; a backward / real-time record is
  ``{id, video, task, question, response, ground_truth}`` (the letter ``chr(65 + gt)``), a
  forward record the release's with a ``response`` on every ``test_info`` probe.
* lmms-eval ``EvaluationTracker.save_results_samples``: ``<output>/<model>/<date>_samples_<task>
  .jsonl``, one line per document: ``doc_id``, ``target`` (``str``), ``filtered_resps``,
  ``doc_hash`` / ``prompt_hash`` / ``target_hash``, ``input`` and the task's metrics (its
  ``process_results``); ``resps`` only where it differs from ``filtered_resps``.  Older
  versions keep ``doc`` and ``arguments`` too (``old_layout``).
* VLMEvalKit ``run.py``: ``<model>_<dataset>.xlsx`` (or ``.tsv``): the dataset's TSV columns
  plus ``prediction``.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any


def ovo_results(rows: list[dict[str, Any]], reply: Any) -> dict[str, list[dict[str, Any]]]:
    """``inference.py``'s results for the release ``rows``; ``reply(row, probe)`` is the
    model's text (``probe`` None for a backward / real-time item)."""
    modes = {"backward": ("EPM", "ASI", "HLD"), "forward": ("REC", "SSR", "CRR")}
    out: dict[str, list[dict[str, Any]]] = {"backward": [], "realtime": [], "forward": []}
    for row in rows:
        mode = next((m for m, tasks in modes.items() if row["task"] in tasks), "realtime")
        if mode == "forward":
            info = [{**p, "response": reply(row, p)} for p in row["test_info"]]
            out[mode].append({**row, "test_info": info})
            continue
        out[mode].append(
            {
                "id": row["id"],
                "video": f"data/src_videos/{row['video']}",
                "task": row["task"],
                "question": row["question"],
                "response": reply(row, None),
                "ground_truth": chr(65 + row["gt"]),
            }
        )
    return out


def write_ovo_results(folder: Path, model: str, results: dict[str, list]) -> Path:
    """One file per mode, named as the repository names them."""
    folder.mkdir(parents=True, exist_ok=True)
    for mode, records in results.items():
        part = {m: (records if m == mode else []) for m in results}
        tasks = "_".join(sorted({r["task"] for r in records})) or mode
        (folder / f"{model}_{tasks}_offline.json").write_text(json.dumps(part, indent=4))
    return folder


def _hash(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def lmms_sample(
    doc_id: int,
    doc: dict[str, Any],
    reply: Any,
    target: Any,
    metrics: dict[str, Any],
    *,
    old_layout: bool = False,
) -> dict[str, Any]:
    """One line of ``samples_<task>.jsonl``."""
    line: dict[str, Any] = {
        "doc_id": doc_id,
        "target": str(target),
        "filtered_resps": [reply],
        "doc_hash": _hash(doc),
        "prompt_hash": _hash(doc_id),
        "target_hash": _hash(str(target)),
        "input": "These are frames of a video.",
        **metrics,
    }
    if old_layout:
        line.update(doc=doc, arguments=[["These are frames of a video."]], resps=[[reply]])
    return line


def write_lmms_samples(folder: Path, task: str, lines: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"20250101_120000_samples_{task}.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def write_vlmevalkit(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    """A prediction sheet: ``.xlsx`` through openpyxl, ``.tsv`` as pandas' ``to_csv(sep='\\t')``
    writes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".tsv":
        with path.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t")
            writer.writerow(header)
            writer.writerows(rows)
        return path
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def run_cli(capsys: Any, *args: object) -> tuple[int, str, str]:
    """``streamspatial ARGS`` in this process: exit status, stdout, stderr."""
    from streamspatial.cli import main

    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err

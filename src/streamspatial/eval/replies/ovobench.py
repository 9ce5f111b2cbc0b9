"""OVO-Bench's released predictions: ``results/<Model>/*.json`` (JoeLeelyf/OVO-Bench).

Each file is one object ``{"backward": [...], "realtime": [...], "forward": [...]}`` as
``inference.py`` writes it and ``score.py`` reads every file of the model's folder:

* backward and real-time records ``{id, task, question, response, ground_truth, …}`` —
  ``ground_truth`` the correct letter the record was scored against;
* forward records: the release record with a ``response`` on each ``test_info`` probe, matched
  to its probe item by ``realtime`` (``REC`` ``count``, ``SSR``/``CRR`` ``type`` are the
  stored ground truth).

``response`` may be ``null`` (a failed call; the official scorer counts it wrong).  The model
is the folder's name (``results/Gemini`` → ``Gemini``).  :func:`ovobench_replies` reads one
such record, also for lmms-eval's OVO-Bench tasks, whose metrics hold the same records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamspatial.core.errors import Problem

from .types import Release, Reply, ReplySource

MODES = ("backward", "realtime", "forward")


class OVOBenchResults(ReplySource):
    name = "ovobench"
    title = "OVO-Bench results/<Model>/*.json"

    def sniff(self, path: Path) -> bool:
        if path.suffix.lower() != ".json":
            return False
        head = path.read_bytes()[:4096].lstrip()
        return head.startswith(b"{") and any(f'"{m}"'.encode() in head for m in MODES)

    def read(self, path: Path, release: Release, problems: list[Problem]) -> Iterator[Reply]:
        file = str(path)
        try:
            data = json.loads(path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(Problem(file, "", f"not valid JSON ({exc})"))
            return
        if not isinstance(data, dict) or not any(m in data for m in MODES):
            problems.append(
                Problem(file, "", "expected an object with backward, realtime, forward")
            )
            return
        for mode in MODES:
            records = data.get(mode, [])
            if not isinstance(records, list):
                problems.append(Problem(file, mode, "expected a list of records"))
                continue
            for n, rec in enumerate(records):
                yield from ovobench_replies(rec, file, f"{mode}[{n}]", problems)

    def model_name(self, path: Path) -> str | None:
        return path.parent.name or None


def ovobench_replies(
    rec: Any, file: str, location: str, problems: list[Problem]
) -> Iterator[Reply]:
    """The replies of one OVO-Bench prediction record (one, or one per forward probe)."""
    if not isinstance(rec, dict):
        problems.append(Problem(file, "", "expected a record object", location=location))
        return
    raw_id = rec.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, int | str) or raw_id == "":
        problems.append(
            Problem(file, "id", f"expected the release's id, got {raw_id!r}", location=location)
        )
        return
    record = str(raw_id)
    if "test_info" in rec:
        yield from _forward(rec, record, file, location, problems)
        return
    text = _response(rec, file, location, problems, record)
    if text is False:
        return
    truth = rec.get("ground_truth")
    question = rec.get("question")
    yield Reply(
        file,
        location,
        text,
        record=record,
        truth=truth if isinstance(truth, str) else None,
        question=question if isinstance(question, str) else None,
    )


def _forward(
    rec: dict[str, Any], record: str, file: str, location: str, problems: list[Problem]
) -> Iterator[Reply]:
    probes = rec["test_info"]
    if not isinstance(probes, list):
        problems.append(
            Problem(
                file, "test_info", "expected a list of probes", item_id=record, location=location
            )
        )
        return
    task = rec.get("task")
    for i, probe in enumerate(probes):
        where = f"{location}.test_info[{i}]"
        if not isinstance(probe, dict):
            problems.append(
                Problem(file, "", "expected a probe object", item_id=record, location=where)
            )
            continue
        t = probe.get("realtime")
        if isinstance(t, bool) or not isinstance(t, int | float):
            problems.append(
                Problem(
                    file,
                    "realtime",
                    f"expected the probe's time, got {t!r}",
                    item_id=record,
                    location=where,
                )
            )
            continue
        text = _response(probe, file, where, problems, record)
        if text is False:
            continue
        if task == "REC":
            truth: str | float | None = _number(probe.get("count"))
        else:
            kind = probe.get("type")
            truth = {1: "A", 0: "B"}.get(kind) if not isinstance(kind, bool) else None
        question = rec.get("question") if task == "CRR" else probe.get("step")
        yield Reply(
            file,
            where,
            text,
            record=record,
            t_q=float(t),
            time_field="realtime",
            truth=truth,
            question=question if isinstance(question, str) else None,
        )


def _response(
    rec: dict[str, Any], file: str, location: str, problems: list[Problem], record: str
) -> str | bool | None:
    """The record's ``response`` (None for ``null``); False, with a problem, when it has none
    or it is not text."""
    if "response" not in rec:
        problems.append(
            Problem(
                file,
                "response",
                "expected the model's response (or null)",
                item_id=record,
                location=location,
            )
        )
        return False
    text = rec["response"]
    if text is not None and not isinstance(text, str):
        problems.append(
            Problem(
                file,
                "response",
                f"expected text or null, got {text!r}",
                item_id=record,
                location=location,
            )
        )
        return False
    return text


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


__all__ = ["OVOBenchResults", "ovobench_replies"]

"""S3-Bench: our JSONL for its 16 task types and 3 multi-turn chains.

S3-Bench is unreleased, so this module *defines* its file format (documented in
``docs/benchmarks.md``); the simulator writes it with :func:`.export.write_s3_jsonl`.  One
JSON object per line, validated by :class:`S3Line`:

``id, video, task, format ("num" | "mc"), question, options (mc only: a list of option texts,
lettered A, B, … in order), query_time, answer (a number, or a letter for mc), evidence
([[start, end], …], starting by query_time), depends_on, intent, explorable, source``.

A multi-turn chain (App. 3.2) links a second turn to its first with ``depends_on``: the *model's*
answer to the earlier turn replaces the ``{prev_answer}`` placeholder in the later question,
never the ground truth.  The earlier turn must come earlier in the file, on the same video, at
an earlier query time.  Numeric answers are scored with MRA.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

from .. import prompts
from .._files import read_jsonl
from .._items import IdRegistry, build_item, evidence_before
from .._rows import Row
from ..base import BenchmarkAdapter, LoadResult, PromptOptions, ScoringSpec, papers_protocol
from ..tasks import S3_GENERATED_TASKS, S3_TASKS

PREV_ANSWER = "{prev_answer}"

# App. 3.2: the second turn of each chain and the task its first turn must be.
CHAINS: dict[str, str] = {
    "tem_horizontal_direction": "sequence_identification",  # chronological dependency
    "tem_spatial_distance_ref": "identification_closest",  # spatial superlative dependency
    "tem_cam_obj_distance_ref": "camera_motion_target",  # camera motion dependency
}


class S3Line(BaseModel):
    """One line of an S3-Bench JSONL file."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1)
    video: str = Field(min_length=1)
    task: str
    format: Literal["num", "mc"]
    question: str = Field(min_length=1)
    options: list[str] | None = None
    query_time: float = Field(ge=0)
    answer: float | int | str
    evidence: list[tuple[float, float]] = Field(default_factory=list)
    depends_on: str | None = None
    intent: dict[str, Any] | None = None
    explorable: bool = False
    source: str | None = None  # where the video comes from (e.g. the simulator)

    @field_validator("task")
    @classmethod
    def _known_task(cls, v: str) -> str:
        if v not in S3_TASKS and v not in S3_GENERATED_TASKS:
            raise ValueError(f"expected one of the 16 S3-Bench tasks, got {v!r}")
        return v

    @field_validator("query_time", mode="before")
    @classmethod
    def _finite(cls, v: Any) -> Any:
        if isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("expected a finite time in seconds")
        return v

    @field_validator("evidence", mode="before")
    @classmethod
    def _pairs(cls, v: Any) -> Any:
        if isinstance(v, list):
            return [
                tuple(float(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in e)
                if isinstance(e, list)
                else e
                for e in v
            ]
        return v


class S3Adapter(BenchmarkAdapter):
    title = "S3-Bench"
    short_title = "S3"
    scoring = ScoringSpec()
    generation = papers_protocol("S3-Bench publishes no decoding setting")

    keys_all = frozenset({"task", "format", "query_time", "answer", "video"})

    def load(self, path: Path) -> LoadResult:
        result = LoadResult()
        ids = IdRegistry()
        earlier: dict[str, Item] = {}
        for loc, rec in read_jsonl(path, result.problems):
            row = Row(rec, str(path), loc, result.problems)
            item = _item(row, ids, earlier)
            if result.add(item, loc):
                earlier[item.id] = item
        return result

    def render_prompt(self, item: Item, query: QueryPoint, options: PromptOptions) -> str:
        # S3-Bench publishes no evaluation code: both scorers send the same words.
        question = item.question
        if item.depends_on is not None:
            if options.prior_answers is None or item.depends_on not in options.prior_answers:
                raise StreamspatialError(
                    f"item {item.id}: its prompt needs the model's answer to item "
                    f"{item.depends_on}, which was not given (run the earlier turn first)"
                )
            question = question.replace(PREV_ANSWER, str(options.prior_answers[item.depends_on]))
        return prompts.s3_prompt(
            question,
            item.options,
            query.time,
            numeric=item.answer_type is AnswerType.NUMBER,
            cot=options.cot,
            text_only=options.text_only,
        )

    def system_prompt(self, item: Item) -> str | None:
        return prompts.S3_SYSTEM_PROMPT


# What a missing required field should have held, for the one-line problem report.
_REQUIRED = {
    "id": "a string",
    "video": "a video path (relative to --videos)",
    "task": "one of the 16 S3-Bench tasks",
    "format": "'num' or 'mc'",
    "question": "a string",
    "query_time": "a time in seconds",
    "answer": "a number (format num) or an option letter (format mc)",
}


def _item(row: Row, ids: IdRegistry, earlier: dict[str, Item]) -> Item | None:
    raw_id = row.data.get("id")
    row.item_id = str(raw_id) if isinstance(raw_id, str | int) else None
    try:
        line = S3Line.model_validate(row.data)
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(line)"
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = f"missing; expected {_REQUIRED.get(where, 'a value')}"
            elif err["type"] == "extra_forbidden":
                msg = "unknown field"
            got = err.get("input")
            if err["type"] not in ("missing", "extra_forbidden", "value_error") and not isinstance(
                got, dict
            ):
                msg += f", got {json.dumps(got, default=str)[:40]}"
            row.problem(where, msg)
        return None
    ids.check(row, "id", line.id)
    domain, fmt = S3_TASKS.get(line.task) or S3_GENERATED_TASKS[line.task]
    if line.format != fmt:
        row.problem(
            "format",
            f"expected {fmt!r} for task {line.task} (S3-Bench, Table 1), got {line.format!r}",
        )
    options: tuple[Option, ...] = ()
    answer: float | str | None = None
    if line.format == "mc":
        if not line.options or not 2 <= len(line.options) <= len(LETTERS):
            row.problem(
                "options",
                f"expected 2–{len(LETTERS)} options for a multiple-choice "
                f"task, got {len(line.options or [])}",
            )
        else:
            options = tuple(Option(letter=LETTERS[i], text=t) for i, t in enumerate(line.options))
            letters = LETTERS[: len(options)]
            if not isinstance(line.answer, str) or line.answer not in letters:
                row.problem(
                    "answer", f"expected a letter among the options {letters}, got {line.answer!r}"
                )
            else:
                answer = line.answer
    else:
        if line.options:
            row.problem("options", "expected no options for a numeric task")
        if isinstance(line.answer, str) or not math.isfinite(line.answer):
            row.problem("answer", f"expected a number, got {line.answer!r}")
        else:
            answer = float(line.answer)
    for i, (s, e) in enumerate(line.evidence):
        if not (math.isfinite(s) and math.isfinite(e)) or s < 0 or e < s:
            row.problem(
                f"evidence[{i}]", f"expected [start, end] with 0 ≤ start ≤ end, got [{s}, {e}]"
            )
    evidence_before(row, "evidence", list(line.evidence), line.query_time)
    _check_chain(row, line, earlier)
    if not row.ok:
        return None
    return build_item(
        row,
        benchmark="s3",
        id=line.id,
        video=line.video,
        question=line.question,
        answer_type=AnswerType.NUMBER if line.format == "num" else AnswerType.CHOICE,
        options=options,
        queries=(
            QueryPoint(index=0, time=line.query_time, answer=answer, evidence=tuple(line.evidence)),
        ),
        task=TaskLabels(
            category=domain, subcategory="Num" if fmt == "num" else "MC", task=line.task
        ),
        source=line.source,
        depends_on=line.depends_on,
        intent=line.intent,
        explorable=line.explorable,
    )


def _check_chain(row: Row, line: S3Line, earlier: dict[str, Item]) -> None:
    has_slot = PREV_ANSWER in line.question
    if line.depends_on is None:
        if line.task in CHAINS:
            row.problem(
                "depends_on",
                f"expected the id of the earlier {CHAINS[line.task]} turn "
                f"this {line.task} question refers to",
            )
        if has_slot:
            row.problem("question", f"{PREV_ANSWER} is only allowed with depends_on")
        return
    first = earlier.get(line.depends_on)
    if first is None:
        row.problem("depends_on", f"expected the id of an earlier line, got {line.depends_on!r}")
        return
    if not has_slot:
        row.problem(
            "question",
            f"expected the placeholder {PREV_ANSWER} where the earlier turn's answer goes",
        )
    if first.video != line.video:
        row.problem(
            "depends_on",
            f"expected a turn on the same video {line.video!r}, got one on {first.video!r}",
        )
    if first.queries[0].time > line.query_time:
        row.problem(
            "depends_on",
            f"expected the earlier turn to be asked no later than "
            f"{line.query_time:g} s, got {first.queries[0].time:g} s",
        )
    want = CHAINS.get(line.task)
    if want is not None and first.task.task != want:
        row.problem(
            "depends_on", f"expected a {want} turn before {line.task}, got {first.task.task}"
        )


__all__ = ["CHAINS", "PREV_ANSWER", "S3Adapter", "S3Line"]

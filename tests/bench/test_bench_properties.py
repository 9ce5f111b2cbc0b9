"""Invariants: loaders never raise on any bytes; writers round-trip through readers."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamspatial.bench.ovos import OvosAdapter, write_ovos_jsonl
from streamspatial.bench.registry import ADAPTERS
from streamspatial.bench.s3 import S3Adapter, write_s3_jsonl
from streamspatial.bench.tasks import S3_TASKS as TASKS
from streamspatial.bench.vcbench.export import write_vcbench_jsonl
from streamspatial.bench.vcbench.reader import SUBCATEGORIES, VCBenchAdapter
from streamspatial.core.schema import LETTERS, AnswerType, Item, Option, QueryPoint, TaskLabels

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20).filter(
    lambda s: s.strip() == s and s != "" and "{prev_answer}" not in s
)
# Generated items carry a structured intent; the writers keep it, the readers read it back.
intents = st.none() | st.builds(
    lambda task, ids: {"task": task, "instances": ids, "params": {"k": 1.5}},
    st.sampled_from(["count", "absolute_distance"]),
    st.lists(st.integers(0, 99), max_size=3),
)
# Option text that is itself a data:image URL would (rightly) read back as an image.
option_text = text.filter(lambda s: not s.lower().startswith("data:"))
times = st.floats(min_value=0.5, max_value=500, allow_nan=False).map(lambda t: round(t, 2))


@SETTINGS
@given(blob=st.binary(max_size=300), suffix=st.sampled_from([".jsonl", ".json"]))
def test_loaders_never_raise_on_any_bytes(blob, suffix):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"f{suffix}"
        path.write_bytes(blob)
        for adapter in ADAPTERS.values():
            if adapter.name == "vsibench":
                continue  # parquet only
            result = adapter.load(path)
            assert all(p.file == str(path) for p in result.problems)
            assert result.problems or all(i.benchmark == adapter.name for i in result.items)


@st.composite
def ovos_items(draw):
    n_opts = draw(st.integers(2, 7))
    options = tuple(Option(letter=LETTERS[i], text=draw(option_text)) for i in range(n_opts))
    qtimes = draw(st.lists(times, min_size=1, max_size=4))
    queries = []
    for i, t in enumerate(qtimes):
        start = draw(st.floats(0, t / 2, allow_nan=False).map(lambda x: round(x, 2)))
        spans = ((start, round(t / 2, 2)),) if start < t / 2 and t / 2 < t else ()
        queries.append(
            QueryPoint(
                index=i, time=t, answer=draw(st.sampled_from(LETTERS[:n_opts])), evidence=spans
            )
        )
    level = draw(st.integers(1, 4))
    return Item(
        benchmark="ovos",
        id=str(draw(st.integers(0, 10**6))),
        video=f"src/{draw(text)}.mp4",
        question=draw(text),
        answer_type=AnswerType.CHOICE,
        options=options,
        queries=tuple(queries),
        task=TaskLabels(
            level=f"L{level}", category=f"{level}.1", subcategory=f"{level}.1.2", task=draw(text)
        ),
        source="src",
        meta={"video_id": "v", "category_index": f"{level}.1.2_0"},
        intent=draw(intents),
    )


@SETTINGS
@given(items=st.lists(ovos_items(), max_size=4, unique_by=lambda i: i.id))
def test_ovos_writer_round_trip(items):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "o.jsonl"
        write_ovos_jsonl(items, path)
        result = OvosAdapter().load(path)
    assert result.problems == []
    assert result.items == items


@st.composite
def s3_items(draw):
    task = draw(st.sampled_from([t for t in TASKS if not t.startswith("tem_")]))
    domain, fmt = TASKS[task]
    t = draw(times)
    if fmt == "mc":
        n = draw(st.integers(2, 7))
        options = tuple(Option(letter=LETTERS[i], text=draw(text)) for i in range(n))
        answer: str | float = draw(st.sampled_from(LETTERS[:n]))
    else:
        options = ()
        answer = draw(st.floats(0, 1000, allow_nan=False))
    return Item(
        benchmark="s3",
        id=draw(text),
        video="h/traj.mp4",
        question=draw(text),
        answer_type=AnswerType.NUMBER if fmt == "num" else AnswerType.CHOICE,
        options=options,
        queries=(QueryPoint(index=0, time=t, answer=answer, evidence=((0.0, t / 4),)),),
        task=TaskLabels(category=domain, subcategory="Num" if fmt == "num" else "MC", task=task),
        intent={"task": task, "instances": [draw(text)]},
        explorable=draw(st.booleans()),
        source=draw(st.none() | st.just("streamspatial-sim")),
    )


@SETTINGS
@given(items=st.lists(s3_items(), max_size=4, unique_by=lambda i: i.id))
def test_s3_writer_round_trip(items):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        write_s3_jsonl(items, path)
        result = S3Adapter().load(path)
    assert result.problems == []
    assert result.items == items


@st.composite
def vcbench_items(draw):
    ctype = draw(st.sampled_from(["O2", "E1", "E2"]))
    sub = draw(st.sampled_from([s for s in SUBCATEGORIES[ctype] if s != "O2-Gain"]))
    events = sorted(set(draw(st.lists(times, min_size=1, max_size=6))))
    qtimes = sorted(set(draw(st.lists(times, min_size=1, max_size=4))))
    queries = tuple(
        QueryPoint(
            index=i,
            time=t,
            answer=float(sum(e < t for e in events)),
            evidence=tuple((e, e) for e in events if e < t),
        )
        for i, t in enumerate(qtimes)
    )
    return Item(
        benchmark="vcbench",
        id=f"{draw(st.integers(0, 9999)):04d}",
        video="youtube/v.mp4",
        question=draw(text),
        answer_type=AnswerType.NUMBER,
        queries=queries,
        task=TaskLabels(category=ctype, subcategory=sub, task=sub),
        source="youtube",
        meta={"video_path": "v.mp4", "occurrence_times": events},
        intent=draw(intents),
    )


@SETTINGS
@given(items=st.lists(vcbench_items(), max_size=4, unique_by=lambda i: i.id))
def test_vcbench_writer_round_trip(items):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "v.jsonl"
        write_vcbench_jsonl(items, path)
        result = VCBenchAdapter().load(path)
    assert result.problems == []
    assert result.items == items

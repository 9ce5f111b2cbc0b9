"""Per-paper tables on small hand-made records, with the expected numbers worked by hand."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.bench.ovos.score import ovos_table
from streamspatial.bench.s3.score import s3_table
from streamspatial.bench.ucs.score import ucs_table
from streamspatial.bench.vcbench.score import (
    VCBENCH_SUBCATEGORIES,
    vcbench_subcategory,
    vcbench_table,
    vcbench_trajectories,
)
from streamspatial.bench.vsibench.score import vsibench_table
from streamspatial.core.errors import InputError
from streamspatial.grading.aggregate import ScoredQuery, per_source_table
from streamspatial.scoring.tables import paper_table


def q(item: str, index: int = 0, *, score: float | None = 1.0, valid: bool = True,
      **labels: object) -> ScoredQuery:  # fmt: skip
    labels.setdefault("task", "t")
    return ScoredQuery(item_id=item, query_index=index, score=score, valid=valid, **labels)


# --- OVO-S-Bench ----------------------------------------------------------------------------


def ovos_records() -> list[ScoredQuery]:
    return [
        q("a", level="L1", category="1.1", score=1.0),
        q("b", level="L1", category="1.1", score=0.0),
        q("c", level="L1", category="1.2", score=None, valid=False),
        q("d", level="L2", category="2.1", score=1.0),
        q("e", 0, level="L2", category="2.1", score=1.0),  # revisit counting: 2 query points
        q("e", 1, level="L2", category="2.1", score=0.0),
    ]


def test_ovos_levels_and_overall_are_unweighted_means() -> None:
    table = ovos_table(ovos_records())
    assert table.row(level="L1", group="1.1")["accuracy"] == 0.5
    assert table.row(level="L1", group="1.2") == {
        "level": "L1", "group": "1.2", "n": 1, "invalid": 1, "accuracy": 0.0}  # fmt: skip
    assert table.row(level="L1", group="Avg.")["accuracy"] == 0.25  # (0.5 + 0) / 2
    assert table.row(level="L2", group="Avg.")["accuracy"] == pytest.approx(2 / 3)
    overall = table.row(level="Overall")
    assert overall["accuracy"] == pytest.approx((0.25 + 2 / 3) / 2)
    assert (overall["n"], overall["invalid"]) == (6, 1)
    assert [r["group"] for r in table.rows] == ["1.1", "1.2", "Avg.", "2.1", "Avg.", ""]


def test_ovos_reproduces_published_random_row() -> None:
    # Table 2, Random baseline: per-category accuracies → level Avg. → Overall 31.33.
    published = {"1.1": 33.93, "1.2": 25.49, "1.3": 30.00, "2.1": 37.44, "2.2": 26.77,
                 "2.3": 41.08, "3.1": 50.00, "3.2": 25.00, "3.3": 25.00, "4.1": 25.00,
                 "4.2": 31.25, "4.3": 25.00}  # fmt: skip
    records = [q(f"{cat}", level=f"L{cat[0]}", category=cat, score=acc / 100)
               for cat, acc in published.items()]  # fmt: skip
    table = ovos_table(records)
    assert round(100 * table.row(level="L1", group="Avg.")["accuracy"], 2) == 29.81
    assert round(100 * table.row(level="Overall")["accuracy"], 2) == 31.33


def test_ovos_exclude_policy_drops_invalid_from_denominator() -> None:
    table = ovos_table(ovos_records(), invalid="exclude")
    assert table.row(level="L1", group="1.2")["accuracy"] is None
    assert table.row(level="L1", group="Avg.")["accuracy"] == 0.5


def test_ovos_natural_order_of_categories() -> None:
    table = ovos_table([q("x", level="L1", category="1.10"), q("y", level="L1", category="1.2")])
    assert [r["group"] for r in table.rows[:2]] == ["1.2", "1.10"]


# --- VCBench --------------------------------------------------------------------------------


def vc(item: str, sub: str, points: list[tuple[float | None, float]]) -> list[ScoredQuery]:
    return [
        ScoredQuery(item_id=item, query_index=i, task="count", subcategory=sub,
                    answer_type="number", prediction=p, answer=g, valid=p is not None,
                    score=None)
        for i, (p, g) in enumerate(points)
    ]  # fmt: skip


def vcbench_records() -> list[ScoredQuery]:
    return [
        *vc("q1", "O2-Unique", [(1, 1), (2, 2), (2, 3)]),
        *reversed(vc("q2", "o2_unique", [(2, 1), (None, 1), (1, 2)])),  # order must not matter
        *vc("q3", "O1-Delta", [(4, 4)]),
    ]


def test_vcbench_trajectories_are_ordered_by_query_index() -> None:
    trajs = {t.item_id: t for t in vcbench_trajectories(vcbench_records())}
    assert trajs["q2"].preds == (2.0, None, 1.0)
    assert trajs["q2"].gts == (1.0, 1.0, 2.0)
    assert trajs["q2"].subcategory == "O2-Unique"


def test_vcbench_table_by_hand() -> None:
    table = vcbench_table(vcbench_records())
    tiny = math.exp(-1 / (2 * 0.15**2))  # q1, third point: 2 for 3, σ = 0.15
    q1_gpa = (1 + 1 + tiny) / 3
    q2_gpa = (math.exp(-1 / (2 * 0.05**2)) + math.exp(-1 / (2 * 0.1**2))) / 2
    unique = table.row(subcategory="O2-Unique")
    assert unique["questions"] == 2
    assert unique["query_points"] == 6
    assert unique["invalid_rate"] == pytest.approx(1 / 6)
    assert unique["gpa"] == pytest.approx((q1_gpa + q2_gpa) / 2)
    assert unique["moc"] == pytest.approx((1.0 + 0.0) / 2)  # q2 valid: [2, 1] regresses
    assert unique["uda"] == pytest.approx((0.5 + 0.0) / 2)
    delta = table.row(subcategory="O1-Delta")
    assert (delta["gpa"], delta["moc"], delta["uda"]) == (1.0, None, None)
    overall = table.row(subcategory="Overall")
    assert overall["gpa"] == pytest.approx((q1_gpa + q2_gpa + 1.0) / 3)  # question-weighted
    assert overall["moc"] == pytest.approx(0.5)
    assert overall["uda"] == pytest.approx(0.25)
    assert overall["invalid_rate"] == pytest.approx(1 / 7)
    assert table.rows[0]["subcategory"] == "Overall"


VCBENCH_QUESTIONS = (81, 98, 289, 78, 203, 48, 147, 56)  # Table 1, in VCBENCH_SUBCATEGORIES order


@pytest.mark.parametrize(
    ("subcategory_gpa", "overall"),
    [
        ((44.3, 41.0, 36.5, 55.3, 28.5, 49.8, 41.7, 3.9), 37.0),  # Gemini-3-Flash
        ((43.4, 53.3, 32.5, 69.2, 24.0, 38.2, 40.5, 0.8), 36.2),  # Doubao-Seed-1.8
        ((15.7, 19.4, 15.8, 50.0, 13.1, 23.6, 21.9, 0.0), 18.7),  # GPT-4-Turbo (blind)
    ],
)
def test_vcbench_overall_matches_published_question_weighting(
    subcategory_gpa: tuple[float, ...], overall: float
) -> None:
    # Tables 2–3: Overall GPA is the subcategory GPAs weighted by Table 1's question counts.
    # Build one-point questions (truth 100) whose GPA is exactly the published value.
    records = []
    for sub, n, value in zip(VCBENCH_SUBCATEGORIES, VCBENCH_QUESTIONS, subcategory_gpa,
                             strict=True):  # fmt: skip
        p = 100 + math.sqrt(-50 * math.log(value / 100)) if value > 0 else 1e9
        records += [r for i in range(n) for r in vc(f"{sub}{i}", sub, [(p, 100)])]
    table = vcbench_table(records)
    assert table.row(subcategory="O2-Unique")["gpa"] == pytest.approx(subcategory_gpa[2] / 100)
    assert round(100 * table.row(subcategory="Overall")["gpa"], 1) == overall


def test_vcbench_subcategory_spellings() -> None:
    assert vcbench_subcategory("E2-Periodic") == "E2-Periodic"
    assert vcbench_subcategory("e2_periodic") == "E2-Periodic"
    assert vcbench_subcategory("Snap") == "O1-Snap"
    assert vcbench_subcategory("nothing") is None


def test_vcbench_unknown_subcategory_gets_gpa_only() -> None:
    table = vcbench_table(vc("z", "custom", [(1, 1), (2, 2)]))
    assert table.row(subcategory="custom")["moc"] is None
    assert table.row(subcategory="custom")["gpa"] == 1.0


def test_vcbench_missing_answer_is_an_input_error() -> None:
    bad = [ScoredQuery(item_id="q9", query_index=0, task="count", subcategory="O1-Snap",
                       prediction=3, answer=None)]  # fmt: skip
    with pytest.raises(InputError, match=r"item q9.*field 'answer'"):
        vcbench_table(bad)


# --- UCS-Bench, S3-Bench, VSI-Bench ---------------------------------------------------------


def test_ucs_pools_query_points() -> None:
    records = [
        q("1", category="Trajectory", subcategory="My Traj.", score=1.0),
        q("2", category="Trajectory", subcategory="My Traj.", score=1.0),
        q("3", category="Trajectory", subcategory="Obj. Traj.", score=0.0),
        q("4", category="Proximity", subcategory="Distance", score=1.0),
        q("5", category="Proximity", subcategory="Distance", score=None, valid=False),
    ]
    table = ucs_table(records)
    assert table.row(category="Trajectory", subcategory="Overall")["accuracy"] == 2 / 3
    assert table.row(category="Trajectory", subcategory="My Traj.")["accuracy"] == 1.0
    assert table.row(category="Proximity", subcategory="Overall")["accuracy"] == 0.5
    assert table.row(category="Overall")["accuracy"] == 3 / 5  # not (2/3 + 1/2) / 2


def test_s3_num_mc_overall() -> None:
    records = [
        q("1", task="count", category="Spatial Relation", answer_type="number", score=1.0),
        q("2", task="count", category="Spatial Relation", answer_type="number", score=0.5),
        q("3", task="sequence", answer_type="choice", score=1.0),
        q("4", task="sequence", answer_type="choice", score=0.0),
        q("5", task="sequence", answer_type="choice", score=None, valid=False),
    ]
    table = s3_table(records)
    assert table.row(task="count") == {
        "task": "count", "dimension": "Spatial Relation", "format": "Num", "n": 2,
        "invalid": 0, "score": 0.75}  # fmt: skip
    assert table.row(task="sequence")["score"] == pytest.approx(1 / 3)
    assert table.row(task="Num")["score"] == 0.75
    assert table.row(task="MC")["score"] == pytest.approx(1 / 3)
    assert table.row(task="Overall")["score"] == pytest.approx(2.5 / 5)


def test_vsibench_merges_directions_and_averages_types() -> None:
    records = [
        q("1", task="object_rel_direction_easy", score=1.0),
        q("2", task="object_rel_direction_easy", score=0.0),
        q("3", task="object_rel_direction_medium", score=1.0),
        q("4", task="object_rel_direction_hard", score=0.0),
        q("5", task="object_counting", answer_type="number", score=0.9),
    ]
    table = vsibench_table(records)
    assert table.row(question_type="object_rel_direction")["score"] == 0.5  # (0.5 + 1 + 0)/3
    assert table.row(question_type="object_rel_direction")["n"] == 4
    assert table.row(question_type="Overall")["score"] == pytest.approx((0.5 + 0.9) / 2)


def test_per_source() -> None:
    table = per_source_table([q("1", source="ScanNet"), q("2", source="ScanNet", score=0.0),
                              q("3")])  # fmt: skip
    assert table.row(source="ScanNet")["score"] == 0.5
    assert table.row(source="unknown")["n"] == 1


# --- record shapes and plain output ---------------------------------------------------------


def test_plain_dicts_with_nested_task_labels() -> None:
    raw = {"item_id": "a", "query_index": 0, "answer_type": "choice", "score": 1.0,
           "valid": True, "task": {"level": 1, "category": "1.1", "subcategory": "1.1.1",
                                   "task": "Distance"}, "unrelated": "ignored"}  # fmt: skip
    table = ovos_table([raw])
    assert table.row(level="1", group="1.1")["accuracy"] == 1.0


@dataclass
class StoreRecord:  # the results store's shape: prediction under "extracted", answer in extra
    item_id: str
    query_index: int
    task: dict
    answer_type: str
    extracted: float | None
    score: float | None
    valid: bool
    extra: dict = field(default_factory=dict)


def test_results_store_records_feed_vcbench() -> None:
    recs = [StoreRecord("v", i, {"category": "O2", "subcategory": "O2-Unique", "task": "count"},
                        "number", p, None, True, {"answer": g})
            for i, (p, g) in enumerate([(1, 1), (2, 2)])]  # fmt: skip
    row = vcbench_table(recs).row(subcategory="O2-Unique")
    assert (row["gpa"], row["moc"], row["uda"]) == (1.0, 1.0, 1.0)


def test_record_without_ids_is_an_input_error() -> None:
    with pytest.raises(InputError, match="field 'item_id'"):
        ucs_table([{"query_index": 0, "task": "x", "score": 1}])


def test_tables_are_json_serialisable() -> None:
    table = vcbench_table(vcbench_records())
    decoded = json.loads(json.dumps(table.to_dict()))
    assert decoded["columns"] == list(table.columns)
    assert all(set(row) == set(table.columns) for row in decoded["rows"])


def test_paper_table_dispatch() -> None:
    assert paper_table("s3", []).row(task="Overall")["score"] is None
    generic = paper_table("generic", [q("1", task="a"), q("2", task="b", score=0.0)])
    assert generic.row(task="a")["score"] == 1.0
    assert generic.row(task="Overall")["score"] == 0.5
    with pytest.raises(InputError, match="unknown results table"):
        paper_table("nope", [])


scores = st.lists(st.tuples(st.sampled_from(["L1", "L2", "L3"]), st.sampled_from("abc"),
                            st.one_of(st.none(), st.floats(0, 1))), max_size=40)  # fmt: skip


@given(scores)
def test_ovos_scores_stay_in_unit_interval(rows: list) -> None:
    records = [q(str(i), level=lvl, category=f"{lvl}.{c}", score=s, valid=s is not None)
               for i, (lvl, c, s) in enumerate(rows)]  # fmt: skip
    for row in ovos_table(records).rows:
        assert row["accuracy"] is None or 0.0 <= row["accuracy"] <= 1.0

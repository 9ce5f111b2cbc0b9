"""Before rendering, the families the planned walks will leave short are named, with why."""

from __future__ import annotations

import pytest

from streamspatial.scene.schedule import Event, Schedule
from streamspatial.sim.pipeline.forecast import forecast, glance_outcomes

FAMILIES = ("ucs.quantity_change", "ovos.change_detection", "ucs.object_trajectory")


def change(kind: str, surface: int, t: float, before: int, after: int, subject: int) -> Event:
    detail = {"surface": surface, "category": "box", "before": before, "after": after}
    return Event(kind, t, t + 2.0, subject, 1, detail)  # type: ignore[arg-type]


def schedule(*events: Event) -> Schedule:
    return Schedule(events=tuple(sorted(events, key=lambda e: (e.end, e.start, e.subject))))


def test_each_glance_back_is_one_outcome():
    s = schedule(
        change("added", 5, 10.0, 1, 2, 1001),
        change("added", 5, 10.0, 2, 3, 1002),  # the same glance-back: +2
        change("removed", 6, 20.0, 2, 1, 1003),
        change("moved", 7, 30.0, 1, 1, 1004),
        Event("unchanged", 40.0, 42.0, 8, 1, {"surface": 8, "count": 2}),
        Event("carried", 50.0, 53.0, 1005, 1, {}),
    )
    assert sorted(glance_outcomes(s), key=str) == [-1, 2, "moved", "unchanged"]


def test_an_outcome_no_walk_plans_bounds_a_balanced_family():
    walks = [
        schedule(change("added", 5, 10.0, 1, 2, 1001), Event("carried", 5.0, 8.0, 1002, 1, {})),
        schedule(change("removed", 6, 20.0, 2, 1, 1003)),
    ]
    short = {s.family: s for s in forecast(walks, FAMILIES, need=40)}
    # five answers, one of them (-2) planned never: the others one each, 5 × (0 + 1)
    qct = short["ucs.quantity_change"]
    assert qct.most == 5
    assert qct.line() == (
        "ucs.quantity_change: at most 5 of 40 — its 5 answers are balanced and the 2 walks plan "
        "2 glance-backs, none with a net change of -2"
    )
    assert short["ovos.change_detection"].most == 4  # four answers, no prop moved
    assert "none where a prop moved" in short["ovos.change_detection"].why
    # a carry is asked at every query time after it: one carry bounds nothing, none does
    assert "ucs.object_trajectory" not in short
    none = forecast([schedule(change("removed", 6, 20.0, 2, 1, 1003))], FAMILIES, need=40)
    carry = {s.family: s for s in none}["ucs.object_trajectory"]
    assert carry.most == 0 and "none of the 1 walks plans one" in carry.line()
    assert forecast(walks, FAMILIES, need=1) == []  # enough for what was asked
    assert forecast(walks, ["s3.count"], need=40) == []  # families the plans do not bound


def test_every_outcome_planned_once_bounds_nothing():
    """A change is asked at several query times, so one planned of each outcome is no bound;
    "nothing changed" needs no glance-back at all (a revisit shows it)."""
    walks = [
        schedule(
            change("added", 5, 10.0, 1, 2, 1001),
            change("added", 5, 10.0, 2, 3, 1002),  # +2
            change("removed", 6, 20.0, 2, 1, 1003),  # -1
            change("moved", 7, 30.0, 1, 1, 1004),
        ),
        schedule(
            change("added", 5, 10.0, 1, 2, 1005),  # +1
            change("removed", 6, 20.0, 3, 2, 1006),
            change("removed", 6, 20.0, 2, 1, 1007),  # -2
            Event("carried", 5.0, 8.0, 1008, 1, {}),
        ),
    ]
    assert forecast(walks, FAMILIES, need=40) == []


def test_sim_generate_names_the_shortfall_before_it_renders(tmp_path):
    pytest.importorskip("mujoco")
    from streamspatial.sim.generate import generate_benchmark
    from streamspatial.sim.pipeline.config import GenerateConfig

    said: list[tuple[str, str | int]] = []
    cfg = GenerateConfig(
        out=tmp_path, houses=1, seed=3, minutes=0.5, size=(96, 72), rooms=4, per_family=60
    )
    result = generate_benchmark(
        cfg,
        lambda stage, d, t: said.append((stage, d)),
        lambda line: said.append(("!", line)),
    )
    warned = [i for i, (kind, _) in enumerate(said) if kind == "!"]
    rendering = [i for i, (stage, d) in enumerate(said) if stage == "render" and d > 0]
    assert warned and rendering and max(warned) < min(rendering)
    assert {f.family for f in result.forecast} >= {"ucs.quantity_change"}
    manifest = (tmp_path / "manifest.json").read_text()
    assert '"forecast"' in manifest and "ucs.quantity_change" in manifest

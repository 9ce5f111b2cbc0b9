"""Before rendering, the families the planned walks will leave short are named, with why."""

from __future__ import annotations

import pytest

from streamspatial.sim.pipeline.forecast import forecast, glance_outcomes
from streamspatial.sim.schedule import Event, Schedule

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


def test_the_rarest_planned_outcome_bounds_a_balanced_family():
    walks = [
        schedule(change("added", 5, 10.0, 1, 2, 1001), Event("carried", 5.0, 8.0, 1002, 1, {})),
        schedule(change("removed", 6, 20.0, 2, 1, 1003)),
    ]
    short = {s.family: s for s in forecast(walks, FAMILIES, need=40)}
    # five answers, the rarest (-2) planned never: 5 × (0 + 1)
    assert short["ucs.quantity_change"].most == 5
    assert (
        "2 walks plan 2 glance-backs, 0 with a net change of -2" in short["ucs.quantity_change"].why
    )
    # the bound grows with the walks: 40 items need 2 × 40 / 5 walks like these at least
    hint = "; it takes 16 walks of this length or more"
    assert short["ucs.quantity_change"].line().endswith(hint)
    assert short["ovos.change_detection"].most == 4  # four answers, no prop moved
    # a carry is asked at every query time after it: one carry bounds nothing, none does
    assert "ucs.object_trajectory" not in short
    none = forecast([schedule(change("removed", 6, 20.0, 2, 1, 1003))], FAMILIES, need=40)
    carry = {s.family: s for s in none}["ucs.object_trajectory"]
    assert carry.most == 0 and "none of the 1 walks plans one" in carry.line()
    assert forecast(walks, FAMILIES, need=1) == []  # enough for what was asked
    assert forecast(walks, ["s3.count"], need=40) == []  # families the plans do not bound


def test_sim_generate_names_the_shortfall_before_it_renders(tmp_path):
    pytest.importorskip("mujoco")
    from streamspatial.sim.generate import GenerateConfig, generate_benchmark

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

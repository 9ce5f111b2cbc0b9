"""Answers that do not follow the clock: families whose answers move with time are balanced
over the shares of the walk by construction, and a model of the answer on the query time alone
(``qc blind --models time``) stays within the noise allowance on generated benchmarks."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from streamspatial.sim.qa import FAMILIES, Draft, DraftQuery, QuestionGenerator
from streamspatial.sim.qa.balance import (
    CLASS_SLACK,
    OPEN_CLASSES,
    TIME_BINS,
    Balancer,
    draw_class,
    time_bin,
)
from streamspatial.sim.qa.common import count_block

YES_NO = ("Yes", "No")


def revisit(t: float, answer: str) -> Draft:
    return Draft(
        "ovos.revisit_detection",
        "Is the room you are in now one you had already been in earlier?",
        [DraftQuery(t, answer)],
        {},
        choices=list(YES_NO),
        answer_class=answer,
        classes=YES_NO,
    )


def test_a_timed_family_is_balanced_in_every_share_of_the_walk():
    """ "No" at any time, "Yes" only late (a one-minute walk's revisits): balanced over the
    whole walk alone, the clock answered; balanced per share, only the shares that offer both
    keep more than a couple of items, and there the answers are even."""
    rng = random.Random(0)
    bal = Balancer()
    kept: list[Draft] = []
    for _ in range(3000):
        t = rng.uniform(0, 60)
        answer = "Yes" if t > 40 and rng.random() < 0.6 else "No"
        d = revisit(t, answer)
        if bal.admit(d, 60.0):
            kept.append(d)
    per = Counter((time_bin(d.queries[0].time, 60.0), d.answer_class) for d in kept)
    for b in range(TIME_BINS):
        yes, no = per[(b, "Yes")], per[(b, "No")]
        assert abs(yes - no) <= CLASS_SLACK, (b, yes, no)
    assert sum(per[(b, "No")] for b in range(4)) == 4  # one each where no "Yes" pairs with it
    assert sum(per.values()) >= 100
    # balanced over the whole walk only, the same stream keeps "No" early: the clock reads it
    plain = Balancer()
    rng = random.Random(0)
    early = 0
    for _ in range(3000):
        t = rng.uniform(0, 60)
        d = revisit(t, "Yes" if t > 40 and rng.random() < 0.6 else "No")
        early += plain.admit(d) and time_bin(t, 60.0) < 4
    assert early > 50


def test_a_timed_family_draws_only_the_answers_its_share_still_takes():
    bal = Balancer()
    assert bal.admit(revisit(52.0, "Yes"), 60.0)
    assert not bal.admit(revisit(53.0, "Yes"), 60.0)  # "Yes" is one ahead in the last sixth
    assert bal.admit(revisit(5.0, "Yes"), 60.0)  # the first sixth is balanced on its own
    late = bal.admits("ovos.revisit_detection", time_bin(54.5, 60.0))
    assert late is not None and not late("Yes") and late("No")
    assert bal.admit(revisit(54.0, "No"), 60.0)
    assert bal.admits("ovos.revisit_detection", time_bin(54.5, 60.0))("Yes")  # type: ignore[misc]


def test_the_families_whose_answers_move_with_time_are_timed():
    timed = {k for k, f in FAMILIES.items() if f.timed}
    assert timed >= {
        "ovos.revisit_detection", "ovos.revisit_counting", "ovos.transient_count",
        "s3.area", "s3.current_room_area", "s3.count", "vc.e2_episode",
    }  # fmt: skip


def test_count_options_are_the_block_of_four_that_holds_the_count():
    """Four consecutive, distinct counts, none below one, from a fixed tiling: the options
    say which block the answer is in, and its rank among them is set by the count alone."""
    assert count_block(1, 4) == count_block(4, 4) == [1, 2, 3, 4]
    assert count_block(5, 4) == count_block(8, 4) == [5, 6, 7, 8]
    assert count_block(9, 4) == [9, 10, 11, 12]
    assert count_block(0, 4, lowest=0) == [0, 1, 2, 3]
    assert [count_block(c, 4).index(c) for c in range(1, 10)] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    for c in range(1, 30):
        values = count_block(c, 4)
        assert values == list(range(values[0], values[0] + 4)) and values[0] >= 1 and c in values
    with pytest.raises(ValueError):
        count_block(0, 4)


def _offered(t: float) -> list[int]:
    """Counts seen so far, as a one-minute walk offers them: ones and twos in its first
    third, threes in its second, up to six (a second block of options) in its last."""
    return [1, 2] if t < 20 else [1, 2, 3] if t < 40 else [1, 2, 3, 4, 5, 6]


def _count_stream(blocks: bool, seed: int = 3) -> list[Draft]:
    """Transient Count Memory's drafting on a stream of query times, admitted as generation
    admits it: the count drawn first among those offered and admitted, then its options,
    the block of four that holds it, as its classes (now); or four consecutive counts around
    it at a drawn rank, refused where they would start below one, the count text balanced
    (before)."""
    rng = random.Random(seed)
    bal = Balancer()
    kept = []
    for _ in range(4000):
        t = rng.uniform(0, 60)
        token = OPEN_CLASSES.set(bal.admits("ovos.transient_count", time_bin(t, 60.0)))
        try:
            n = int(draw_class(rng, [str(c) for c in _offered(t)]))
        finally:
            OPEN_CLASSES.reset(token)
        if blocks:
            values = count_block(n, 4)
        else:
            start = n - rng.randrange(4)
            if start < 1:
                continue
            values = list(range(start, start + 4))
        opts = [str(v) for v in values]
        d = Draft(
            "ovos.transient_count",
            "How many chairs have you seen in total so far?",
            [DraftQuery(t, str(n))],
            {},
            choices=opts,
            answer_class=str(n) if blocks else None,
            classes=tuple(opts) if blocks else (),
        )
        if bal.admit(d, 60.0):
            kept.append(d)
    return kept


def _rank(d: Draft) -> int:
    return sorted(int(c) for c in d.choices).index(int(d.queries[0].answer))


def test_the_rank_of_a_count_among_its_options_does_not_follow_the_clock():
    """In every twelfth of the walk the answer's rank among its options is level within each
    block of options (the first third, offering only ones and twos, keeps an item or two per
    twelfth), every option is a distinct count of at least one, and in each third an option
    value is right about a quarter of the times it is shown.  With options around the count
    at a drawn rank, the same stream put the answer at the lowest option in most of the
    first third's items, and never at the upper two."""
    kept = _count_stream(blocks=True)
    assert len(kept) >= 100
    per = Counter(
        (time_bin(d.queries[0].time, 60.0), min(int(c) for c in d.choices), _rank(d)) for d in kept
    )
    for b in range(TIME_BINS):
        for start in (1, 5):
            got = [per[(b, start, r)] for r in range(4)]
            assert max(got) - min(got) <= CLASS_SLACK, (b, start, got)
    assert {r for (b, s, r), n in per.items() if n and b >= 8} == {0, 1, 2, 3}
    for d in kept:
        values = [int(c) for c in d.choices]
        assert len(set(values)) == 4 and min(values) >= 1 and d.queries[0].answer in d.choices
    for third in range(3):
        mine = [d for d in kept if int(3 * d.queries[0].time / 60.0) == third]
        shown = Counter(c for d in mine for c in d.choices)
        right = Counter(str(d.queries[0].answer) for d in mine)
        for v, n in shown.items():  # a quarter of its showings, give or take a share's slack
            assert abs(right[v] - n / 4) <= TIME_BINS // 3 * CLASS_SLACK, (third, v, right, shown)
    early = Counter(_rank(d) for d in _count_stream(blocks=False) if d.queries[0].time < 20)
    assert early[0] > 0.6 * sum(early.values()) and early[2] == early[3] == 0, early


def test_the_count_stream_is_fixed_by_its_seed():
    got = [
        (round(d.queries[0].time, 1), d.queries[0].answer, d.choices) for d in _count_stream(True)
    ]
    assert got[:5] == [
        (14.3, "1", ["1", "2", "3", "4"]),
        (22.2, "3", ["1", "2", "3", "4"]),
        (28.4, "3", ["1", "2", "3", "4"]),
        (3.9, "1", ["1", "2", "3", "4"]),
        (54.5, "4", ["1", "2", "3", "4"]),
    ]
    assert got == [
        (round(d.queries[0].time, 1), d.queries[0].answer, d.choices) for d in _count_stream(True)
    ]


TIMED = sorted(k for k, f in FAMILIES.items() if f.timed)


def _benchmark(tmp_path, seed: int, houses: int, minutes: float):
    """Rendered walks with their events (160×120, 2 fps), asked the timed families only."""
    pytest.importorskip("mujoco")
    from streamspatial.scene.types import load_episode_meta
    from streamspatial.sim.pipeline.config import GenerateConfig, house_seeds
    from streamspatial.sim.pipeline.jobs import render_walk

    cfg = GenerateConfig(
        out=tmp_path, houses=houses, seed=seed, minutes=minutes, size=(160, 120), fps=2.0
    )
    gen = QuestionGenerator(seed, per_family=12, families=TIMED)
    items, durations = [], {}
    for hs in house_seeds("eval", seed, houses):
        name = f"house-{hs:07d}-walk"
        render_walk(cfg, ("walk", hs), tmp_path)
        meta = load_episode_meta(tmp_path / f"{name}.mp4")
        items += gen.items(meta, video=f"streamspatial-sim/{name}.mp4", episode_id=name)
        durations[f"streamspatial-sim/{name}.mp4"] = len(meta.frames) / meta.fps
    return items, durations


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "houses", "minutes"), [(31, 6, 1.0), (47, 6, 1.0), (53, 3, 3.0)])
def test_a_clock_answers_no_timed_family_of_a_generated_benchmark(tmp_path, seed, houses, minutes):
    """One- and three-minute walks of seeds used for nothing else: per family, the answers
    per third of the walk (query points) are spread alike, and a model of the answer on the
    query time, its share of the walk and the index stays within the stress test's allowance."""
    from streamspatial.core.schema import AnswerType
    from streamspatial.qc.tst import ProbeConfig, stress_test
    from streamspatial.sim.qa.balance import bin_of

    items, durations = _benchmark(tmp_path, seed, houses, minutes)
    assert items
    tasks = stress_test(items, ProbeConfig(models=("time",), min_items=20)).tasks
    # The clock's test: the time-only model over chance by more than the allowance.  (The
    # stress test's other flag, a training median scoring a high MRA, is about how spread a
    # number's answers are, whatever the time: generation prunes it, and the families asked
    # here without pruning can trip it on six walks, as E2-Episode's 1-3 comings and goings
    # did on seed 31, its median scoring MRA 0.51 while the time-only model stayed at it.)
    clocked = {
        t.task: (t.blind, t.chance, t.allowance)
        for t in tasks
        if t.judged and t.blind - t.chance > t.allowance
    }
    assert not clocked, clocked
    by_family: dict[str, Counter] = {}
    for it in items:
        q = it.queries[-1]
        third = min(2, int(3 * q.time / durations[it.video]))
        if it.answer_type is AnswerType.CHOICE:
            key = next(o.text for o in it.options if o.letter == q.answer)
        else:
            key = bin_of(it.meta["family"], float(q.answer)) or f"{float(q.answer):g}"
        by_family.setdefault(it.meta["family"], Counter())[(third, key)] += 1
    for fam, cells in by_family.items():
        keys = {k for _, k in cells}
        totals = {k: sum(cells[(b, k)] for b in range(3)) for k in keys}
        n = sum(totals.values())
        for b in range(3):
            in_third = sum(cells[(b, k)] for k in keys)
            for k in keys:  # each third holds each answer at about its share of the family
                allowed = totals[k] / n * in_third + (TIME_BINS // 3) * 2
                assert cells[(b, k)] <= allowed, (fam, b, k, dict(cells))

"""Balanced families asked over a group of walks: a rare answer in a late walk does not
starve the walks asked before it (``QuestionGenerator.group_drafts``)."""

from __future__ import annotations

import random
from collections import Counter
from types import SimpleNamespace

import pytest

from streamspatial.sim.qa import Draft, DraftQuery, QuestionGenerator
from streamspatial.sim.qa.balance import draw_class
from streamspatial.sim.qa.registry import FAMILIES, Family

KEY = "test.rare_answer"
CLASSES = ("common", "rare")
FRAMES = 50  # 10 s at 5 fps


def _walk(offers: str) -> SimpleNamespace:
    """A walk's metadata as the generator reads it; ``offers`` names the one class its
    frames hold (the episode id carries it to the generator)."""
    return SimpleNamespace(frames=[None] * FRAMES, fps=5.0, schedule=None, house=None)


def _family(offers: dict[int, str]):
    """A balanced family whose walk (told apart by its frame list's identity) offers one
    answer class, a question at every frame."""

    def generate(ep, k: int, rng: random.Random) -> list[Draft]:
        want = draw_class(rng, CLASSES)
        if offers[id(ep._meta)] != want:
            return []
        return [
            Draft(
                KEY,
                "Which is it?",
                [DraftQuery(k / ep.fps, want)],
                {"k": k},
                choices=list(CLASSES),
                answer_class=want,
                classes=CLASSES,
            )
        ]

    return Family(KEY, "ovos", None, generate, "choice", min_history_s=0.0, balanced=True)


@pytest.mark.parametrize("order", [("common", "rare"), ("rare", "common")])
def test_a_rare_answer_in_one_walk_does_not_starve_the_others(monkeypatch, order):
    walks = [_walk(c) for c in order]
    offers = {id(w): c for w, c in zip(walks, order, strict=True)}
    monkeypatch.setitem(FAMILIES, KEY, _family(offers))
    gen = QuestionGenerator(3, per_family=4, families=[KEY])
    drafts = gen.group_drafts([(w, f"walk{i}") for i, w in enumerate(walks)])
    # Asked walk by walk, the first walk took one question (the other class had none yet)
    # and the second two; round the walks, each walk fills its four.
    assert [len(d) for d in drafts] == [4, 4]
    classes = Counter(d.answer_class for ds in drafts for d in ds)
    assert classes == {"common": 4, "rare": 4}
    for ds, c in zip(drafts, order, strict=True):
        assert {d.answer_class for d in ds} == {c}
        assert len({d.queries[0].time for d in ds}) == 4  # four query points, not one


def test_group_asking_is_deterministic_and_keeps_the_reserve_last(monkeypatch):
    walks = [_walk("common"), _walk("rare")]
    offers = {id(walks[0]): "common", id(walks[1]): "rare"}
    monkeypatch.setitem(FAMILIES, KEY, _family(offers))

    def ask():
        gen = QuestionGenerator(3, per_family=2, reserve=2, families=[KEY])
        got = gen.group_drafts([(w, f"walk{i}") for i, w in enumerate(walks)])
        return [[(d.queries[0].time, bool(d.meta.get("reserve"))) for d in ds] for ds in got]

    first = ask()
    assert first == ask()
    for walk in first:
        assert [r for _, r in walk] == [False, False, True, True]

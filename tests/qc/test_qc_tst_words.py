"""The cues a question's own words carry: planted in small synthetic benchmarks, found by
`qc blind`'s stress test, and an unbiased twin of each left alone.

The three kinds are those a text-only probe found on generated three-minute walks: a yes/no
answer the object named in the question decides (Physical Stability & Feasibility), the
option that goes with the object the question names (Occlusion Recognition), and a size
the object's category gives (S3 `attribute`).  Each is planted at about the strength found
there, on 120 items of ten houses.  Before the word encodings (:mod:`streamspatial.qc.tst_words`),
the yes/no cue read 0.49 and 0.57 against 0.50 on these two seeds (a yes/no option has no
content word, so the question's nouns reached no option's score) and the option cue was
flagged on one of them.
"""

from __future__ import annotations

import math
import random

import pytest

from streamspatial.qc.tst_features import Point
from streamspatial.qc.tst_words import WordOptionPrior, WordValuePrior, inner_folds, terms
from test_qc_tst import choice, number, probe

pytest.importorskip("sklearn")

SMALL = ("mug", "book", "vase", "lamp", "laptop", "potted plant", "bowl", "clock")
BIG = ("sofa", "bed", "dining table", "armchair", "desk", "bookshelf", "wardrobe", "tv stand")
NOTHING = "Nothing is blocking it"
FEASIBLE = "Could the {} be set down on top of the {} without hanging over its edges?"


def feasibility(seed: int, cue: float, n: int = 120, houses: int = 10) -> list:
    """Yes for a small object on furniture ``cue`` of the time, No for furniture on furniture."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        small = rng.random() < 0.5
        x, y = rng.choice(SMALL if small else BIG), rng.choice(BIG)
        yes = (rng.random() < cue) == small if cue else rng.random() < 0.5
        out.append(choice("Physical Stability & Feasibility", i, i % houses, FEASIBLE.format(x, y),
                          ["Yes", "No"], 0 if yes else 1, times=[rng.uniform(5, 170)]))  # fmt: skip
    return out


def occlusion(seed: int, cue: float, n: int = 120, houses: int = 10) -> list:
    """The blocker is the named object's partner ``cue`` of the time; every option text is
    drawn from one pool, so no text is right more often than it is shown."""
    rng = random.Random(seed)
    partner = {x: BIG[(j + 3) % len(BIG)] for j, x in enumerate(SMALL)}
    out = []
    for i in range(n):
        x = rng.choice(SMALL)
        if rng.random() < 0.25:
            answer, foils = NOTHING, [f"The {b}" for b in rng.sample(BIG, 3)]
        else:
            b = partner[x] if rng.random() < cue else rng.choice(BIG)
            answer = f"The {b}"
            foils = [NOTHING, *(f"The {o}" for o in rng.sample([o for o in BIG if o != b], 2))]
        opts = [answer, *foils]
        rng.shuffle(opts)
        q = f"In the current frame, which object is partly blocking your view of the {x}?"
        out.append(choice("Occlusion Recognition", i, i % houses, q, opts, opts.index(answer),
                          times=[rng.uniform(5, 170)]))  # fmt: skip
    return out


def attribute(seed: int, spread: float | None, n: int = 120, houses: int = 8) -> list:
    """The longest edge is the category's size times a log-normal spread (None: any size)."""
    rng = random.Random(seed)
    size = {o: 0.15 * 1.35**j for j, o in enumerate(SMALL + BIG)}
    out = []
    for i in range(n):
        o = rng.choice(SMALL + BIG)
        v = (
            size[o] * math.exp(rng.gauss(0, spread))
            if spread
            else 0.15 * 1.35 ** rng.uniform(0, 15)
        )
        out.append(number("attribute", i, i % houses, f"What is the length of the {o}'s longest "
                          "edge? Answer in meters.", v, time=rng.uniform(5, 170)))  # fmt: skip
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_the_three_word_cues_are_flagged_and_their_unbiased_twins_are_not(seed):
    planted = probe(feasibility(seed, 0.8) + occlusion(seed, 0.8) + attribute(seed, 0.45))
    for task in ("ovos/Physical Stability & Feasibility", "ovos/Occlusion Recognition",
                 "s3/attribute"):  # fmt: skip
        t = planted[task]
        assert t.judged and t.flagged, (task, t.blind, t.chance, t.allowance, t.models)
    fair = probe(feasibility(seed, 0.0) + occlusion(seed, 0.0) + attribute(seed, None))
    for t in fair.values():
        assert t.judged and not t.flagged, (t.task, t.blind, t.chance, t.allowance, t.models)


def _pt(group: str, question: str, options: tuple[str, ...], correct: int) -> Point:
    return Point(f"{group}-{question}", 0, "t", group, question, options, correct, None, 1.0, 1)


def test_a_training_row_is_encoded_without_its_own_house():
    """Leave-one-out would hand the row's own answer back (a word's total less the row's)."""
    train = [_pt(f"house-{h}", f"Could the mug{h} fit?", ("Yes", "No"), h % 2) for h in range(10)]
    train += [_pt(f"house-{h}", "Could the mug fit?", ("Yes", "No"), 0) for h in range(10)]
    folds = inner_folds(train)
    assert sorted(i for f in folds for i in f) == list(range(len(train)))
    for f in folds:
        assert not {train[i].group for i in f} & {
            train[i].group for g in folds if g is not f for i in g
        }
    prior = WordOptionPrior(train)
    enc = prior.train_features()
    # "mug" alone said Yes in the other houses: its rate for Yes is high, for No low
    yes, no = enc[10][0], enc[10][1]
    assert yes[0] > 0 > no[0]
    # words no other house used add nothing beyond the text's own rate
    assert prior.features(_pt("house-x", "Would a teapot stand?", ("Yes", "No"), 0))[0][0] == 0


def test_a_numeric_question_word_carries_the_mean_answer_of_other_houses():
    train = [
        Point(f"i{h}", 0, "t", f"house-{h}", f"edge of the {w}?", (), None, v, 1.0, 1)
        for h in range(6)
        for w, v in (("bed", 2.0), ("mug", 0.1))
    ]
    prior = WordValuePrior(train)
    bed = prior.features(Point("t", 0, "t", "house-9", "edge of the bed?", (), None, 0, 1.0, 1))
    mug = prior.features(Point("t", 0, "t", "house-9", "edge of the mug?", (), None, 0, 1.0, 1))
    assert bed[1] > mug[1]
    assert all(len(r) == 4 for r in prior.train_features())


def test_the_words_beside_a_name_say_which_part_it_plays():
    x = terms("Could the rug be set down on top of the desk?")
    y = terms("Could the desk be set down on top of the rug?")
    assert "rug" in x and "rug" in y
    assert "rug be" in x and "rug be" not in y and "the rug" in y

"""Question words the object names are made of do not decide the answer: Physical Stability &
Feasibility's yes/no is level within one per word, and Occlusion Recognition's foils are
drawn, and its blockers capped, by category (``sim.qa.balance``)."""

from __future__ import annotations

import random

from streamspatial.sim.qa.balance import Balancer
from streamspatial.sim.qa.draft import choice_draft

YES_NO = ("Yes", "No")


def _feasible(x: str, answer: str, family: str = "ovos.feasibility"):
    q = f"Could the {x} be set down on top of the bed without hanging over its edges?"
    return choice_draft(family, 10.0, q, answer, YES_NO, [], {}, answer_class=answer,
                        classes=YES_NO)  # fmt: skip


def test_a_feasibility_word_stays_level_within_one_where_other_families_may_lean_two():
    held, loose = Balancer(), Balancer()
    took = {"held": [], "loose": []}
    # a mug fits on anything: the walk offers "Yes" for it again and again, "No" once
    offers = ["Yes", "Yes", "Yes", "No", "Yes", "Yes", "Yes"]
    for answer in offers:
        # the family-wide class cap is kept level by other objects' "No" items in between
        for b, name, fam in ((held, "held", "ovos.feasibility"), (loose, "loose", "ovos.x")):
            if b.admit(_feasible("mug", answer, fam)):
                took[name].append(answer)
            b.admit(_feasible(f"sofa{len(took[name])}", "No", fam))
    yes, no = took["held"].count("Yes"), took["held"].count("No")
    assert abs(yes - no) <= 1 and no == 1
    assert took["loose"].count("Yes") > yes  # the default slack lets "mug" lean further


def _occluded(blocker: str, foils: list[str], balance: Balancer) -> tuple[bool, list[str]]:
    nothing = "Nothing is blocking it"
    answer = f"The {blocker}"
    choices = [answer, nothing, *(f"The {f}" for f in foils)]
    keys = {f"The {o}": o.split()[-1] for o in [blocker, *foils]} | {nothing: nothing}
    d = choice_draft("ovos.occlusion", 5.0, "Which object is partly blocking your view of the "
                     "rug?", answer, choices, [], {}, n_options=4, option_keys=keys)  # fmt: skip
    if not balance.keys_allow(d):
        return False, []
    shown = balance.pick_distractors(d, random.Random(0))
    d.choices = [answer, *shown]
    balance.record(d)
    return True, shown


def test_an_occluding_category_is_capped_at_its_showings_and_shown_as_often_as_it_wins():
    b = Balancer()
    wins = 0
    for _ in range(12):
        ok, _ = _occluded("brown table", ["lamp", "vase", "black chair", "mug"], b)
        wins += ok
    # the table category blocks at most the family's rate times its showings, plus two
    assert wins <= 3
    _, shown = _occluded("red chair", ["green table", "lamp", "vase", "mug", "box"], b)
    assert "The green table" in shown  # a category that often won is drawn as a foil


def test_a_thing_set_down_and_the_same_thing_as_base_are_held_apart():
    """Level as a word, a rug was the base that takes anything and the object that fits on
    nothing; its neighbouring words ("rug be", "rug without") are held level too."""
    b = Balancer()

    def ask(x: str, y: str, answer: str) -> bool:
        q = f"Could the {x} be set down on top of the {y} without hanging over its edges?"
        return b.admit(choice_draft("ovos.feasibility", 1.0, q, answer, YES_NO, [], {},
                                    answer_class=answer, classes=YES_NO))  # fmt: skip

    took = []
    for i in range(6):
        took.append(ask("rug", f"chair{i}", "No"))  # the rug set down: it fits on nothing
        ask(f"mug{i}", "rug", "Yes")  # the rug as the base: anything fits
    assert took.count(True) == 1

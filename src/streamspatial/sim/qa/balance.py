"""Which drafts a family may still add: answers balanced over the whole benchmark.

A blind model learns whatever the answer distribution gives away: the class a trajectory
offers most (a walking camera is "moving forward"), the answer text the houses favour (the hub
room on shortest routes, "2" for counts), the magnitude every item sits near (rooms of
12–20 m², a camera walking at 0.8 m/s).  The :class:`Balancer` sees every draft a family
offers, in order, and admits one only while its answer keeps the family balanced:

* **fixed classes** (Yes/No, directions): a class may run at most ``CLASS_SLACK`` ahead of the
  family's rarest class;
* **open answers** of single-query choice items (rooms, objects, counts as options): no answer
  text may hold more than its share 1/k of the family (k options), plus ``OPEN_SLACK``;
* **numbers**: the answer's bin on the family's log-spaced ladder (``BINS``) may hold at most
  ``BIN_SHARE`` times its even share, plus one; spread over a factor of eight or more, the
  training median scores an MRA near 0.3 instead of 0.5–0.7.  Choice families whose options
  are magnitudes (``meta["value"]``) are binned the same way.

Families whose answers move with the clock (``Family.timed``: a count so far, a room seen
before) are balanced in each of ``TIME_BINS`` equal shares of the walk on their own: every cap
above holds within the share of the item's (last) query point, so each share holds the same
answers in the same proportions, and a share that offers one answer only (no room walked back
into in a walk's first seconds) keeps one item or two.  Balanced over the whole walk only,
"Yes, you have been here before" came late and "No" early, and a model of the answer on the
query time alone read OVO-S Revisit Detection 0.84 against a chance of 0.50.

And distractors are drawn the way answers fall (:meth:`Balancer.pick_distractors`): an option
text that is often correct is as often shown as a distractor, so that seeing it among the
options says nothing (otherwise "the option naming the living room" wins, because rooms full of
furniture hold most of the objects asked about).

Constants live here with their reasons; the stress test (``qc blind``) is what checks them.
"""

from __future__ import annotations

import bisect
import contextvars
import itertools
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable

from .draft import Draft

CLASS_SLACK = 1
OPEN_SLACK = 2
BIN_SHARE = 1.25
WORD_SLACK = 2
# Families whose question words are held tighter: the words name the objects, and what the
# objects are decides the answer unless the family is held to it.  A yes/no answer a word's
# items give is level within one of the other (``0``: no slack beyond that); a bin may hold a
# word's items to its share plus this many.  OVO-S Physical Stability & Feasibility: a mug
# fits on anything, a dining table on nothing, and with WORD_SLACK a word could lean two items
# its way (a text-only probe read ten 3-minute walks of seed 8111 at 0.675 against 0.50).
# S3 `attribute` is not held so: a category's longest edge hardly varies, so a word holds one
# item a bin, and at a slack of one the family made 54 of 120 items on those walks; pruning
# takes its leaning items out instead (``qc blind`` reads a question word's mean answer).
WORD_SLACK_OF: dict[str, int] = {"ovos.feasibility": 0}
KEY_SLACK = 2  # answers a key (category) may have beyond its share of its showings
# Shares of the walk a timed family is balanced in (sixths: a trend inside a third of a
# walk is still a trend); within each, the caps above (CLASS_SLACK, BIN_SHARE, OPEN_SLACK).
TIME_BINS = 12

# Bin edges per numeric family (answer units).  Chosen from what the houses offer: a bin
# nothing can fill only throttles the family, so edges follow the observed ranges.
BINS: dict[str, tuple[float, ...]] = {
    "s3.camera_displacement": (0.7, 1.4, 2.5),  # m, windows of 2–6 s
    # m²: the houses' rooms measure 6-30 m² (a 6 m² first edge left its bin empty, and an
    # empty bin caps every other at about six items: 18 on twelve 3-minute walks)
    "s3.current_room_area": (9.0, 14.0, 20.0),
    # m², rooms visited since a room's first entry: thirds of what one-minute walks offer (a
    # fourth bin over 60 m², which they rarely reach, held the family to a few items a bin)
    "s3.area": (14.0, 28.0),
    "s3.cam_obj_distance": (1.0, 2.0, 3.5),  # m
    "s3.attribute": (0.3, 0.6, 1.2),  # m, longest edge
    "s3.spatial_distance": (1.0, 2.0, 4.0),  # m
    # 1-2 | 3-4 | 5-9 | 10+: counts of a category seen more than once are rarely 1 (13 of
    # 2,700 drafts on twelve 3-minute walks), and groups ("chairs and tables") reach 40
    "s3.count": (2.5, 4.5, 9.5),
    "ovos.absolute_distance": (0.8, 1.6, 3.2),  # m, the true distance behind the ladder
    "s3.explore_room_count": (1.5, 2.5, 4.5),
    "s3.tem_spatial_distance_ref": (1.0, 2.0, 4.0),
    "s3.tem_cam_obj_distance_ref": (1.0, 2.0, 3.5),
    "vc.o1_snap": (1.5, 2.5, 4.5),  # last query point's count
    "vc.o2_unique": (2.5, 4.5, 8.5),
    # 0 | 1 | 2+: three new objects of one kind in 10-30 s made none of the items of twelve
    # 3-minute walks (seed 53171), and the empty 3+ bin held the family to 13 items
    "vc.o2_gain": (0.5, 1.5),
    "vc.o1_delta": (-1.5, -0.5, 0.5, 1.5),  # ≤ -2 | -1 | 0 | +1 | ≥ +2
    # event counts seen by the last query point: a 1-minute walk shows 2-6 door swings, 1-4
    # light off/on pairs and 1-3 comings and goings of a person (sim.events.params), so most
    # answers are 1-3; pendulums swing 2-9 whole cycles, one or two a minute.  Every bin must
    # be reachable: the cap is a share of *all* bins, so an empty one throttles the family
    # (E1-Action's last point counts two or more, and a 1 | 2 | 3+ ladder stopped it at six
    # items on twelve houses)
    "vc.e1_action": (2.5, 4.5),  # 2 | 3-4 | 5+ (its items count at least two)
    "vc.e1_transit": (2.5,),  # 2 | 3+ (its items count at least two: vcbench_events)
    "vc.e2_periodic": (2.5, 4.5),  # 1-2 | 3-4 | 5+ (8+ cycles seen whole were never seen
    # on twelve 3-minute walks: a fourth bin held the family to about fifteen items)
    # vc.e2_episode: unbinned; a walk shows 2-3 comings and goings at most, so a 2 | 3+ cap
    # would only throttle it (its items count at least two: vcbench_events)
}


def bin_of(family: str, value: float) -> str | None:
    edges = BINS.get(family)
    if edges is None:
        return None
    return f"bin{bisect.bisect_right(edges, value)}"


def bins_of(family: str) -> tuple[str, ...]:
    return tuple(f"bin{i}" for i in range(len(BINS.get(family, ())) + 1))


def time_bin(time: float, duration: float) -> int:
    """Which of the ``TIME_BINS`` equal shares of a walk of ``duration`` s ``time`` falls in."""
    return min(TIME_BINS - 1, max(0, int(TIME_BINS * time / duration))) if duration > 0 else 0


# Words a question is made of whatever it asks; the rest name what is asked about.
_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the of to in on at for from by with and or is are was were be been you your it "
        "its this that which what how many much where when do did have has had so far now "
        "there than into not about",
    )
)


# Which answers the family being drafted may still add (None: any): its open classes, and
# for a timed family the keys the share of the walk at the candidate frame still takes.  A
# balanced family draws the class it drafts for first (:func:`draw_class`); drawn uniformly,
# three tries in four go to classes the balancer refuses once a rare one holds the family
# back.  Measured on twelve rendered walks, this saves tries but adds no items: the short
# families are limited by how many rare-class events the walks hold ("behind you" on entering
# a room came from 3 houses).
OPEN_CLASSES: contextvars.ContextVar[Callable[[str], bool] | None] = contextvars.ContextVar(
    "open_classes", default=None
)


def draw_class(rng: random.Random, classes: Iterable[str]) -> str:
    """The answer class (or bin, or value) a balanced family drafts for: uniform over those
    its balancer still admits (all of them outside generation, or when it admits none)."""
    every = list(classes)
    admits = OPEN_CLASSES.get()
    pool = [c for c in every if admits is None or admits(c)]
    return rng.choice(pool or every)


def question_words(question: str) -> set[str]:
    """Content words of a question: a blind model keys on these ("chairs", "living room")."""
    words = re.findall(r"[a-z]+", question.replace("{prev_answer}", " ").lower())
    return {w for w in words if w not in _STOP}


def word_pairs(question: str) -> set[str]:
    """Neighbouring words of a question: where it names a thing ("the rug be set down" is the
    thing set down, "on top of the rug without" the base).  Held level by word alone, a rug
    was the base that takes anything and the object that fits on nothing: fourteen "No" to
    one as the object on seed 8111's walks, level as a word."""
    words = re.findall(r"[a-z]+", question.lower())
    return {f"{a} {b}" for a, b in itertools.pairwise(words)}


class Balancer:
    """Counts what each family has admitted so far and says whether a draft may join.

    Beyond the family-wide caps, no content word of the question may predict the answer: a
    word's items may give any one answer class, text or bin at most its share of them, plus
    ``WORD_SLACK``.  Otherwise "How many *chairs* …" (three, nearly always) or "… without
    passing through the *living room*?" (No, nearly always) is answered from one word.
    """

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}
        self.words: dict[tuple[str, str], Counter[str]] = {}
        self.won: dict[str, Counter[str]] = {}
        self.shown: dict[str, Counter[str]] = {}  # option keys shown, families with keys
        self.classes: dict[str, tuple[str, ...]] = {}  # fixed classes, as drafts name them

    def open_classes(self, family: str, when: int | None = None) -> frozenset[str] | None:
        """The fixed classes ``family`` (in share ``when`` of the walk, for a timed family) may
        still add one of (None: not known yet)."""
        slot = family if when is None else f"{family}@{when}"
        classes = self.classes.get(family)
        if classes is None:
            return None
        counts = self.counts.get(slot, Counter())
        floor = min(counts[c] for c in classes)
        return frozenset(c for c in classes if counts[c] < floor + CLASS_SLACK)

    def admits(self, family: str, when: int | None = None) -> Callable[[str], bool] | None:
        """Which answer keys the family may still add (None: any): its open classes and, for
        a timed family, the classes, bins or answers share ``when`` of the walk still takes."""
        classes = self.open_classes(family, when)
        if classes is None and when is None:
            return None
        slot = family if when is None else f"{family}@{when}"
        counts = self.counts.get(slot, Counter())

        def ok(key: str) -> bool:
            if classes is not None:
                return key in classes or key not in self.classes[family]
            if when is None or key not in counts:
                return True
            total = sum(counts.values())
            if key.startswith("bin"):
                share = 1.0 / len(bins_of(family))
                return counts[key] + 1 <= BIN_SHARE * share * (total + 1) + 1
            return counts[key] + 1 <= (total + 1) / max(2, len(counts)) + OPEN_SLACK

        return ok

    def key(self, d: Draft) -> tuple[str, float, str] | None:
        """The draft's answer key, its even share, and which cap applies (None: uncapped)."""
        if d.answer_class is not None:
            return d.answer_class, 1.0 / len(d.classes), "class"
        if not d.is_choice or "value" in d.meta:
            b = bin_of(d.family, float(d.meta.get("value", d.queries[-1].answer)))
            return None if b is None else (b, 1.0 / len(bins_of(d.family)), "bin")
        if d.images or len(d.queries) > 1:
            return None  # image options are unique; multi-query answers follow the stream
        return str(d.queries[0].answer), 1.0 / max(2, len(d.choices)), "text"

    def admit(self, d: Draft, duration: float | None = None) -> bool:
        """Count ``d`` in when its family stays balanced with it.  With ``duration`` (the
        walk's, in seconds; for a timed family), the family is balanced in each share of the
        walk on its own (:func:`time_bin` of the last query point): every cap below holds
        within the share, so the shares add up to a balanced family and none of them leans."""
        slot = d.family
        if duration is not None:
            slot = f"{d.family}@{time_bin(d.queries[-1].time, duration)}"
        got = self.key(d)
        if got is None and duration is not None and not d.is_choice:
            # an unbinned count (E2-Episode's 0-4): its values are the keys
            got = (f"{float(d.queries[-1].answer):g}", 0.0, "text")
        if got is None:
            return True
        key, share, kind = got
        counts = self.counts.setdefault(slot, Counter())
        total = sum(counts.values())
        if kind == "class":
            self.classes.setdefault(d.family, tuple(d.classes))
            if counts[key] >= min(counts[c] for c in d.classes) + CLASS_SLACK:
                return False
        elif kind == "bin":
            if counts[key] + 1 > BIN_SHARE * share * (total + 1) + 1:
                return False
        else:
            share = share or 1.0 / max(2, len(counts | {key: 1}))
            if counts[key] + 1 > share * (total + 1) + OPEN_SLACK:
                return False
        terms = question_words(d.question)
        if d.family in WORD_SLACK_OF:
            terms |= word_pairs(d.question)
        words = [self.words.setdefault((slot, w), Counter()) for w in sorted(terms)]
        if any(not self._word_allows(d, c, key, share, kind) for c in words):
            return False
        counts[key] += 1
        for c in words:
            c[key] += 1
        return True

    @staticmethod
    def _word_allows(d: Draft, c: Counter[str], key: str, share: float, kind: str) -> bool:
        """May one more of a question word's items give ``key``?  Its share plus
        ``WORD_SLACK``, or, for the families of ``WORD_SLACK_OF``, a class level within one
        of the word's rarest (plus the family's slack) and a bin its share plus the slack."""
        slack = WORD_SLACK_OF.get(d.family)
        if slack is None:
            return c[key] + 1 <= share * (sum(c.values()) + 1) + WORD_SLACK
        if kind == "class":
            return c[key] < min(c[k] for k in d.classes) + CLASS_SLACK + slack
        return c[key] + 1 <= share * (sum(c.values()) + 1) + slack

    def keys_allow(self, d: Draft) -> bool:
        """For a draft with ``option_keys``: may its answer's key win once more?

        A key (an object category) may be the answer at most the family's answer rate times
        the number of times it has been shown, plus ``KEY_SLACK``.  Foils drawn like answers
        fall cannot even this out on their own when a key is rarely available as a foil (small
        objects are only in view, and nameable, from close by, so they are nearly always the
        closest of what is in view): capping its wins does.
        """
        if not d.option_keys:
            return True
        answer = str(d.queries[0].answer)
        key = d.option_keys.get(answer, answer)
        won = self.won.setdefault(d.family, Counter())
        shown = self.shown.setdefault(d.family, Counter())
        rate = (sum(won.values()) + 1) / (sum(shown.values()) + 2)
        return won[key] + 1 <= rate * (shown[key] + 1) + KEY_SLACK

    def pick_distractors(self, d: Draft, rng: random.Random) -> list[str]:
        """``n_options - 1`` distractors from ``d.choices``, each weighted by how often its
        text (or its ``d.option_keys`` key) has been this family's correct answer so far
        (plus one); no two share a key while the pool offers others."""
        answer = str(d.queries[0].answer)
        pool = [c for c in dict.fromkeys(d.choices) if c != answer]
        n = (d.n_options or len(pool) + 1) - 1
        if len(pool) <= n:
            return pool
        won = self.won.setdefault(d.family, Counter())
        key = d.option_keys.get
        out: list[str] = []
        while len(out) < n:
            taken = {key(c, c) for c in [answer, *out]}
            fresh = [c for c in pool if key(c, c) not in taken] or pool
            weights = [won[key(c, c)] + 1.0 for c in fresh]
            pick = fresh[rng.choices(range(len(fresh)), weights=weights)[0]]
            out.append(pick)
            pool.remove(pick)
        return out

    def record(self, d: Draft) -> None:
        """Count the admitted draft's correct text or key (what distractors are weighted by)."""
        if d.is_choice and not d.images:
            answer = str(d.queries[0].answer)
            self.won.setdefault(d.family, Counter())[d.option_keys.get(answer, answer)] += 1
            if d.option_keys:
                self.shown.setdefault(d.family, Counter()).update(
                    d.option_keys.get(c, c) for c in d.choices
                )


__all__ = [
    "BINS",
    "CLASS_SLACK",
    "KEY_SLACK",
    "OPEN_CLASSES",
    "OPEN_SLACK",
    "TIME_BINS",
    "WORD_SLACK",
    "WORD_SLACK_OF",
    "Balancer",
    "bin_of",
    "bins_of",
    "draw_class",
    "time_bin",
]

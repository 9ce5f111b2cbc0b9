"""Egocentric direction classes, and reading them out of free text.

UCS-Bench's open-ended questions ("Which side is the whiteboard on right now?") are answered in
prose ("It is to your front-left and rear-left.").  Scoring prose needs a fixed vocabulary:
the eight relations of the official DirectMe code (``directme/retrieval/egocentric.py``,
``EGO_RELATION_LABELS``): ``front``, ``behind``, ``left``, ``right`` and the four diagonals
``front_left``, ``front_right``, ``behind_left``, ``behind_right``.  An answer is the *set* of
classes its text names; two answers agree when their sets are equal, so "front-left and
rear-left" matches "rear-left and front-left" but neither "front-left" alone nor "left".

Why a regex vocabulary and no similarity model: the reference answers are templated and the
models are told the same eight words, so an exact reading is possible and judge-free, like the
letter extraction of the multiple-choice benchmarks.
"""

from __future__ import annotations

import re

DIRECTIONS: tuple[str, ...] = (
    "front",
    "behind",
    "left",
    "right",
    "front_left",
    "front_right",
    "behind_left",
    "behind_right",
)

_FRONT = r"(?:front|forward|ahead|fore)"
_BACK = r"(?:behind|back|rear|backwards?)"
_SIDE = r"(?:left|right)"
# Diagonals first: "front-left", "front left", "rear-right", and side-first only when joined
# ("left-front"), since "right behind you" means directly behind.  "Behind you and to your
# left" is no diagonal: it names two directions.
_DIAGONAL = re.compile(
    rf"\b(?:(?P<fb>{_FRONT}|{_BACK})[\s\-_]*(?P<side>{_SIDE})"
    rf"|(?P<side2>{_SIDE})[\-_](?P<fb2>{_FRONT}|{_BACK}))\b",
    re.IGNORECASE,
)
_SINGLE = re.compile(rf"\b(?:in\s+front|{_FRONT}|{_BACK}|{_SIDE})\b", re.IGNORECASE)
# DirectMe's Chinese phrasing (egocentric.py): diagonals are read before the single words.
_CHINESE_DIAGONAL = {"左前": "front_left", "右前": "front_right", "左后": "behind_left",
                     "右后": "behind_right"}  # fmt: skip
_CHINESE_SINGLE = {"正前": "front", "前方": "front", "正后": "behind", "后方": "behind",
                   "左侧": "left", "左边": "left", "右侧": "right", "右边": "right"}  # fmt: skip


def _canonical(word: str) -> str:
    word = word.lower()
    if re.fullmatch(_FRONT, word) or word == "in":
        return "front"
    if re.fullmatch(_BACK, word):
        return "behind"
    return word


def direction_classes(text: str) -> frozenset[str]:
    """The direction classes ``text`` names; empty when it names none.

    Diagonals ("front-left", "back right", "rear-left", "left-front") are read before the
    single words, and the words a diagonal used are not counted again, so "front-left" is one
    class, not three.  "It is behind you and to your left" names two classes.
    """
    found: set[str] = set()
    spans: list[tuple[int, int]] = []
    for m in _DIAGONAL.finditer(text):
        fb = m.group("fb") or m.group("fb2")
        side = m.group("side") or m.group("side2")
        found.add(f"{_canonical(fb)}_{side.lower()}")
        spans.append(m.span())
    for m in _SINGLE.finditer(text):
        if any(s <= m.start() < e for s, e in spans):
            continue
        found.add(_canonical(m.group(0).split()[0]))
    rest = text
    for word, cls in _CHINESE_DIAGONAL.items():
        if word in rest:
            found.add(cls)
            rest = rest.replace(word, " ")
    found.update(cls for word, cls in _CHINESE_SINGLE.items() if word in rest)
    return frozenset(found)


def same_directions(answer: str, truth: str) -> bool | None:
    """True when ``answer`` names exactly the classes ``truth`` names; None when ``answer``
    names none (an invalid answer, scored as the benchmark's rule says)."""
    got = direction_classes(answer)
    if not got:
        return None
    return got == direction_classes(truth)


__all__ = ["DIRECTIONS", "direction_classes", "same_directions"]

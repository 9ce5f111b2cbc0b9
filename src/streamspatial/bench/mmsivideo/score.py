"""MMSI-Video-Bench under both scorers: ``evaluation.py``'s reader and its printer.

Official (``InternRobotics/MMSI-Video-Bench`` ``evaluation.py``, bench ``main``):

* ``extract_answer``: ``<answer>`` / ``</answer>`` removed; "no answer" anywhere is ``O``
  (invalid); else the text inside the *first* ``boxed{…}``; else the *first* keyword of the
  list ``"answer":``, ``answer is``, ``Answer: `` that occurs, the text after its *last*
  occurrence, up to the first comma, then the first full stop; else the text before the
  reply's first full stop when it is a bare letter A–F; else ``O``.  Spaces, quotes, newlines
  and colons are removed from what it takes.  Anything but A–F is a failure, scored 0 and
  counted; so is a null reply (its ``response.replace`` raises inside the ``try``).
* the printer: Overall (micro over every question) and the 13 types of ``ORDER_LIST``, as
  released ("Memoery Update"); a type of the list that the run lacks makes it raise a
  ``KeyError`` — its row is empty here, with a note; a type outside the list is averaged but
  not printed — its row is kept, with a note.

Paper: the letter of a ``\\boxed{X}`` (the format the released prompts ask for), else the
reply's leading letter, else the G.7 cascade; the same table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.aggregate import Scorable, Table, _group, _records
from streamspatial.grading.extract import leading_letter
from streamspatial.grading.verdict import Scored

from .reader import LETTERS, TYPES, MMSIVideoAdapter

KEYWORDS = ('"answer":', "answer is", "Answer: ")
_BOXED = re.compile(r"boxed\{\s*\(?([A-Fa-f])\)?\s*\}")
INVALID = "O"


def _clear(text: str) -> str:
    """``clear_words``: spaces, quotes, newlines and colons removed."""
    for ch in (" ", '"', "'", "\n", ":"):
        text = text.replace(ch, "")
    return text


def mmsi_answer(response: str | None) -> str | None:
    """``extract_answer(response)``; None where it raises (a null reply)."""
    if response is None:
        return None
    text = response.replace("<answer>", "").replace("</answer>", "")
    if "no answer" in text:
        return INVALID
    if "boxed{" in text:
        return _clear(text.split("boxed{")[1].split("}")[0])
    for keyword in KEYWORDS:
        if keyword in text:
            return _clear(text.split(keyword)[-1].split(",")[0].split(".")[0])
    head = _clear(text.split(".")[0])
    return head if head in LETTERS else INVALID


def mmsivideo_official(item: Item, query: QueryPoint, text: str | None) -> Scored:
    pred = mmsi_answer(text)
    if pred is None or pred not in LETTERS:  # the assert fails, or extract_answer raised
        return Scored(None, 0.0, False, "mmsi-official")
    return Scored(pred, 1.0 if pred == query.answer else 0.0, True, "mmsi-official")


def mmsivideo_paper(item: Item, query: QueryPoint, text: str | None) -> Scored:
    boxed = _BOXED.search(text or "")
    inside = boxed.group(1).strip().upper() if boxed else ""
    letter = inside if inside in item.letters and inside else leading_letter(text, item.letters)
    if letter is None:
        return Scored(None, 0.0, False, "paper")
    return Scored(letter, 1.0 if letter == query.answer else 0.0, True, "paper")


def mmsivideo_table(records: Iterable[Scorable]) -> Table:
    """Overall and the 13 types, as the printer prints them; other types after them."""
    recs = _records(records)
    by_type = _group(recs, lambda r: r.task)

    def row(name: str, group: list) -> dict:
        return {"type": name, "n": len(group), "invalid": sum(1 for r in group if not r.valid),
                "accuracy": sum(float(r.score or 0) for r in group) / len(group) if group
                else None}  # fmt: skip

    rows = [row("Overall", recs)] + [row(t, by_type.get(t, [])) for t in TYPES]
    extra = sorted(set(by_type) - set(TYPES))
    rows += [row(t, by_type[t]) for t in extra]
    official = any(r.rule not in (None, "paper") for r in recs)
    notes = [f"{'official' if official else 'paper'} reading; Overall micro over every "
             f"question; failure count / total count: {rows[0]['invalid']} / {len(recs)}; "
             "offline: every clip shown whole, no query time"]  # fmt: skip
    missing = [t for t in TYPES if t not in by_type]
    if missing:
        notes.append("types of evaluation.py's list the run lacks (its printer would raise a "
                     "KeyError): " + ", ".join(missing))  # fmt: skip
    if extra:
        notes.append("types outside evaluation.py's list (averaged, never printed by it): "
                     + ", ".join(extra))  # fmt: skip
    return Table(MMSIVideoAdapter.title, ("type", "n", "invalid", "accuracy"), tuple(rows),
                 tuple(notes))  # fmt: skip


def mmsivideo_headline(table: Table) -> dict[str, float | None]:
    return {str(r["type"]): r["accuracy"] for r in table.rows if r["type"] in ("Overall", *TYPES)}


__all__ = [
    "KEYWORDS",
    "mmsi_answer",
    "mmsivideo_headline",
    "mmsivideo_official",
    "mmsivideo_paper",
    "mmsivideo_table",
]

"""Turning rendered episodes into benchmark items, family by family.

For each family, candidate query frames are drawn (seeded) over the episode and the generator
is tried at each until it has produced ``per_family`` distinct questions.  Letters are dealt
per family by a :class:`~streamspatial.sim.qa.draft.LetterDealer` that lives as long as the
:class:`QuestionGenerator`, so balance holds across the whole benchmark, not just per video.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from streamspatial.core.schema import Item
from streamspatial.sim.types import EpisodeMeta

from . import explore, maps, ovos, s3, s3_chains, ucs, vcbench  # noqa: F401  (register the families)
from .draft import Draft, LetterDealer, to_item
from .registry import FAMILIES, Episode, Family
from .vcbench import IDENTITY_LABELS, identity_persistence

IDENTITY_KEY = "vc.identity_persistence"
CLASS_SLACK = 1
# Open-ended answers (room and object names, counts): no answer text may hold more than about
# half of a family's items, plus a little slack so small benchmarks still fill.
OPEN_SHARE = 0.5
OPEN_SLACK = 2


class QuestionGenerator:
    """Generates the questions of many episodes with letters balanced across all of them."""

    def __init__(
        self,
        seed: int,
        *,
        per_family: int = 3,
        reserve: int = 0,
        families: Iterable[str] | None = None,
        min_pixels: int | None = None,
    ):
        self.seed = seed
        self.per_family = per_family
        self.reserve = reserve  # extra questions per family per episode, marked meta["reserve"]
        keys = sorted(FAMILIES) if families is None else list(families)
        unknown = [k for k in keys if k not in FAMILIES]
        if unknown:
            raise KeyError(f"unknown question families: {', '.join(unknown)}")
        self.families: list[Family] = [FAMILIES[k] for k in keys]
        self.min_pixels = min_pixels
        self._dealers: dict[str, LetterDealer] = {}
        self._classes: dict[str, Counter[str]] = {}
        self._texts: dict[str, Counter[str]] = {}
        self._arrange = random.Random(f"{seed}:arrange")

    def _dealer(self, key: str) -> LetterDealer:
        if key not in self._dealers:
            self._dealers[key] = LetterDealer(random.Random(f"{self.seed}:letters:{key}"))
        return self._dealers[key]

    def drafts(self, meta: EpisodeMeta, episode_id: str) -> list[Draft]:
        """Every family's drafts for one episode (chain heads precede their tails)."""
        ep = Episode(meta, min_pixels=self.min_pixels)
        n = len(meta.frames)
        out: list[Draft] = []
        for fam in self.families:
            rng = random.Random(f"{self.seed}:{episode_id}:{fam.key}")
            lo = min(n - 1, round(fam.min_history_s * meta.fps))
            cands = list(range(lo, n))
            rng.shuffle(cands)
            seen: set[str] = set()
            made = 0
            want = self.per_family + self.reserve
            for k in cands[: want * 8]:
                if made >= want:
                    break
                batch = fam.generate(ep, k, random.Random(rng.random()))
                sig = "|".join(_signature(d) for d in batch)
                if not batch or sig in seen or not self._admit(batch[-1]):
                    continue
                seen.add(sig)
                for d in batch:
                    d.meta["family"] = fam.key
                    if made >= self.per_family:
                        d.meta["reserve"] = True
                out.extend(batch)
                made += 1
        return out

    def _admit(self, d: Draft) -> bool:
        """Keep fixed-class families balanced over the whole benchmark.

        A class may run at most CLASS_SLACK ahead of the family's rarest class.  Without this,
        a class the trajectories rarely offer (a revisit in a short walk) is outnumbered, and
        a blind model answering the common class scores far above chance.
        """
        if d.answer_class is None:
            return self._admit_open(d)
        counts = self._classes.setdefault(d.family, Counter())
        if counts[d.answer_class] >= min(counts[c] for c in d.classes) + CLASS_SLACK:
            return False
        counts[d.answer_class] += 1
        return True

    def _admit_open(self, d: Draft) -> bool:
        """Keep any one correct answer text from dominating a choice family.

        Some answers are favoured by the houses themselves: the first room on a shortest
        route is nearly always the hub (the living room), so a blind model answering "living
        room" would beat chance by far.  Numbers, image options (unique per item) and
        multi-query items (whose answers follow the query order) are not capped.
        """
        if not d.is_choice or d.images or len(d.queries) > 1:
            return True
        counts = self._texts.setdefault(d.family, Counter())
        text = str(d.queries[0].answer)
        if counts[text] >= OPEN_SHARE * sum(counts.values()) + OPEN_SLACK:
            return False
        counts[text] += 1
        return True

    def items(self, meta: EpisodeMeta, *, video: str, episode_id: str) -> list[Item]:
        """Items of one walk-through episode, ids ``<episode>-<family>-<n>``, in time order."""
        return self._finish(self.drafts(meta, episode_id), video=video, episode_id=episode_id)

    def identity_items(self, meta: EpisodeMeta, *, video: str, episode_id: str) -> list[Item]:
        """The rotating-camera identity-persistence probe for a spin-in-place episode."""
        ep = Episode(meta, min_pixels=self.min_pixels)
        rng = random.Random(f"{self.seed}:{episode_id}:{IDENTITY_KEY}")
        drafts = identity_persistence(ep, len(meta.frames) - 1, rng)
        for d in drafts:
            d.meta["family"] = IDENTITY_KEY
        return self._finish(drafts, video=video, episode_id=episode_id)

    def _finish(self, drafts: list[Draft], *, video: str, episode_id: str) -> list[Item]:
        counters: dict[str, int] = {}
        ids_by_key: dict[str, str] = {}
        items: list[Item] = []
        for d in drafts:
            n = counters.get(d.family, 0)
            counters[d.family] = n + 1
            item_id = f"{episode_id}-{d.family.replace('.', '-').replace('_', '-')}-{n:03d}"
            if d.key:
                ids_by_key[d.key] = item_id
            if d.family == IDENTITY_KEY:
                fmt, lab = "vcbench", IDENTITY_LABELS
            else:
                fam = FAMILIES[d.family]
                fmt, lab = fam.format, fam.labels
            items.append(
                to_item(
                    d,
                    item_id=item_id,
                    benchmark=fmt,
                    video=video,
                    labels=lab,
                    dealer=self._dealer(d.family),
                    rng=self._arrange,
                    depends_on=ids_by_key[d.depends_on] if d.depends_on else None,
                )
            )
        items.sort(key=lambda it: (it.queries[-1].time, it.id))
        return items


def _signature(d: Draft) -> str:
    return f"{d.family}|{d.question}|{d.queries[0].time}|{d.intent}"

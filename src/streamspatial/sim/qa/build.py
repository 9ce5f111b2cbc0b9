"""Turning rendered episodes into benchmark items, family by family.

For each family, candidate query frames are drawn (seeded) over the episode and the generator
is tried at each until it has produced ``per_family`` distinct questions (plus ``reserve``
spares, marked ``meta["reserve"]``, that bias pruning may swap in), each admitted only while
the family's answers stay balanced (:mod:`.balance`).  Letters are dealt
per family by a :class:`~streamspatial.sim.qa.draft.LetterDealer` that lives as long as the
:class:`QuestionGenerator`, so balance holds across the whole benchmark, not just per video.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from streamspatial.core.schema import Item
from streamspatial.sim.types import EpisodeMeta

from . import (  # noqa: F401  (register the families)
    changes,
    explore,
    maps,
    ovos,
    ovos_local,
    ovos_motion,
    ovos_rooms,
    ovos_simulate,
    s3,
    s3_chains,
    ucs,
    vcbench,
    vcbench_events,
)
from .balance import BINS, OPEN_CLASSES, Balancer, time_bin
from .draft import Draft, LetterDealer, to_item
from .registry import FAMILIES, Episode, Family
from .vcbench import IDENTITY_LABELS, identity_persistence

IDENTITY_KEY = "vc.identity_persistence"
# Candidate query frames tried per wanted question; families whose answers are balanced over
# bins or classes reject more drafts and get more tries.
TRIES = 8
BALANCED_TRIES = 48


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
        group: int = 0,
    ):
        """``group``: which group of walks asked together this is (``sim.pipeline.jobs``); group 0
        deals letters and orders items from the seed's own streams, group g > 0 from its own."""
        self.seed = seed
        self._stream = f"{seed}" if group == 0 else f"{seed}/{group}"
        self.per_family = per_family
        self.reserve = reserve  # extra questions per family per episode, marked meta["reserve"]
        keys = sorted(FAMILIES) if families is None else list(families)
        unknown = [k for k in keys if k not in FAMILIES]
        if unknown:
            raise KeyError(f"unknown question families: {', '.join(unknown)}")
        self.families: list[Family] = [FAMILIES[k] for k in keys]
        self.min_pixels = min_pixels
        self._dealers: dict[str, LetterDealer] = {}
        self._balance = Balancer()
        self._arrange = random.Random(f"{self._stream}:arrange")

    def _dealer(self, key: str) -> LetterDealer:
        if key not in self._dealers:
            self._dealers[key] = LetterDealer(random.Random(f"{self._stream}:letters:{key}"))
        return self._dealers[key]

    def drafts(self, meta: EpisodeMeta, episode_id: str) -> list[Draft]:
        """Every family's drafts for one episode (chain heads precede their tails)."""
        ep = Episode(meta, min_pixels=self.min_pixels)
        n = len(meta.frames)
        duration = n / meta.fps
        out: list[Draft] = []
        for fam in self.families:
            if fam.dynamic and meta.schedule is None:
                continue  # nothing moves in a static walk (trying its frames took 70 % of the time)
            rng = random.Random(f"{self.seed}:{episode_id}:{fam.key}")
            lo = min(n - 1, round(fam.min_history_s * meta.fps))
            cands = list(range(lo, n))
            rng.shuffle(cands)
            seen: set[str] = set()
            made = 0
            want = self.per_family + self.reserve
            tries = BALANCED_TRIES if fam.key in BINS or fam.balanced or fam.timed else TRIES
            for k in cands[: want * tries]:
                if made >= want:
                    break
                when = time_bin((k + 0.5) / meta.fps, duration) if fam.timed else None
                token = OPEN_CLASSES.set(self._balance.admits(fam.key, when))
                try:
                    batch = fam.generate(ep, k, random.Random(rng.random()))
                finally:
                    OPEN_CLASSES.reset(token)
                sig = "|".join(_signature(d) for d in batch)
                if not batch or sig in seen or not self._keys_allow(batch):
                    continue
                if not self._balance.admit(batch[-1], duration if fam.timed else None):
                    continue
                seen.add(sig)
                for d in batch:
                    self._finish_options(d, rng)
                    d.meta["family"] = fam.key
                    if made >= self.per_family:
                        d.meta["reserve"] = True
                out.extend(batch)
                made += 1
        return out

    def _finish_options(self, d: Draft, rng: random.Random) -> None:
        """Trim an over-full option list with distractors drawn like answers fall."""
        if d.n_options is not None and len(d.choices) > d.n_options:
            instance_of = dict(zip(d.choices, d.choice_instances, strict=False))
            d.choices = [str(d.queries[0].answer), *self._balance.pick_distractors(d, rng)]
            if d.choice_instances:
                d.choice_instances = tuple(instance_of[c] for c in d.choices)
                d.intent["instances"] = list(d.choice_instances)
        self._balance.record(d)

    def _keys_allow(self, batch: list[Draft]) -> bool:
        """No draft of the batch (a chain's head too) has an answer whose option key (its
        category) has won more than its showings allow (``Balancer.keys_allow``)."""
        return all(self._balance.keys_allow(d) for d in batch)

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

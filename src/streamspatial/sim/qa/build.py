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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from streamspatial.core.schema import Item
from streamspatial.scene.types import EpisodeMeta

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
# A family still short after the first pass gathers, per walk, up to this many times the
# questions wanted a walk for each answer class (families with fixed classes), or this many
# in all (the others), and takes them round the walks (``QuestionGenerator.group_drafts``).
POOL_PER_CLASS = 1
POOL_OPEN = 3


@dataclass
class _Slot:
    """One family in one walk: its questions taken, their signatures, its option draws."""

    rng: random.Random
    made: int = 0
    seen: set[str] = field(default_factory=set)


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
        return self.group_drafts([(meta, episode_id)])[0]

    def group_drafts(
        self, walks: list[tuple[EpisodeMeta, str]], tick: Callable[[], None] | None = None
    ) -> list[list[Draft]]:
        """Every family's drafts for each of ``walks``, balanced over all of them.

        First each walk in turn offers each family's questions, as many as the balance
        admits then.  A family about rare things is starved that way: a walk asked before
        any walk has shown its rarest answer admits one question of each other answer
        (``CLASS_SLACK``), and walks asked later find the common answers full.  So each
        family left short of ``per_family`` a walk over the group then gathers every
        question its walks offer (:meth:`_pool`) and takes them round the walks, one a walk
        a round, while the balance admits them (:meth:`_take_round`).  Twenty one-minute
        walks of seed 6161 offered OVO-S 3.2.1 121 questions where a prop appeared, 121
        where one disappeared, 25 where one moved and 722 where nothing changed, and the
        first pass alone kept 22 of them.
        """
        eps = [Episode(meta, min_pixels=self.min_pixels) for meta, _ in walks]
        want = self.per_family + self.reserve
        slots = [
            {
                f.key: _Slot(random.Random(f"{self.seed}:{eid}:{f.key}:options"))
                for f in self.families
            }
            for _, eid in walks
        ]
        out: list[list[Draft]] = [[] for _ in walks]
        for i, (meta, episode_id) in enumerate(walks):
            for fam in self.families:
                if fam.dynamic and meta.schedule is None:
                    continue  # nothing moves in a static walk (its frames took 70 % of the time)
                slot = slots[i][fam.key]
                for sig, batch in self._offers(fam, eps[i], meta, episode_id):
                    if sig not in slot.seen and self._take(fam, batch, meta, slot, sig):
                        out[i].extend(batch)
                        if slot.made >= want:
                            break
            if tick is not None:
                tick()
        for fam in self.families:
            if sum(s[fam.key].made for s in slots) >= self.per_family * len(walks):
                continue
            pools = [
                self._pool(fam, eps[i], meta, episode_id, slots[i][fam.key].seen)
                if not (fam.dynamic and meta.schedule is None) and slots[i][fam.key].made < want
                else []
                for i, (meta, episode_id) in enumerate(walks)
            ]
            while self._take_round(fam, pools, walks, [s[fam.key] for s in slots], out):
                pass
        return out

    def _offers(
        self,
        fam: Family,
        ep: Episode,
        meta: EpisodeMeta,
        episode_id: str,
        *,
        pool: bool = False,
        only: str | None = None,
    ) -> Iterator[tuple[str, list[Draft]]]:
        """The family's questions at seeded query frames, with their signatures.  A balanced
        family draws its answer class among those the balance admits now; for the ``pool``,
        at every frame, class ``only`` (None: any class)."""
        stream = f"{self.seed}:{episode_id}:{fam.key}"
        rng = random.Random(stream if not pool else f"{stream}:pool:{only or ''}")
        n = len(meta.frames)
        duration = n / meta.fps
        lo = min(n - 1, round(fam.min_history_s * meta.fps))
        cands = list(range(lo, n))
        rng.shuffle(cands)
        want = self.per_family + self.reserve
        tries = BALANCED_TRIES if fam.key in BINS or fam.balanced or fam.timed else TRIES
        for k in cands if pool else cands[: want * tries]:
            when = time_bin((k + 0.5) / meta.fps, duration) if fam.timed else None
            if pool:
                admits = None if only is None else only.__eq__
            else:
                admits = self._balance.admits(fam.key, when)
            token = OPEN_CLASSES.set(admits)
            try:
                batch = fam.generate(ep, k, random.Random(rng.random()))
            finally:
                OPEN_CLASSES.reset(token)
            if batch:
                for d in batch:
                    d.meta["family"] = fam.key
                yield "|".join(_signature(d) for d in batch), batch

    def _take(
        self, fam: Family, batch: list[Draft], meta: EpisodeMeta, slot: _Slot, sig: str
    ) -> bool:
        """Admit the batch into the walk's ``slot`` of the family if the balance allows it."""
        if not self._keys_allow(batch):
            return False
        duration = len(meta.frames) / meta.fps
        if not self._balance.admit(batch[-1], duration if fam.timed else None):
            return False
        for d in batch:
            self._finish_options(d, slot.rng)
            if slot.made >= self.per_family:
                d.meta["reserve"] = True
        slot.seen.add(sig)
        slot.made += 1
        return True

    def _pool(
        self, fam: Family, ep: Episode, meta: EpisodeMeta, episode_id: str, seen: set[str]
    ) -> list[tuple[str, list[Draft]]]:
        """The questions the family offers in the walk beyond those taken: up to
        ``POOL_PER_CLASS`` times the questions wanted a walk per answer class, for a family
        without fixed classes ``POOL_OPEN`` times."""
        classes = self._balance.classes.get(fam.key)
        want = self.per_family + self.reserve
        cap = want * (POOL_PER_CLASS if classes else POOL_OPEN)
        got: dict[str, list[Draft]] = {}
        # A class at a time: drawn among all at each frame, a rare class is drawn at a
        # fifth of its frames, and those then mostly find the same latest one.
        for only in classes or (None,):
            have = 0
            for sig, batch in self._offers(fam, ep, meta, episode_id, pool=True, only=only):
                if sig in seen or sig in got or (only and batch[-1].answer_class != only):
                    continue
                got[sig] = batch
                have += 1
                if have >= cap:
                    break
        return list(got.items())

    def _take_round(
        self,
        fam: Family,
        pools: list[list[tuple[str, list[Draft]]]],
        walks: list[tuple[EpisodeMeta, str]],
        slots: list[_Slot],
        out: list[list[Draft]],
    ) -> bool:
        """One question a walk, the first of its pool the balance admits; False when no walk
        took one."""
        added = False
        for i, (meta, _) in enumerate(walks):
            if slots[i].made >= self.per_family + self.reserve:
                continue
            for j, (sig, batch) in enumerate(pools[i]):
                if self._take(fam, batch, meta, slots[i], sig):
                    out[i].extend(batch)
                    del pools[i][j]
                    added = True
                    break
        return added

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

    def group_items(
        self, walks: list[tuple[EpisodeMeta, str, str]], tick: Callable[[], None] | None = None
    ) -> list[list[Item]]:
        """Items of walk-through episodes ``(meta, video, episode_id)`` asked together
        (:meth:`group_drafts`; ``tick()`` after each walk's first pass), per walk, each in
        time order."""
        drafts = self.group_drafts([(meta, eid) for meta, _, eid in walks], tick)
        return [
            self._finish(d, video=video, episode_id=eid)
            for d, (_, video, eid) in zip(drafts, walks, strict=True)
        ]

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

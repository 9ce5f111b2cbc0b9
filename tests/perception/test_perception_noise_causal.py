"""The noise model draws false and confused labels from the stream's past only.

A false detection named after an object that appears only later in the video would tell the
memory, through its noise, what is still to come.  Two properties pin it: every noisy label at
frame i names something truly visible by frame i, and the noisy observations up to frame k are
the same whatever the video shows after k.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.perception.ground_truth import SimGroundTruth, label_of
from streamspatial.perception.noise import NoiseModel, PrefixVocabulary
from streamspatial.scene.types import (
    CameraPose,
    EpisodeMeta,
    FrameRecord,
    House,
    Intrinsics,
    Room,
    SceneObject,
    Visible,
)

CATEGORIES = ["sofa", "chair", "coffee_table", "lamp", "bed", "plant", "tv", "fridge"]
COLORS = ["red", "blue", "green", "black", "white", "teal", "pink", "brown"]


def episode(first_seen: list[int], n: int = 40) -> EpisodeMeta:
    """One object per category; object k is visible from frame ``first_seen[k]`` on."""
    room = Room(1, "living_room", "living room", ((0, 0), (8, 0), (8, 8), (0, 8)), 64.0)
    objs = tuple(
        SceneObject(k + 1, CATEGORIES[k], 1, (1.0 + k * 0.7, 4.0, 0.5), (0.5, 0.5, 0.8), 0.0,
                    COLORS[k], (0.5, 0.5, 0.5), "wood")
        for k in range(len(first_seen))
    )  # fmt: skip
    house = House("h", 0, (room,), (), (), objs)
    frames = []
    for i in range(n):
        vis = tuple(
            Visible(k + 1, 800, (10, 10, 60, 60), 2.0)
            for k, first in enumerate(first_seen)
            if i >= first
        )
        frames.append(FrameRecord(i, CameraPose(i / 4.0, (1.0 + 0.05 * i, 1.0, 1.5), 0.1), 1, vis))
    return EpisodeMeta(house, Intrinsics.from_vfov(160, 120, 60), 4.0, tuple(frames), video="v.mp4")


def observe_all(meta: EpisodeMeta, noise: NoiseModel, upto: int) -> list:
    provider = SimGroundTruth(meta, noise=noise)
    provider.advance(upto / meta.fps)
    return [provider.observe(i) for i in range(upto + 1)]


def seen_by(meta: EpisodeMeta, i: int) -> tuple[set[str], set[str]]:
    by_id = {o.instance_id: o for o in meta.house.objects}
    labels, colors = set(), set()
    for rec in meta.frames[: i + 1]:
        for v in rec.visible:
            labels.add(label_of(by_id[v.instance_id].category))
            colors.add(by_id[v.instance_id].color)
    return labels, colors


LOUD = NoiseModel(miss_rate=0.2, false_rate=3.0, confusion=0.8, seed=7)


def test_no_noisy_label_or_colour_names_an_object_not_yet_seen() -> None:
    meta = episode([0, 0, 10, 20, 25, 30, 35, 39])
    future_names = 0
    for i, obs in enumerate(observe_all(meta, LOUD, 39)):
        labels, colors = seen_by(meta, i)
        for d in obs.detections:
            future_names += d.label not in labels or not set(d.attributes) <= colors
    assert future_names == 0
    # the noise is real: false and confused detections happened, with the seen names
    obs = observe_all(meta, LOUD, 39)
    assert sum(d.track_id is None for o in obs for d in o.detections) > 50


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(min_value=0, max_value=30),
    later=st.lists(st.integers(min_value=0, max_value=39), min_size=8, max_size=8),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_noise_up_to_frame_k_ignores_what_comes_after(k: int, later: list[int], seed: int) -> None:
    base = [0, 0, 5, 12, 18, 25, 31, 36]
    # the same first k frames, any other future (objects appearing at other times after k)
    other = [b if b <= k else max(k + 1, x) for b, x in zip(base, later, strict=True)]
    noise = dataclasses.replace(LOUD, seed=seed)
    a = observe_all(episode(base), noise, k)
    b = observe_all(episode(other), noise, k)
    assert a == b


def test_prefix_vocabulary_grows_with_the_stream() -> None:
    vocab = PrefixVocabulary([(["sofa"], ["red"]), ([], []), (["lamp", "sofa"], ["teal"])])
    assert vocab.at(0) == (["sofa"], ["red"])
    assert vocab.at(1) == (["sofa"], ["red"])
    assert vocab.at(2) == (["lamp", "sofa"], ["red", "teal"])
    assert vocab.at(-1) == ([], [])


@pytest.mark.parametrize("noise", [0.0, 1.0])
def test_capture_provider_draws_from_its_prefix_too(noise: float) -> None:
    from streamspatial.perception.capture import CaptureGroundTruth

    frames = []
    for i in range(30):
        vis = [1] + ([2] if i >= 20 else [])
        pose = [[1, 0, 0, 0.1 * i], [0, 1, 0, 0], [0, 0, 1, 1.5], [0, 0, 0, 1]]
        frames.append({"t": i / 2.0, "pose": pose, "visible": vis})
    data = {
        "format": "streamspatial-boxes3d",
        "version": 1,
        "intrinsics": {"width": 160, "height": 120, "fx": 100, "fy": 100, "cx": 80, "cy": 60},
        "objects": [
            {"id": 1, "label": "sofa", "center": [2, 0, 3], "attributes": ["red"]},
            {"id": 2, "label": "grand_piano", "center": [2, 1, 3], "attributes": ["black"]},
        ],
        "frames": frames,
    }
    model = dataclasses.replace(LOUD, seed=3) if noise else NoiseModel()
    provider = CaptureGroundTruth(data, source="cap.json", noise=model)
    provider.advance(19 / 2.0)
    early = [provider.observe(i) for i in range(20)]
    dets = [d for o in early for d in o.detections]
    assert all(d.label == "sofa" and "black" not in d.attributes for d in dets)

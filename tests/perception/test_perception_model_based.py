"""Model-based perception: tiny randomly initialised Depth Anything and OWL-ViT checkpoints,
built and saved in the test (no download), loaded through the real ``from_pretrained`` path.

Random weights make the detections meaningless, so the tests pin the plumbing and geometry
exactly: every detection is anchored where its box centre, the depth map and the pose put it;
the vocabulary is the one given; frames are refused before the stream reaches them; option
mistakes are one line.  The geometry is also checked with hand-made depth and boxes.
"""

from __future__ import annotations

import json
import math
import string
from pathlib import Path

import numpy as np
import pytest

from streamspatial.core.errors import CausalityError, InputError, StreamspatialError
from streamspatial.perception.model_based import (
    DepthModel,
    ModelPerception,
    OpenVocabDetector,
    default_labels,
)
from streamspatial.perception.spec import open_perception
from streamspatial.perception.types import CameraIntrinsics

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

LABELS = ["chair", "sofa", "floor lamp"]
H, W = 48, 64


def build_tiny_depth(folder: Path, kind: str = "metric") -> Path:
    """A 4-layer Dinov2-backed Depth Anything (hidden size 32) and its image processor."""
    from transformers import (
        DepthAnythingConfig,
        DepthAnythingForDepthEstimation,
        Dinov2Config,
        DPTImageProcessor,
    )

    torch.manual_seed(0)
    backbone = Dinov2Config(
        hidden_size=32,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=64,
        image_size=56,
        patch_size=14,
        out_features=["stage1", "stage2", "stage3", "stage4"],
        reshape_hidden_states=False,
    )
    config = DepthAnythingConfig(
        backbone_config=backbone,
        neck_hidden_sizes=[16, 16, 16, 16],
        reassemble_hidden_size=32,
        fusion_hidden_size=16,
        head_hidden_size=8,
        depth_estimation_type=kind,
        max_depth=10,
    )
    DepthAnythingForDepthEstimation(config).eval().save_pretrained(folder)
    DPTImageProcessor(
        size={"height": 56, "width": 56}, keep_aspect_ratio=False, ensure_multiple_of=14
    ).save_pretrained(folder)
    return folder


def build_tiny_owlvit(folder: Path) -> Path:
    """A 2-layer OWL-ViT with a character-level CLIP tokenizer written from scratch."""
    from transformers import (
        CLIPTokenizer,
        OwlViTConfig,
        OwlViTForObjectDetection,
        OwlViTImageProcessor,
        OwlViTProcessor,
    )

    folder.mkdir(parents=True, exist_ok=True)
    # OWL-ViT marks padded queries by a first token id of 0, so the start token must not be 0
    vocab = {"!": 0, "<|startoftext|>": 1}
    for c in string.ascii_lowercase + string.digits + " -'.":
        for t in (c, c + "</w>"):
            vocab.setdefault(t, len(vocab))
    vocab["<|endoftext|>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    tokenizer = CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), pad_token="!")
    torch.manual_seed(0)
    config = OwlViTConfig(
        text_config={
            "vocab_size": len(vocab),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 32,
            "bos_token_id": 1,
            "eos_token_id": len(vocab) - 1,
            "pad_token_id": 0,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 64,
            "patch_size": 16,
        },
        projection_dim=32,
    )
    OwlViTForObjectDetection(config).eval().save_pretrained(folder)
    processor = OwlViTProcessor(
        image_processor=OwlViTImageProcessor(
            size={"height": 64, "width": 64}, crop_size={"height": 64, "width": 64}
        ),
        tokenizer=tokenizer,
    )
    processor.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-perception")
    return {
        "depth": build_tiny_depth(root / "depth"),
        "relative": build_tiny_depth(root / "relative", kind="relative"),
        "detector": build_tiny_owlvit(root / "owlvit"),
    }


def images(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 255, (H, W, 3), dtype=np.uint8) for _ in range(n)]


def test_tiny_checkpoints_load_from_folders_and_run(models):
    depth = DepthModel(models["depth"])
    img = images(1)[0]
    d = depth(img)
    assert d.shape == (H, W) and np.all(d > 0) and depth.metric
    rel = DepthModel(models["relative"], depth_scale=3.0)
    assert not rel.metric
    assert float(np.median(rel(img))) == pytest.approx(3.0)  # relative: median pinned
    det = OpenVocabDetector(models["detector"], LABELS, threshold=0.0)
    boxes = det(img)
    assert boxes, "threshold 0 keeps every query box"
    for label, score, (x0, y0, x1, y1) in boxes:
        assert label in LABELS and 0 <= score <= 1
        assert 0 <= x0 < x1 <= W - 1 and 0 <= y0 < y1 <= H - 1


def test_spec_opens_the_provider_and_anchors_every_box_through_depth_and_pose(models):
    spec = (
        f"model:depth={models['depth']},detector={models['detector']},"
        f"labels={';'.join(LABELS)},threshold=0"
    )
    prov = open_perception(spec, "unused.mp4", fps=5.0, n_frames=3)
    assert isinstance(prov, ModelPerception) and prov.needs_images
    assert prov.labels == sorted(LABELS)
    frames = images(3)
    with pytest.raises(CausalityError):
        prov.observe(0, frames[0])
    prov.advance(0.4)
    k = CameraIntrinsics.from_hfov(W, H, 60.0)
    anchored = 0
    for i, img in enumerate(frames):
        obs = prov.observe(i, img)
        assert obs.time == i / 5.0
        assert {d.label for d in obs.detections} <= set(LABELS)
        anchored += len(obs.detections)
        depth = prov.depth(img)  # deterministic: the same map the provider used
        for det in obs.detections:
            x0, y0, x1, y1 = det.bbox
            qx, qy = (x1 - x0) / 4, (y1 - y0) / 4
            d = float(np.median(depth[int(y0 + qy) : int(y1 - qy) + 1,
                                      int(x0 + qx) : int(x1 - qx) + 1]))  # fmt: skip
            assert det.depth == pytest.approx(d)
            cam = k.backproject(np.array((x0 + x1) / 2), np.array((y0 + y1) / 2), np.array(d))
            assert det.position == pytest.approx(tuple(obs.pose.from_camera(cam)))
            assert det.track_id is None  # no mask tracker: the memory associates by 3D
    assert anchored > 0


def test_geometry_with_hand_made_depth_and_boxes():
    """Camera at the origin facing +x, 1.5 m eye height is not assumed: the pose is the
    dead-reckoned one (origin, heading 0) and a box centred on the principal point at 2 m
    depth lands 2 m ahead; a box at the right edge lands to the right (−y)."""
    k = CameraIntrinsics(64, 48, 50.0, 50.0, 32.0, 24.0)
    prov = ModelPerception(
        2.0,
        labels=["chair", "lamp"],
        depth=lambda img: np.full(img.shape[:2], 2.0),
        detector=lambda img: [("chair", 0.9, (28, 20, 36, 28)), ("lamp", 0.8, (56, 20, 63, 28))],
        intrinsics=k,
    )
    prov.advance(0.0)
    obs = prov.observe(0, np.zeros((48, 64, 3), np.uint8))
    chair, lamp = obs.detections
    assert chair.position == pytest.approx((2.0, 0.0, 0.0))
    u = (56 + 63) / 2
    assert lamp.position == pytest.approx((2.0, -(u - 32.0) / 50.0 * 2.0, 0.0))
    assert chair.visibility == 64.0 and obs.extra["median_depth"] == 2.0


def test_without_a_depth_model_objects_sit_at_the_assumed_depth():
    prov = ModelPerception(
        1.0, labels=["chair"], detector=lambda img: [("chair", 1.0, (30, 22, 34, 26))]
    )
    prov.advance(0.0)
    (det,) = prov.observe(0, np.zeros((48, 64, 3), np.uint8)).detections
    assert det.depth == 2.0 and math.hypot(*det.position[:2]) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("model:labels=chair", "give depth=DIR and/or detector=DIR"),
        ("model:depth=/nonexistent/folder", "config.json"),
        ("model:detector=/x,threshold=high", "expected a number for threshold"),
        ("model:depht=/x", "unknown option 'depht'"),
    ],
)
def test_option_mistakes_are_one_line(spec, message):
    with pytest.raises((InputError, StreamspatialError), match=message) as exc:
        open_perception(spec, "v.mp4", fps=5.0)
    assert "\n" not in str(exc.value)


def test_default_vocabulary_is_the_simulator_classes():
    labels = default_labels()
    assert "sofa" in labels and "coffee table" in labels and labels == sorted(set(labels))

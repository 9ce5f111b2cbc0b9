"""Ground-truth perception: causality of the stream, the 3D-annotation loader format, the
noise model and ``--perception`` spec strings."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import CausalityError, InputError, StreamspatialError
from streamspatial.perception import (
    UNIT_NOISE,
    CaptureGroundTruth,
    NoiseModel,
    capture_path_for,
    open_perception,
    parse_perception,
)
from streamspatial.perception.capture import pose_from_matrix
from streamspatial.perception.ground_truth import SimGroundTruth
from streamspatial.perception.noise import NoiseState
from streamspatial.perception.types import CameraIntrinsics, Detection, EgoPose, Observation
from streamspatial.scene.types import (
    CameraPose,
    EpisodeMeta,
    FrameRecord,
    House,
    Intrinsics,
    Room,
    SceneObject,
    Visible,
    save_episode_meta,
)

# -- a tiny simulator episode written in the real metadata format ----------------------------


def tiny_meta(n: int = 20, fps: float = 2.0) -> EpisodeMeta:
    room = Room(1, "kitchen", "kitchen", ((0, 0), (6, 0), (6, 6), (0, 6)), 36.0)
    objs = (
        SceneObject(
            1,
            "coffee_table",
            1,
            (3.0, 1.0, 0.3),
            (1.0, 0.6, 0.6),
            0.0,
            "red",
            (0.8, 0.1, 0.1),
            "wood",
        ),
        SceneObject(
            2, "chair", 1, (5.0, 4.0, 0.5), (0.5, 0.5, 1.0), 0.0, "blue", (0.1, 0.1, 0.8), "wood"
        ),
    )
    house = House("h", 0, (room,), (), (), objs)
    frames = []
    for i in range(n):
        pose = CameraPose(i / fps, (1.0 + 0.1 * i, 1.0, 1.5), 0.0)
        vis = (
            (Visible(1, 500, (10, 10, 50, 40), 2.0),)
            if i % 2 == 0
            else (Visible(1, 500, (10, 10, 50, 40), 2.0), Visible(2, 5, (0, 0, 2, 2), 4.0))
        )
        frames.append(FrameRecord(i, pose, 1, vis))
    return EpisodeMeta(
        house, Intrinsics.from_vfov(160, 120, 60), fps, tuple(frames), video="tiny.mp4"
    )


def test_ground_truth_reads_metadata_with_labels_attributes_and_scene(tmp_path):
    save_episode_meta(tiny_meta(), tmp_path / "tiny.mp4.meta.json.gz")
    prov = open_perception("ground-truth", tmp_path / "tiny.mp4")
    assert isinstance(prov, SimGroundTruth)
    obs = list(prov.catch_up(1.0))
    assert [o.index for o in obs] == [0, 1, 2]
    d = obs[0].detections[0]
    assert (d.label, d.attributes, d.track_id, d.position) == (
        "coffee table",
        ("red",),
        1,
        (3.0, 1.0, 0.3),
    )
    assert obs[0].scene == "kitchen"
    # the 5-pixel glimpse of the chair is below the generators' "seen" threshold
    assert all(len(o.detections) == 1 for o in obs)


def test_provider_refuses_frames_after_the_stream_time():
    prov = SimGroundTruth(tiny_meta())
    prov.advance(2.0)
    prov.observe(4)
    with pytest.raises(CausalityError):
        prov.observe(5)  # t = 2.5 s > 2.0 s
    with pytest.raises(CausalityError):
        prov.advance(1.0)  # time never goes back without a reset
    with pytest.raises(ValueError, match="in order"):
        prov.observe(3)
    prov.reset()
    prov.advance(0.0)
    assert prov.observe(0).index == 0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 12), min_size=1, max_size=8))
def test_catch_up_never_returns_a_later_frame(times):
    prov = SimGroundTruth(tiny_meta())
    now = 0.0
    for t in sorted(times):
        for o in prov.catch_up(t):
            assert o.time <= t + 1e-9
        now = t
    assert prov.last_index == min(19, math.floor(now * 2.0 + 1e-9))


def test_missing_metadata_is_one_clear_line(tmp_path):
    with pytest.raises(InputError, match=r"v\.mp4\.meta\.json\.gz .*v\.mp4\.boxes3d\.json"):
        open_perception("ground-truth", tmp_path / "v.mp4")


# -- the 3D-annotated capture format ---------------------------------------------------------


def capture_doc(**over):
    doc = {
        "format": "streamspatial-boxes3d",
        "version": 1,
        "world_up": "z",
        "camera": "opencv",
        "intrinsics": {"width": 640, "height": 480, "fx": 500, "fy": 500, "cx": 320, "cy": 240},
        "objects": [
            {
                "id": 3,
                "label": "chair",
                "center": [2.0, 0.0, 0.45],
                "size": [0.5, 0.5, 0.9],
                "attributes": ["red"],
            },
            {"id": 5, "label": "tv", "center": [0.0, 3.0, 1.2]},
        ],
        # camera at (0,0,1.5) looking along +x: right = -y, down = -z, forward = +x
        "frames": [
            {
                "t": 0.0,
                "pose": [[0, 0, 1, 0], [-1, 0, 0, 0], [0, -1, 0, 1.5], [0, 0, 0, 1]],
                "visible": [3],
                "scene": "office",
            },
            {
                "t": 0.5,
                "pose": [[0, 0, 1, 0], [-1, 0, 0, 0], [0, -1, 0, 1.5], [0, 0, 0, 1]],
                "visible": [3, {"id": 5, "bbox": [1, 2, 3, 4], "pixels": 40}],
            },
            {
                "t": 1.5,
                "pose": [[0, 0, 1, 0], [-1, 0, 0, 0], [0, -1, 0, 1.5], [0, 0, 0, 1]],
                "visible": [],
            },
        ],
    }
    doc.update(over)
    return doc


def test_capture_loader_reads_poses_boxes_and_irregular_times(tmp_path):
    path = capture_path_for(tmp_path / "scan.mp4")
    path.write_text(json.dumps(capture_doc()))
    prov = open_perception("ground-truth", tmp_path / "scan.mp4")
    assert isinstance(prov, CaptureGroundTruth)
    obs = list(prov.catch_up(0.6))
    assert [o.time for o in obs] == [0.0, 0.5]
    assert obs[0].pose.position == (0.0, 0.0, 1.5)
    assert obs[0].pose.yaw == pytest.approx(0.0) and obs[0].pose.pitch == pytest.approx(0.0)
    chair = obs[0].detections[0]
    assert (chair.label, chair.attributes, chair.depth) == ("chair", ("red",), pytest.approx(2.0))
    assert [d.track_id for d in obs[1].detections] == [3, 5]
    assert obs[1].detections[1].bbox == (1, 2, 3, 4)
    with pytest.raises(CausalityError):
        prov.observe(2)  # t = 1.5 s, stream at 0.6 s


def test_arkit_style_y_up_opengl_pose_converts_to_the_same_heading():
    # y-up world, OpenGL camera looking down -z: a camera looking along world -z (y-up)
    # looks along +y in the z-up world (x, y, z) -> (x, -z, y)
    m = np.eye(4)
    m[:3, 3] = [1.0, 1.6, -2.0]
    pose = pose_from_matrix(m, time=0.0, camera="opengl", world_up="y")
    assert pose.position == pytest.approx((1.0, 2.0, 1.6))
    assert pose.yaw == pytest.approx(math.pi / 2)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "scannet"}, "format"),
        ({"world_up": "x"}, "world_up"),
        ({"intrinsics": {"fx": 1}}, "intrinsics"),
        ({"frames": []}, "frames"),
    ],
)
def test_capture_loader_names_the_bad_field(tmp_path, change, field):
    path = tmp_path / "bad.boxes3d.json"
    path.write_text(json.dumps(capture_doc(**change)))
    with pytest.raises(InputError, match=f"field '{field}'"):
        CaptureGroundTruth.load(path)


def test_capture_loader_rejects_unknown_visible_ids_and_unordered_frames(tmp_path):
    doc = capture_doc()
    doc["frames"][1]["visible"] = [99]
    p = tmp_path / "a.boxes3d.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"frames\[1\]\.visible"):
        CaptureGroundTruth.load(p)
    doc = capture_doc()
    doc["frames"][2]["t"] = 0.1
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"frames\[2\]\.t"):
        CaptureGroundTruth.load(p)


# -- the noise model -------------------------------------------------------------------------


def walk_obs(i: int) -> Observation:
    pose = EgoPose(i * 0.5, (0.5 * i, 0.0, 1.5), 0.0)
    dets = tuple(Detection(f"l{k}", (0.5 * i + 3, k - 2.0, 0.5), k + 1) for k in range(5))
    return Observation(i, i * 0.5, pose, dets, "hall")


def test_zero_noise_is_the_identity():
    state = NoiseState(NoiseModel(), "v")
    o = walk_obs(3)
    assert state.apply(o, ["a", "b"]) is o


def test_noise_is_deterministic_per_seed_and_video():
    m = NoiseModel.scaled(1.0, seed=1)
    runs = []
    for key in ("v", "v", "w"):
        s = NoiseState(m, key)
        runs.append([s.apply(walk_obs(i), ["l0", "l1", "l2"]) for i in range(30)])
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_pose_drift_grows_with_distance_walked():
    m = NoiseModel(pos_drift_per_m=0.05, yaw_drift_per_m=0.02, seed=0)
    errs = []
    for seed in range(40):
        s = NoiseState(m.with_(seed=seed), "v")
        out = [s.apply(walk_obs(i), []) for i in range(200)]
        errs.append([math.dist(out[i].pose.position, walk_obs(i).pose.position) for i in (10, 199)])
    early, late = np.mean(errs, axis=0)
    assert 0 < early < late


def test_objects_are_anchored_through_the_drifted_pose():
    """Drift moves objects with the map: their offset from the camera is preserved."""
    s = NoiseState(NoiseModel(pos_drift_per_m=0.1, yaw_drift_per_m=0.05), "v")
    for i in range(50):
        true, noisy = walk_obs(i), s.apply(walk_obs(i), [])
    for d_true, d_noisy in zip(true.detections, noisy.detections, strict=True):
        assert noisy.pose.to_ego(d_noisy.position) == pytest.approx(
            true.pose.to_ego(d_true.position), abs=1e-9
        )


def test_miss_false_and_confusion_rates_match_their_parameters():
    labels = [f"l{k}" for k in range(5)]
    m = NoiseModel(miss_rate=0.3, false_rate=0.5, confusion=0.2)
    s = NoiseState(m, "v")
    kept = false = swapped = 0
    n = 2000
    for i in range(n):
        out = s.apply(walk_obs(i), labels)
        real = [d for d in out.detections if d.track_id is not None]
        kept += len(real)
        false += len(out.detections) - len(real)
        swapped += sum(d.label != f"l{d.track_id - 1}" for d in real)
    assert kept / (5 * n) == pytest.approx(0.7, abs=0.02)
    assert false / n == pytest.approx(0.5, abs=0.05)
    assert swapped / kept == pytest.approx(0.2, abs=0.02)


# -- spec strings ----------------------------------------------------------------------------


def test_spec_scales_the_documented_defaults_and_allows_overrides():
    s = parse_perception("ground-truth[:noise=0.1]")
    assert s.kind == "ground-truth" and s.noise == NoiseModel.scaled(0.1)
    assert s.noise.miss_rate == pytest.approx(UNIT_NOISE.miss_rate * 0.1)
    assert s.label == "ground-truth:noise=0.1"
    o = parse_perception("gt:noise=0.5,miss=0,seed=4")
    assert o.noise.miss_rate == 0 and o.noise.seed == 4
    assert o.noise.depth_rel_std == pytest.approx(UNIT_NOISE.depth_rel_std * 0.5)
    assert o.label == "ground-truth:noise=0.5,miss=0,seed=4"
    assert parse_perception("ground-truth").noise.perfect
    assert parse_perception("classical").kind == "classical"


@pytest.mark.parametrize(
    "bad",
    [
        "lidar",
        "ground-truth:noise=-1",
        "ground-truth:noise=abc",
        "ground-truth:wobble=1",
        "ground-truth:noise",
        "ground-truth:miss=2",
    ],
)
def test_bad_spec_is_a_one_line_user_error(bad):
    with pytest.raises(StreamspatialError, match="--perception"):
        parse_perception(bad)


def test_intrinsics_backproject_and_project_roundtrip():
    k = CameraIntrinsics.from_hfov(320, 240, 60)
    u, v, z = np.array([10.0, 160, 300]), np.array([20.0, 120, 200]), np.array([1.0, 2, 3])
    pts = k.backproject(u, v, z)
    assert k.project(pts) == pytest.approx(np.stack([u, v], 1))
    pose = EgoPose(0, (1, 2, 1.5), 0.7, 0.1)
    assert pose.to_camera(pose.from_camera(pts)) == pytest.approx(pts)

"""Weight-free ego-motion on simulator-rendered frames: the sign of a turn and of a step.

The renderer gives frames whose camera motion is known exactly, so the estimator's two
answers — which way the camera turned, and whether it moved forward or backward — can be
checked against the truth, frame pair by frame pair, with no learned weights anywhere.
"""

from __future__ import annotations

import itertools
import math
import os

import pytest

os.environ.setdefault("MUJOCO_GL", "egl")  # before anything imports mujoco
pytest.importorskip("mujoco")
pytest.importorskip("cv2")

from streamspatial.core.errors import CausalityError
from streamspatial.perception.classical import ClassicalEgoMotion, EgoMotionEstimator
from streamspatial.perception.spec import open_perception
from streamspatial.perception.types import CameraIntrinsics
from streamspatial.scene.types import CameraPose
from streamspatial.sim.house.layout import generate_house
from streamspatial.sim.render.process import RenderProcess

SIZE = (256, 192)
EYE = 1.5


@pytest.fixture(scope="module")
def scene():
    """A renderer, its intrinsics, and a standpoint with open floor ahead (largest room)."""
    from streamspatial.sim.house.occupancy import occupancy

    house = generate_house(11)
    room = max(house.rooms, key=lambda r: r.area)
    occ = occupancy(house)

    def clear_ahead(x, y, yaw):
        return sum(
            occ.is_free(x + math.cos(yaw) * d, y + math.sin(yaw) * d)
            for d in (0.1 * k for k in range(30))
        )

    # The free standpoint of the room with the longest run of free floor ahead (furniture
    # stands everywhere else), facing along one of the room's axes.
    rr, cc = (occ.room == room.room_id).nonzero()
    cands = [occ.to_world(r, c) for r, c in zip(rr, cc, strict=True)]
    start, yaw = max(
        ((p, a) for p in cands for a in (0.0, math.pi / 2, math.pi, -math.pi / 2)),
        key=lambda pa: (clear_ahead(*pa[0], pa[1]), -abs(pa[0][0]) - abs(pa[0][1])),
    )
    assert room.contains(*start) and clear_ahead(*start, yaw) >= 15
    with RenderProcess(house, SIZE) as r:
        k = r.intrinsics
        yield r, CameraIntrinsics(k.width, k.height, k.fx, k.fy, k.cx, k.cy), start, yaw


def frames(renderer, poses):
    return [renderer.render(p).rgb for p in poses]


def turn(start, yaw0, step_deg, n):
    return [
        CameraPose(i / 5, (start[0], start[1], EYE), yaw0 + math.radians(step_deg) * i)
        for i in range(n)
    ]


def walk(start, yaw, step_m, n):
    c, s = math.cos(yaw), math.sin(yaw)
    return [
        CameraPose(i / 5, (start[0] + c * step_m * i, start[1] + s * step_m * i, EYE), yaw)
        for i in range(n)
    ]


@pytest.mark.parametrize("step_deg", [3.0, -3.0])
def test_rotation_sign_and_size_in_place(scene, step_deg):
    """Flat-shaded rooms give few corners, so a pair may be left undecided (``ok`` False),
    but a decided pair never has the wrong sign, and most pairs are decided."""
    r, k, start, yaw = scene
    est = EgoMotionEstimator(k)
    imgs = frames(r, turn(start, yaw, step_deg, 8))
    motions = [est.estimate(a, b) for a, b in itertools.pairwise(imgs)]
    decided = [m for m in motions if m.ok]
    assert len(decided) >= 0.8 * len(motions)
    for m in decided:
        assert math.copysign(1, m.yaw) == math.copysign(1, step_deg)  # + = left
        assert math.degrees(m.yaw) == pytest.approx(step_deg, abs=0.5)
        assert m.forward == 0  # turning on the spot is no step


@pytest.mark.parametrize("direction", [1, -1])
def test_forward_and_backward_steps(scene, direction):
    r, k, start, yaw = scene
    poses = walk(start, yaw, 0.12, 8)
    if direction < 0:
        poses = poses[::-1]
    imgs = frames(r, poses)
    est = EgoMotionEstimator(k)
    motions = [est.estimate(a, b) for a, b in itertools.pairwise(imgs)]
    steps = [m.forward for m in motions if m.ok]
    assert -direction not in steps  # never the wrong way
    assert steps.count(direction) >= 0.8 * len(motions)
    for m in motions:
        assert abs(math.degrees(m.yaw)) < 2.0  # no turn was made (a 12 cm step is short)


def test_provider_dead_reckons_heading_and_steps_causally(scene):
    """The provider integrates the per-pair estimates: a left turn, then a forward walk."""
    r, k, start, yaw = scene
    poses = turn(start, yaw, 4.0, 6) + walk(start, yaw, 0.12, 6)
    imgs = frames(r, poses)
    prov = ClassicalEgoMotion(5.0, len(imgs), intrinsics=k)
    with pytest.raises(CausalityError):  # frames are observed only once the stream is there
        prov.observe(0, imgs[0])
    prov.advance(len(imgs) / 5)
    obs = [prov.observe(i, img) for i, img in enumerate(imgs)]
    turned = math.degrees(obs[5].pose.yaw)
    decided = sum(o.extra["motion"] is not None and o.extra["motion"].ok for o in obs[1:6])
    assert turned == pytest.approx(4.0 * decided, abs=1.5)  # the decided pairs add up
    assert decided >= 4
    assert obs[5].pose.position[:2] == (0.0, 0.0)  # turning in place moved nothing
    stepped = sum(o.extra["motion"].forward for o in obs[7:])
    assert stepped >= 4  # one scale-free unit per forward step
    assert math.hypot(*obs[-1].pose.position[:2]) == pytest.approx(stepped, abs=0.05)


def test_open_perception_classical_needs_the_frame_rate(tmp_path):
    from streamspatial.core.errors import StreamspatialError

    with pytest.raises(StreamspatialError, match="frame rate"):
        open_perception("classical", tmp_path / "v.mp4")
    prov = open_perception("classical", tmp_path / "v.mp4", fps=10.0, n_frames=5)
    assert isinstance(prov, ClassicalEgoMotion) and prov.needs_images

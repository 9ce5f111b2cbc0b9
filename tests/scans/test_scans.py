"""Real-scan readers, visibility by projection, and the round trip simulator → scan → benchmark.

A small static simulator benchmark is exported in each dataset's layout (``scans export``),
read back and rebuilt (``scans build``): visibility must agree with the renderer's instance
ids, every question both benchmarks ask must have the same answer, the files must validate,
and the rules agent with ground-truth perception must answer the scan-built items.  The
geometry parts (rasteriser, boxes, alpha-shape area) are checked against exact values, and
broken scan files against their one-line errors.
"""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("mujoco")
pytest.importorskip("plyfile")

from streamspatial.core.errors import InputError
from streamspatial.scans.boxes import fit_box, obb_box
from streamspatial.scans.raster import rasterize
from streamspatial.scans.rooms import alpha_area
from streamspatial.scans.types import Camera

CAM = Camera(64, 48, 50.0, 50.0, 31.5, 23.5)


def quad(x0, x1, y0, y1, z):
    v = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], float)
    return v, np.array([[0, 1, 2], [0, 2, 3]])


@settings(max_examples=40, deadline=None)
@given(
    st.floats(-0.6, 0.2),
    st.floats(0.05, 0.5),
    st.floats(-0.4, 0.1),
    st.floats(0.05, 0.4),
    st.floats(0.5, 4.0),
)
def test_a_facing_rectangle_covers_exactly_the_pixel_centres_inside_it(x0, w, y0, h, z):
    v, f = quad(x0, x0 + w, y0, y0 + h, z)
    depth, face = rasterize(v, f, CAM)
    u = CAM.fx * np.array([x0, x0 + w]) / z + CAM.cx
    r = CAM.fy * np.array([y0, y0 + h]) / z + CAM.cy
    cols = np.arange(CAM.width)
    rows = np.arange(CAM.height)
    inside_c = (cols >= u[0] + 1e-6) & (cols <= u[1] - 1e-6)
    inside_r = (rows >= r[0] + 1e-6) & (rows <= r[1] - 1e-6)
    edge_c = np.isclose(cols, u[0], atol=1e-6) | np.isclose(cols, u[1], atol=1e-6)
    edge_r = np.isclose(rows, r[0], atol=1e-6) | np.isclose(rows, r[1], atol=1e-6)
    covered = face >= 0
    sure = np.outer(inside_r, inside_c)
    maybe = np.outer(inside_r | edge_r, inside_c | edge_c)
    assert (covered >= sure).all() and (covered <= maybe).all()
    assert np.allclose(depth[sure], z, rtol=1e-5)


def test_the_nearer_surface_wins_and_a_triangle_behind_the_camera_is_clipped():
    far_v, far_f = quad(-1, 1, -1, 1, 3.0)
    near_v, near_f = quad(-0.1, 0.1, -0.1, 0.1, 1.0)
    v = np.vstack([far_v, near_v])
    f = np.vstack([far_f, near_f + 4])
    depth, face = rasterize(v, f, CAM)
    assert set(np.unique(face[23:25, 31:33])) <= {2, 3}  # the near quad's triangles
    assert np.isclose(depth[10, 20], 3.0) and np.isinf(depth[0, 0])
    # a floor running from behind the camera to 5 m ahead: only its front part is drawn
    floor = np.array([[-1, 1, -2.0], [1, 1, -2.0], [1, 1, 5.0], [-1, 1, 5.0]])
    d2, f2 = rasterize(floor, np.array([[0, 1, 2], [0, 2, 3]]), CAM)
    drawn = d2[np.isfinite(d2)]
    assert drawn.size and drawn.min() >= 0.02 - 1e-9 and drawn.max() <= 5.0 + 1e-6
    assert (f2[: CAM.height // 2] == -1).all()  # the floor is below the horizon


def test_boxes_are_recovered_from_points_and_from_oriented_boxes():
    rng = np.random.default_rng(0)
    yaw = 0.4
    local = rng.uniform(-1, 1, (500, 3)) * np.array([0.8, 0.3, 0.5])
    local[:8] = np.array([[x, y, z] for x in (-0.8, 0.8) for y in (-0.3, 0.3) for z in (-0.5, 0.5)])
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    pts = local @ rot.T + np.array([2.0, -1.0, 0.5])
    box = fit_box(pts)
    assert np.allclose(sorted(box.size), sorted([1.6, 0.6, 1.0]), atol=1e-9)
    assert np.allclose(box.center, (2.0, -1.0, 0.5), atol=1e-9)
    assert math.isclose(math.cos(2 * (box.yaw - yaw)) ** 2, 1.0, abs_tol=1e-9)
    upright = obb_box([1, 2, 3], [0.5, 0.4, 0.3], [c, s, 0, -s, c, 0, 0, 0, 1])
    assert upright.size == (0.5, 0.4, 0.3) and math.isclose(upright.yaw, yaw)


def test_the_alpha_shape_area_is_the_floor_area_for_convex_and_concave_rooms():
    rng = np.random.default_rng(1)
    rect = rng.uniform([0, 0], [4, 5], (10_000, 2))
    assert alpha_area(rect) == pytest.approx(20.0, rel=0.02)
    ell = rng.uniform([0, 0], [6, 6], (40_000, 2))
    ell = ell[(ell[:, 0] < 3) | (ell[:, 1] < 3)][:10_000]  # an L: 27 m², its hull 36
    assert alpha_area(ell) == pytest.approx(27.0, rel=0.03)


# -- the round trip -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sim_bench(tmp_path_factory):
    from streamspatial.sim.generate import generate_benchmark
    from streamspatial.sim.pipeline.config import GenerateConfig

    out = tmp_path_factory.mktemp("sim")
    cfg = GenerateConfig(
        out=out,
        houses=1,
        minutes=0.25,
        size=(160, 120),
        furniture="boxes",
        events=False,
        prune=False,
        seed=3,
    )
    generate_benchmark(cfg)
    return out


@pytest.fixture(scope="module", params=["scannet", "arkitscenes", "scannetpp"])
def round_trip(request, sim_bench, tmp_path_factory):
    from streamspatial.scans.build import ScanBuildConfig, build_scans
    from streamspatial.scans.export import export_scans

    fmt = request.param
    root = tmp_path_factory.mktemp(f"{fmt}-scans")
    written = export_scans(sim_bench, fmt, root)
    out = tmp_path_factory.mktemp(f"{fmt}-bench")
    result = build_scans(
        ScanBuildConfig(
            out=out, dataset=fmt, root=root, fps=10.0, size=(160, 120), prune=False, seed=3
        )
    )
    return fmt, written, result


def test_export_writes_each_dataset_layout(round_trip):
    fmt, written, _ = round_trip
    (scene,) = written
    name = scene.name
    expect = {
        "scannet": [
            f"{name}_vh_clean_2.ply",
            f"{name}_vh_clean_2.0.010000.segs.json",
            f"{name}.aggregation.json",
            "color/0.jpg",
            "depth/0.png",
            "pose/0.txt",
            "intrinsic/intrinsic_color.txt",
            "intrinsic/intrinsic_depth.txt",
            "../scannetv2-labels.combined.tsv",
        ],
        "arkitscenes": [
            f"{name}_3dod_annotation.json",
            f"{name}_3dod_mesh.ply",
            f"{name}_frames/lowres_wide.traj",
            f"{name}_frames/lowres_wide/{name}_1000.000.png",
            f"{name}_frames/lowres_depth/{name}_1000.000.png",
            f"{name}_frames/lowres_wide_intrinsics/{name}_1000.000.pincam",
        ],
        "scannetpp": [
            "scans/mesh_aligned_0.05_semantic.ply",
            "scans/segments_anno.json",
            "iphone/pose_intrinsic_imu.json",
            "iphone/rgb/frame_000000.jpg",
            "iphone/depth/frame_000000.png",
        ],
    }[fmt]
    for rel in expect:
        assert (scene / rel).is_file(), rel


def test_visibility_agrees_with_the_renderers_instance_ids(round_trip, sim_bench):
    from streamspatial.scans.agreement import visibility_agreement
    from streamspatial.scene.camera import min_pixels_for
    from streamspatial.scene.types import load_episode_meta
    from streamspatial.sim.qa.export import episode_dir

    fmt, _, result = round_trip
    (name,) = result.scenes
    sim = load_episode_meta(episode_dir(sim_bench) / f"{name}.mp4")
    scan = load_episode_meta(result.out / "videos" / fmt / f"{name}.mp4")
    got = visibility_agreement(sim, scan, min_pixels_for(160, 120))
    assert got.total > 100 and got.share >= 0.95, got
    # the boxes are the house's
    truth = {o.instance_id: o for o in sim.house.objects}
    assert {o.instance_id for o in scan.house.objects} == set(truth)
    for o in scan.house.objects:
        t = truth[o.instance_id]
        assert o.category == t.category
        assert np.allclose(o.position, t.position, atol=0.02)
        assert np.allclose(sorted(o.size), sorted(t.size), atol=0.03)


def test_every_question_both_ask_has_the_same_answer(round_trip, sim_bench):
    from streamspatial.scans.agreement import answer_agreement
    from streamspatial.sim.qa.export import read_items

    _, _, result = round_trip
    got, bad = answer_agreement(read_items(sim_bench), read_items(result.out))
    assert got.total >= 40 and not bad, bad[:5]


def test_the_scan_benchmark_validates_and_names_what_scans_cannot_ask(round_trip):
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.scans.families import scan_families

    fmt, _, result = round_trip
    manifest = json.loads((result.out / "manifest.json").read_text())
    assert manifest["dataset"] == fmt
    assert "ovos.optimal_path" in manifest["not_on_scans"]
    assert "vc.e1_action" in manifest["not_on_scans"]
    assert not set(manifest["not_on_scans"]) & set(scan_families())
    for key, path in result.files.items():
        if key in ("items", "manifest"):
            continue
        _, items = load_benchmark(path, videos=result.out / "videos")
        assert items
    fams = {it.meta["family"] for it in result.items}
    assert fams <= set(scan_families()) and len(fams) >= 15


def test_the_rules_agent_answers_the_scan_built_items(round_trip):
    from streamspatial.api import evaluate

    fmt, _, result = round_trip
    if fmt != "scannet":
        pytest.skip("one dataset is enough for the agent: the records are the same")
    for key, path in result.files.items():
        if key in ("items", "manifest"):
            continue
        res = evaluate(
            path,
            result.out / "videos",
            agent="scene-graph-rules",
            policy="none",
            perception="ground-truth",
        )
        records = res.records
        assert records and all(r.score == 1.0 for r in records), key


def test_resume_keeps_the_scenes_already_built(round_trip, tmp_path):
    from streamspatial.scans.build import ScanBuildConfig, build_scans

    fmt, written, result = round_trip
    if fmt != "scannetpp":
        pytest.skip("resume is the same code for every dataset")
    out = tmp_path / "again"
    shutil.copytree(result.out, out)
    (name,) = result.scenes
    video = out / "videos" / fmt / f"{name}.mp4"
    before = video.stat().st_mtime_ns
    again = build_scans(
        ScanBuildConfig(
            out=out,
            dataset=fmt,
            root=written[0].parent,
            fps=10.0,
            size=(160, 120),
            prune=False,
            seed=3,
            resume=True,
        )
    )
    assert video.stat().st_mtime_ns == before
    assert [it.id for it in again.items] == [it.id for it in result.items]


# -- broken scans: one line naming the file and the field ---------------------------------


def test_broken_scans_name_the_file_and_the_field(round_trip, tmp_path):
    from streamspatial.scans.readers import read_scan

    fmt, written, _ = round_trip
    scene = tmp_path / written[0].name
    shutil.copytree(written[0], scene)
    if fmt == "scannet":
        segs = scene / f"{scene.name}_vh_clean_2.0.010000.segs.json"
        d = json.loads(segs.read_text())
        d["segIndices"] = d["segIndices"][:-1]
        segs.write_text(json.dumps(d))
        want = ("segs.json", "segIndices")
        shutil.copy(written[0].parent / "scannetv2-labels.combined.tsv", tmp_path)
    elif fmt == "arkitscenes":
        anno = scene / f"{scene.name}_3dod_annotation.json"
        d = json.loads(anno.read_text())
        del d["data"][0]["segments"]["obbAligned"]["axesLengths"]
        anno.write_text(json.dumps(d))
        want = ("_3dod_annotation.json", "data[0].segments.obbAligned.axesLengths")
    else:
        poses = scene / "iphone" / "pose_intrinsic_imu.json"
        d = json.loads(poses.read_text())
        del d["frame_000000"]["aligned_pose"]
        poses.write_text(json.dumps(d))
        want = ("pose_intrinsic_imu.json", "frame_000000.aligned_pose")
    with pytest.raises(InputError) as e:
        read_scan(fmt, scene)
    msg = str(e.value)
    assert all(w in msg for w in want) and "\n" not in msg, msg


def test_the_cli_refuses_two_sources_with_exit_2(tmp_path):
    from typer.testing import CliRunner

    from streamspatial.cli import app

    r = CliRunner().invoke(
        app,
        [
            "scans",
            "build",
            "--scannet",
            str(tmp_path),
            "--arkitscenes",
            str(tmp_path),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code != 0
    assert not (tmp_path / "o").exists()


def test_the_cli_builds_what_the_library_builds(round_trip, tmp_path):
    """``scans build``'s flags are ScanBuildConfig's fields: the command with the fixture's
    settings writes the items and manifest that ``build_scans`` wrote."""
    from typer.testing import CliRunner

    from streamspatial.cli import app

    fmt, written, result = round_trip
    out = tmp_path / "cli"
    flags = ["--fps", "10", "--size", "160x120", "--no-prune", "--seed", "3", "--no-progress"]
    r = CliRunner().invoke(
        app, ["scans", "build", f"--{fmt}", str(written[0].parent), "--out", str(out), *flags]
    )
    assert r.exit_code == 0, r.output
    for name in ("items.jsonl", "manifest.json"):
        assert (out / name).read_text() == (result.out / name).read_text(), name


# -- VSI-Bench metadata -----------------------------------------------------------------------


def _meta_scene(rng, n_objects=7):
    cats = ["chair", "table", "sofa", "bed", "tv", "lamp", "sink", "stool", "desk", "door"]
    bbox: dict = {}
    for k in range(n_objects):
        cat = cats[k % len(cats)]
        yaw = rng.uniform(-math.pi, math.pi)
        c, s = math.cos(yaw), math.sin(yaw)
        bbox.setdefault(cat, []).append(
            {
                "centroid": [rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(0.2, 1.0)],
                "axesLengths": [rng.uniform(0.3, 2), rng.uniform(0.3, 2), rng.uniform(0.3, 1.5)],
                "normalizedAxes": [c, s, 0, -s, c, 0, 0, 0, 1],
            }
        )
    return {
        "room_size": rng.uniform(10, 50),
        "object_counts": {k: len(v) for k, v in bbox.items()},
        "object_bbox": bbox,
    }


def test_vsibench_meta_questions_are_vsibench_files_answered_from_the_boxes(tmp_path):
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.scans.vsimeta import MetaBox, build_vsibench_meta, closest

    rng = np.random.default_rng(5)
    meta = {f"scene{k:04d}_00": _meta_scene(rng, 8 + k % 5) for k in range(6)}
    path = tmp_path / "scannet_meta_info_val.json"
    path.write_text(json.dumps(meta))
    files = build_vsibench_meta(path, tmp_path / "out", prune=False)
    rows = [json.loads(x) for x in files["release"].read_text().splitlines()]
    types = {r["question_type"] for r in rows}
    assert types == {
        "object_counting",
        "object_size_estimation",
        "object_abs_distance",
        "room_size_estimation",
        "object_rel_direction_v2",
        "object_rel_distance",
    }
    _, items = load_benchmark(files["release"])
    assert len(items) == len(rows)
    for r in rows:
        rec = meta[r["scene_name"]]
        if r["question_type"] == "room_size_estimation":
            assert r["ground_truth"] == round(rec["room_size"], 1)
        if r["question_type"] == "object_size_estimation":
            cat = next(c for c in rec["object_bbox"] if f"of the {c}," in r["question"])
            assert r["ground_truth"] == round(max(rec["object_bbox"][cat][0]["axesLengths"]) * 100)
    # closest points of two unit cubes 1 m apart face to face
    eye = np.eye(3)
    a = MetaBox("a", np.zeros(3), np.ones(3), eye)
    b = MetaBox("b", np.array([2.0, 0, 0]), np.ones(3), eye)
    assert closest(a, b) == pytest.approx(1.0, abs=1e-9)


def test_vsibench_meta_errors_name_the_scene_and_field(tmp_path):
    from streamspatial.scans.vsimeta import read_meta

    rng = np.random.default_rng(2)
    scene = _meta_scene(rng)
    del scene["object_bbox"]["chair"][0]["axesLengths"]
    path = tmp_path / "arkitscenes_meta_info_val.json"
    path.write_text(json.dumps({"41069025": scene}))
    with pytest.raises(InputError) as e:
        read_meta(path)
    assert "41069025" in str(e.value) and "object_bbox.chair[0].axesLengths" in str(e.value)


def test_a_scan_with_no_placed_frame_names_the_file_that_should_have_placed_them(tmp_path):
    from streamspatial.scans._read import from_first

    with pytest.raises(InputError) as err:
        from_first([], tmp_path / "pose", "at least one valid camera pose")
    assert str(tmp_path / "pose") in str(err.value)
    assert "at least one valid camera pose" in str(err.value)


def test_scans_build_and_sim_generate_word_a_bad_video_setting_alike(tmp_path):
    from streamspatial.scans.build import ScanBuildConfig
    from streamspatial.sim.pipeline.config import GenerateConfig

    said = []
    for cfg in (
        ScanBuildConfig(out=tmp_path, dataset="scannet", root=tmp_path, fps=0.0, size=(15, 16)),
        GenerateConfig(out=tmp_path, fps=0.0, size=(15, 16)),
    ):
        with pytest.raises(InputError) as err:
            cfg.check()
        said.append(str(err.value))
    for text in said:
        assert "--fps must be positive, got 0.0" in text
        assert "--size must be even and at least 16x16, got 15x16" in text

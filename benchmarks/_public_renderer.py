"""The baseline both render benchmarks hold our renderer against: MuJoCo's public API.

A user who wants RGB, metric depth and instance ids from MuJoCo without our renderer would
call ``mujoco.Renderer`` three times a frame (colour, depth, segmentation) and compute the
same visibility records; that is the fairest baseline, so ``render_speed.py`` and ``sim.py``
time exactly that, on our compiled model, with every geom drawn (no per-view culling).
"""

from __future__ import annotations

import time

import numpy as np

from streamspatial.sim.render.renderer import HouseRenderer, camera_quat, visibility


def public_three_pass_fps(r: HouseRenderer, poses, size: tuple[int, int]) -> float:
    """Frames per second of three ``mujoco.Renderer`` passes + visibility over ``poses``."""
    import mujoco  # here, after streamspatial.sim.render.renderer chose the GL backend

    model, data, lut = r.model, r.data, r._geom_instance
    model.geom_group[:] = 0
    pub = mujoco.Renderer(model, height=size[1], width=size[0])
    try:
        t = time.perf_counter()
        for p in poses:
            data.mocap_pos[0] = p.position
            data.mocap_quat[0] = camera_quat(p)
            mujoco.mj_forward(model, data)
            pub.update_scene(data, camera="eye")
            pub.render()
            pub.enable_depth_rendering()
            depth = pub.render()
            pub.disable_depth_rendering()
            pub.enable_segmentation_rendering()
            seg = pub.render()
            pub.disable_segmentation_rendering()
            ids = np.where(seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM), lut[seg[..., 0]], 0)
            visibility(ids.astype(np.int32), depth)
        return len(poses) / (time.perf_counter() - t)
    finally:
        pub.close()

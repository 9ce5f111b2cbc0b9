"""A simulator house as a scan's mesh: every drawn geom of its MuJoCo model, in world space.

``scans export`` writes a generated benchmark's walks in the datasets' layouts, and a scan
layout holds a mesh.  The mesh is the one the renderer draws: the house's MuJoCo model
(:func:`streamspatial.sim.render.renderer.textured_model`, or the box scene of a ``boxes``
house), its geoms posed by ``mj_forward`` (meshes as compiled, boxes, planes and the round
primitives triangulated), each geom one segment.  Geoms named ``obj_<id>_…`` belong to object
``<id>`` and take its measured colour; the rest is structure, and a structure geom lying on
the floor plane is floor.  Compiling the model opens no GL context, so this runs in-process.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from streamspatial.scene.types import House

FLOOR_TOP = 0.02  # m: a structure geom whose top is below this is floor
HIDDEN = 3  # geom groups from here up are never drawn (the renderer's culling group)


@dataclass(frozen=True, eq=False)
class HouseMesh:
    vertices: np.ndarray  # (N, 3)
    faces: np.ndarray  # (M, 3)
    colors: np.ndarray  # (N, 3) uint8
    segment: np.ndarray  # (N,) the geom each vertex came from
    instance: np.ndarray  # (N,) object id, 0 for structure
    floor: np.ndarray  # (N,) bool


def _primitive(kind: int, size: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    import mujoco
    import trimesh

    g = mujoco.mjtGeom
    if kind == g.mjGEOM_BOX:
        m = trimesh.creation.box(extents=2 * size[:3])
    elif kind == g.mjGEOM_PLANE:
        hx, hy = (s if s > 0 else 50.0 for s in size[:2])
        v = np.array([[-hx, -hy, 0], [hx, -hy, 0], [hx, hy, 0], [-hx, hy, 0]], float)
        return v, np.array([[0, 1, 2], [0, 2, 3]])
    elif kind == g.mjGEOM_CYLINDER:
        m = trimesh.creation.cylinder(radius=size[0], height=2 * size[1], sections=24)
    elif kind == g.mjGEOM_CAPSULE:
        m = trimesh.creation.capsule(radius=size[0], height=2 * size[1], count=[12, 12])
    elif kind == g.mjGEOM_SPHERE:
        m = trimesh.creation.icosphere(subdivisions=2, radius=size[0])
    elif kind == g.mjGEOM_ELLIPSOID:
        m = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
        m.apply_scale(size[:3])
    else:
        return None
    return np.asarray(m.vertices, float), np.asarray(m.faces, np.int64)


def house_mesh(house: House, size: tuple[int, int], vfov_deg: float) -> HouseMesh:
    import mujoco

    from streamspatial.sim.render.renderer import scene_xml, textured_model

    w, h = size
    if house.style == "textured":
        model = textured_model(house, w, h, vfov_deg)
    else:
        model = mujoco.MjModel.from_xml_string(scene_xml(house, w, h, vfov_deg))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rgb_of = {o.instance_id: o.rgb for o in house.objects}
    verts, faces, cols, segs, insts = [], [], [], [], []
    n = 0
    for g in range(model.ngeom):
        if model.geom_group[g] >= HIDDEN:
            continue
        rgba = model.geom_rgba[g].copy()
        mat = model.geom_matid[g]
        if mat >= 0:
            rgba = rgba * model.mat_rgba[mat]
        if rgba[3] <= 0:
            continue
        kind = model.geom_type[g]
        if kind == mujoco.mjtGeom.mjGEOM_MESH:
            k = model.geom_dataid[g]
            va, vn = model.mesh_vertadr[k], model.mesh_vertnum[k]
            fa, fn = model.mesh_faceadr[k], model.mesh_facenum[k]
            local = np.asarray(model.mesh_vert[va : va + vn], float)
            tri = np.asarray(model.mesh_face[fa : fa + fn], np.int64)
        else:
            prim = _primitive(kind, model.geom_size[g])
            if prim is None:
                continue
            local, tri = prim
        world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or ""
        head, _, rest = name.partition("_")
        iid = int(rest.split("_")[0]) if head == "obj" and rest[:1].isdigit() else 0
        color = rgb_of.get(iid, tuple(rgba[:3]))
        verts.append(world)
        faces.append(tri + n)
        cols.append(np.tile(np.round(np.clip(color, 0, 1) * 255).astype(np.uint8), (len(world), 1)))
        segs.append(np.full(len(world), g, np.int32))
        insts.append(np.full(len(world), iid, np.int32))
        n += len(world)
    v = np.concatenate(verts)
    seg = np.concatenate(segs)
    inst = np.concatenate(insts)
    floor = np.zeros(len(v), dtype=bool)
    for g in np.unique(seg[inst == 0]):
        sel = seg == g
        if v[sel, 2].max() < FLOOR_TOP:
            floor[sel] = True
    return HouseMesh(v, np.concatenate(faces), np.concatenate(cols), seg, inst, floor)

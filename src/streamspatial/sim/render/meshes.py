"""Meshes of flat pieces: rectangles on a plane and boxes, as vertex, normal, uv and face arrays.

What the scene builder (:mod:`streamspatial.sim.house.assets.mjcf`) is handed for the house's
structure (:mod:`.structure`), its door leaves (:mod:`.door_leaf`) and box-world objects: plain
NumPy, so the same geometry can be checked without a GL context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from streamspatial.sim.house.assets.mjcf import SceneBuilder


def quads(rects, origin, along, up, normal, uv_of):
    """Vertices, normals, uvs, faces of axis rectangles (s0, s1, z0, z1) on a plane."""
    verts, uvs, faces = [], [], []
    for s0, s1, z0, z1 in rects:
        k = len(verts)
        for s, z in ((s0, z0), (s1, z0), (s1, z1), (s0, z1)):
            verts.append(origin + along * s + up * z)
            uvs.append(uv_of(s, z))
        faces += [[k, k + 1, k + 2], [k, k + 2, k + 3]]
    v = np.array(verts, dtype=np.float32)
    f = np.array(faces, dtype=np.int32)
    # Wind every triangle to face ``normal``.
    if len(f):
        tri = v[f]
        cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        flip = cross @ normal < 0
        f[flip] = f[flip][:, ::-1]
    n = np.tile(np.asarray(normal, dtype=np.float32), (len(v), 1))
    return v, n, np.array(uvs, dtype=np.float32), f


def box_mesh(center, half, yaw: float = 0.0):
    """A box as 24 vertices (flat normals) with box-projected uvs; centred at the origin."""
    hx, hy, hz = half
    vs, ns, fs = [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            nrm = np.zeros(3)
            nrm[axis] = sign
            u_ax, v_ax = [a for a in range(3) if a != axis]
            k = len(vs)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis] = sign * half[axis]
                p[u_ax] = du * half[u_ax]
                p[v_ax] = dv * half[v_ax]
                vs.append(p)
                ns.append(nrm)
            tri = [[k, k + 1, k + 2], [k, k + 2, k + 3]]
            a = np.array(vs[k + 1]) - np.array(vs[k])
            b = np.array(vs[k + 2]) - np.array(vs[k])
            if np.cross(a, b) @ nrm < 0:
                tri = [t[::-1] for t in tri]
            fs += tri
    del hx, hy, hz
    v = np.array(vs, dtype=np.float32)
    return v, np.array(ns, dtype=np.float32), np.array(fs, dtype=np.int32)


def frame_box(b: SceneBuilder, name, center, half, yaw, rgb, grain):
    """A box geom with the shared grain texture, at ``center`` turned by ``yaw``."""
    from streamspatial.sim.house.assets.mjcf import box_uv

    v, n, f = box_mesh((0, 0, 0), half)

    b.mesh_geom(name, v, n, f, box_uv(v, n), (*rgb, 1.0), grain, pos=center, yaw=yaw)

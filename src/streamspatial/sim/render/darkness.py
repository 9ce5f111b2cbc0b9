"""Rooms whose lights are off, made visibly dark in the rendered frame.

Switching a room's lamp off in GL changes little: the rooms' textures carry the lamp light
baked in (:mod:`streamspatial.sim.house.baking`) and the headlight and ambient light every
surface alike.  So a dark room is made dark where it is seen: every pixel whose surface is lit by a
switched-off room's lights is scaled by :data:`LIGHTS_OFF_GAIN`, found through the
segmentation pass the renderer draws anyway.  A dark room seen through a door from a lit room
is dark, the lit room seen from a dark one stays lit, and the view out of a window keeps its
daylight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import mujoco
import numpy as np

# What is left of a room's brightness with its lights off (daylight through the windows);
# chosen so a frame of a dark room has about a third of the median luminance of the lit one.
LIGHTS_OFF_GAIN = 0.3


class Darkness:
    """Which room's lights light each geom, and the darkening of one frame's pixels.

    ``geom_room`` gives each geom's room (−1 for none), ``geom_door`` each door frame's door
    (−1 for the rest), ``names`` the geom names (the view outside a window, ``*_outside``,
    belongs to no room), ``door_rooms`` each door's two rooms.
    """

    def __init__(
        self,
        geom_room: np.ndarray,
        geom_door: np.ndarray,
        names: Sequence[str],
        door_rooms: Mapping[int, tuple[int, int]],
    ):
        self.room = np.where(geom_door >= 0, -1, geom_room)
        self.room[[i for i, n in enumerate(names) if n.endswith("_outside")]] = -1
        self.door = geom_door.copy()  # door frames: lit as the side they are seen from
        self.door_rooms = dict(door_rooms)

    def place(self, geoms: np.ndarray, room: int | None, door: int = -1) -> None:
        """A moving body's geoms now stand in ``room`` (``None``: in ``door``'s doorway)."""
        self.room[geoms] = -1 if room is None else room
        self.door[geoms] = door if room is None else -1

    def apply(
        self,
        rgb: np.ndarray,
        scene: mujoco.MjvScene,
        segimage: np.ndarray,
        off: frozenset[int],
        here: int,
    ) -> None:
        """Darken, in place, the pixels of ``rgb`` lit by the rooms in ``off``.

        ``segimage`` holds each pixel's segmentation id (``segid + 1``, 0 for nothing) in the
        last segmentation pass of ``scene``; ``here`` is the camera's room: a door's frame (and
        a leaf in the doorway) is dark when it is a door of the camera's room and that is dark.
        """
        dark = np.isin(self.room, list(off))
        if here in off:
            doors = [d for d, rooms in self.door_rooms.items() if here in rooms]
            dark |= np.isin(self.door, doors)
        lut = np.zeros(scene.ngeom + 1, dtype=bool)
        geom_type = int(mujoco.mjtObj.mjOBJ_GEOM)
        for g in scene.geoms[: scene.ngeom]:
            if g.segid != -1 and g.objtype == geom_type and 0 <= g.objid < len(dark):
                lut[g.segid + 1] = dark[g.objid]
        mask = lut[segimage]
        rgb[mask] = (rgb[mask] * LIGHTS_OFF_GAIN).astype(np.uint8)

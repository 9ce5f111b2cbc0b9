"""Step 1 of the pipeline: a house from a seed.

In: a house seed, a number of rooms (or the seed's choice) and a furniture style
(``"catalog"``: textured catalogue models; ``"boxes"``: coloured boxes).
Out: a :class:`~streamspatial.scene.types.House` — rooms, doors, walls, furniture and small
objects with exact boxes and measured colours — plus what the later steps read off it:

* :mod:`.floorplan` grows the rooms on a grid; :mod:`.layout` places doors and walls and calls
  :mod:`.furnish`, which puts furniture and small objects where the house stays walkable;
* :mod:`streamspatial.scene.catalog` says what goes in each kind of room; :mod:`.assets`
  converts the furniture library's models and builds them into MuJoCo scenes (``.assets.mjcf``,
  which the renderer uses too), :mod:`.colors` names an object's colour from its rendered pixels;
* :mod:`.occupancy` is where a walking camera can stand (walks, events and exploration use it);
* the looks: :mod:`.materials` (surface patterns), :mod:`.facade` (where walls, doors and windows
  go) and :mod:`.baking` (each surface's image with its lighting baked in).

Everything is a pure function of the seed.
"""

"""The one dispatch table: which rule answers which task, and :func:`answer`, which applies it.

A task is the item's structured intent (``intent["task"]``, the benchmark's own task for a
released file); an item without a known task (a real benchmark's) falls back to its question's
primitive.  A task with no rule is answered with an empty text, scored invalid as a model that
declined would be.  The name a rule's function has is recorded with each answer
(``Diagnostics.rule``), so functions keep their names when they move.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from streamspatial.agents.rules import boxes, counts, ego, events, layouts, motion, objects, rooms
from streamspatial.agents.rules.context import Answer, RuleContext
from streamspatial.agents.scene_graph import SceneGraphMemory, parse_intent

Rule = Callable[[RuleContext], Answer]

RULES: dict[str, Rule] = {
    # the object nodes (objects.py)
    "count": objects._count,
    "transient_count": objects._count,
    "absolute_distance": objects._pair_distance,
    "spatial_distance": objects._pair_distance,
    "cam_obj_distance": objects._cam_obj_distance,
    "depth_ordering": objects._depth_ordering,
    "identification_closest": objects._closest,
    "camera_motion_target": objects._approached,
    "spatial_proximity": objects._proximity,
    "behind_camera": objects._behind_camera,
    "ego_position": objects._behind_camera,  # UCS-style: where is X now relative to me
    "relative_orientation": objects._relative_orientation,
    "sequence": objects._sequence,
    "sequence_identification": objects._first_appeared,
    "attribute": objects._attribute,
    "distance_comparison": objects._distance_comparison,
    "tem_horizontal_direction": objects._tem_horizontal_direction,
    "tem_spatial_distance_ref": objects._tem_spatial_distance_ref,
    "tem_cam_obj_distance_ref": objects._tem_cam_obj_distance_ref,
    # the camera's own path (ego.py)
    "ego_translation": ego._ego_translation,
    "ego_rotation": ego._ego_rotation,
    "camera_displacement": ego._displacement,
    "viewpoint_height": ego._viewpoint_height,
    "trajectory_map": ego._trajectory_map,
    # the rooms as walked (rooms.py)
    "revisit_detection": rooms._revisit_detection,
    "revisit_counting": rooms._revisit_counting,
    "chronological_recall": rooms._chronological_recall,
    "temporal_depth": rooms._temporal_depth,
    "reachability": rooms._reachability,
    "allocentric_direction": rooms._allocentric_direction,
    "optimal_path": rooms._optimal_path,
    "topology": rooms._topology,
    "rerouting": rooms._rerouting,
    "relative_position": rooms._relative_position,
    "my_trajectory": rooms._my_trajectory,
    # perceived room layouts (layouts.py)
    "out_of_view": layouts._out_of_view,
    "current_room_area": layouts._current_room_area,
    "area": layouts._area,
    "explore_room_count": layouts._explore_room_count,
    "category_recall": layouts._category_recall,
    # object boxes and the latest frame (boxes.py)
    "relative_scale": boxes._relative_scale,
    "containment": boxes._containment,
    "support": boxes._support,
    "occlusion": boxes._occlusion,
    "local_topology": boxes._local_topology,
    "mental_rotation": boxes._mental_rotation,
    "what_if": boxes._what_if,
    "feasibility": boxes._feasibility,
    "reach": boxes._reachability,
    # counts at a moment and over a window (counts.py)
    "o1_delta": counts._delta,
    "o1_snap": counts._snap,
    "o2_unique": counts._unique,
    "identity_persistence": counts._unique,
    "o2_gain": counts._gain,
    # what happened on screen: VCBench's event counts, from the dynamic log (events.py)
    "e1_action": events._door_swings,
    "e1_transit": events._light_switches,
    "e2_periodic": events._cycles,
    "e2_episode": events._walk_throughs,
    # moving actors and changed surfaces, from the dynamic log (motion.py)
    "motion_separation": motion._motion_separation,
    "motion_state": motion._motion_state,
    "relative_speed": motion._relative_speed,
    "change_detection": motion._change_detection,
    "quantity_change": motion._quantity_change,
    "object_trajectory": motion._object_trajectory,
}

# Primitive → rule for items without a known task (real benchmarks): question keywords.
BY_PRIMITIVE: dict[str, Rule] = {
    "count": objects._count,
    "distance": objects._pair_distance,
    "direction": objects._behind_camera,
    "order": objects._first_appeared,
}


def answer(
    memory: SceneGraphMemory,
    item: Any,
    *,
    labels: set[str],
    attributes: Sequence[str] = (),
    prior: Mapping[str, str] | None = None,
) -> tuple[str, str | None]:
    """The answer text (a letter, or a number) and the rule used; ``""`` when none applies."""
    intent = parse_intent(item, labels, attributes)
    rule = RULES.get(intent.task or "") or BY_PRIMITIVE.get(intent.primitive)
    if rule is None or memory.pose is None:
        return "", None
    got = rule(RuleContext(memory, item, labels, attributes, prior))
    if got is None:
        return "", rule.__name__.lstrip("_")
    if isinstance(got, float):
        return f"{got:.2f}", rule.__name__.lstrip("_")
    return str(got), rule.__name__.lstrip("_")


__all__ = ["BY_PRIMITIVE", "RULES", "Rule", "answer"]

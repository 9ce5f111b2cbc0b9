"""The task vocabulary, defined once: every task name the system keys on.

Three kinds of names meet here, and each is written down in exactly one place:

* the **S3-Bench tasks** (S3-Bench, Table 1: task → domain and answer format), which its file
  format validates against and its question generators label items with;
* the **OVO-S-Bench subcategories** the simulator generates (code → the paper's task name);
* the **intent tasks**: the structured ``intent["task"]`` every generated item carries, with the
  reasoning primitive a memory agent retrieves for (``count``, ``distance``, ``direction``,
  ``order``, ``locate``, ``attribute``, ``ego``).  ``None`` means the question's own words
  decide (a memory agent falls back to keywords, as it does for a released benchmark's items).

A generator that emits an intent task not listed here, or an agent that keys on one, is a
drift the tests catch (``tests/bench/test_bench_tasks.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AnswerFormat = Literal["num", "mc"]

# S3-Bench, Table 1: task → (domain, answer format).
S3_TASKS: dict[str, tuple[str, AnswerFormat]] = {
    "camera_displacement": ("Ego-centric", "num"),
    "current_room_area": ("Ego-centric", "num"),
    "cam_obj_distance": ("Ego-centric", "num"),
    "identification_closest": ("Ego-centric", "mc"),
    "camera_motion_target": ("Ego-centric", "mc"),
    "attribute": ("Spatial Relation", "num"),
    "spatial_distance": ("Spatial Relation", "num"),
    "area": ("Spatial Relation", "num"),
    "count": ("Spatial Relation", "num"),
    "sequence": ("Spatial Relation", "mc"),
    "spatial_proximity": ("Spatial Relation", "mc"),
    "relative_orientation": ("Spatial Relation", "mc"),
    "sequence_identification": ("Spatial Relation", "mc"),
    "tem_spatial_distance_ref": ("Temporal Dependency", "num"),
    "tem_cam_obj_distance_ref": ("Temporal Dependency", "num"),
    "tem_horizontal_direction": ("Temporal Dependency", "mc"),
}
# Tasks streamspatial's simulator adds to the paper's 16 (docs/simulator.md), kept apart so
# S3_TASKS stays the paper's table: the active-exploration count of S3-Bench §3.
S3_GENERATED_TASKS: dict[str, tuple[str, AnswerFormat]] = {
    "explore_room_count": ("Spatial Relation", "num"),
}

# OVO-S-Bench subcategories the simulator generates: code → the paper's task name.
OVOS_TASKS: dict[str, str] = {
    "1.1.1": "Object-to-Object Absolute Distance",
    "1.1.2": "Relative Physical Scale",
    "1.1.3": "Object Depth Ordering",
    "1.1.4": "Viewpoint Height Perception",
    "1.2.1": "Containment Relation",
    "1.2.2": "Occlusion Recognition",
    "1.2.3": "Support Relation",
    "1.2.4": "Local Topology Description",
    "1.3.1": "Ego-motion Translation",
    "1.3.2": "Ego-motion Rotation",
    "1.3.3": "Object Motion Separation",
    "1.3.4": "Relative Speed Judgment",
    "1.3.5": "Judgment of Motion State",
    "2.1.1": "Revisit Detection",
    "2.1.2": "Revisit Counting",
    "2.2.1": "Out-of-View Localization",
    "2.2.2": "Behind-Camera Inference",
    "2.2.3": "Transient Count Memory",
    "2.3.1": "Chronological Recall",
    "2.3.2": "Temporal Depth Estimation",
    "3.1.1": "Mental Rotation & Fitting",
    "3.1.2": "Spatial What-If Consequence",
    "3.1.3": "Physical Stability & Feasibility",
    "3.2.1": "Object-Level Change Detection",
    "3.3.1": "Optimal Path Reasoning",
    "3.3.2": "Obstacle-Aware Rerouting",
    "3.3.3": "Reachability Judgment",
    "4.1.1": "Allocentric Direction Reasoning",
    "4.2.1": "Topological Structure Reasoning",
    "4.3.1": "Trajectory Map Alignment",
}
Primitive = Literal["count", "distance", "direction", "order", "locate", "attribute", "ego"]


@dataclass(frozen=True)
class IntentTask:
    """One ``intent["task"]`` of a generated item: the format it is exported to, and the
    reasoning primitive it asks for (None: decided by the question's words)."""

    key: str
    benchmark: str
    primitive: Primitive | None


def _tasks(benchmark: str, primitives: dict[str, Primitive | None]) -> dict[str, IntentTask]:
    return {k: IntentTask(k, benchmark, p) for k, p in primitives.items()}


INTENT_TASKS: dict[str, IntentTask] = {
    **_tasks(
        "ovos",
        {
            "absolute_distance": "distance",
            "depth_ordering": "distance",
            "ego_translation": "ego",
            "ego_rotation": "ego",
            "viewpoint_height": "ego",
            "revisit_detection": "locate",
            "revisit_counting": "count",
            "out_of_view": "locate",
            "behind_camera": "direction",
            "transient_count": "count",
            "chronological_recall": "order",
            "temporal_depth": "order",
            "optimal_path": "locate",
            "reachability": "locate",
            "allocentric_direction": "direction",
            "topology": "locate",
            "trajectory_map": None,
            # moving actors and changed surfaces (scene.schedule): the dynamic log decides
            "motion_separation": None,
            "motion_state": None,
            "relative_speed": None,
            "change_detection": None,
            # the current view and imagined changes: the rules read boxes, the words decide
            "relative_scale": None,
            "containment": None,
            "support": None,
            "occlusion": None,
            "local_topology": None,
            "mental_rotation": None,
            "what_if": None,
            "feasibility": None,
            "rerouting": None,
        },
    ),
    **_tasks(
        "ucs",
        {
            "ego_position": "direction",
            "relative_position": None,
            "my_trajectory": None,
            "distance_comparison": None,
            "reach": None,
            "category_recall": None,
            "quantity_change": None,
            "object_trajectory": None,
        },
    ),
    **_tasks(
        "s3",
        {
            "camera_displacement": "ego",
            "current_room_area": None,
            "cam_obj_distance": "distance",
            "identification_closest": "distance",
            "camera_motion_target": "distance",
            "attribute": "attribute",
            "spatial_distance": "distance",
            "area": None,
            "count": "count",
            "sequence": "order",
            "spatial_proximity": "distance",
            "relative_orientation": "direction",
            "sequence_identification": "order",
            "tem_spatial_distance_ref": None,
            "tem_cam_obj_distance_ref": None,
            "tem_horizontal_direction": None,
            "explore_room_count": None,
        },
    ),
    **_tasks(
        "vcbench",
        {
            "o1_snap": None,
            "o1_delta": None,
            "o2_unique": None,
            "o2_gain": None,
            "identity_persistence": None,
            # events counted as the stream showed them (the dynamic log, not the scene graph)
            "e1_action": None,
            "e1_transit": None,
            "e2_periodic": None,
            "e2_episode": None,
        },
    ),
}


def primitive_of(task: str | None) -> Primitive | None:
    """The reasoning primitive of an intent task; None for an unknown task or one whose
    question words decide."""
    known = INTENT_TASKS.get(task or "")
    return known.primitive if known is not None else None


__all__ = [
    "INTENT_TASKS",
    "OVOS_TASKS",
    "S3_GENERATED_TASKS",
    "S3_TASKS",
    "IntentTask",
    "Primitive",
    "primitive_of",
]

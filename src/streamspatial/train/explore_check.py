"""Re-checking a folder's exploration labels from the records alone, as an evaluation would
execute them.

The generator confirms each plan before it writes it (:mod:`.explore`); this check trusts
nothing it wrote but the records: for every explorable query point in ``train.jsonl`` it reads
each action label with the harness's parser (:func:`~streamspatial.grading.extract.extract_action`),
restores the episode's environment at t_q through the exploration world a run uses
(:class:`~streamspatial.sim.explore.world.EpisodeWorld`), executes the actions, and asks:

* does every object the record says to reveal cover the generators' *seen* threshold in some
  rendered view, and every object to keep out stay under it?
* are the views the answer example shows exactly the views the actions render, at the times
  and in the order a run would show them?
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from streamspatial.grading.extract import extract_action
from streamspatial.scene.camera import min_pixels_for
from streamspatial.sim.explore.world import EpisodeEnv, EpisodeWorld
from streamspatial.sim.qa.export import videos_dir
from streamspatial.video.cache import decode_jpeg

from .records import TRAIN_FILE, TrainingExample, read_examples


@dataclass
class LabelCheck:
    """What re-executing a folder's exploration labels found."""

    query_points: int = 0  # explorable query points with explore examples
    actions: int = 0  # action labels executed
    revealed: int = 0  # query points whose views show their evidence and nothing to keep out
    identical: int = 0  # query points whose saved views are the rendered ones, pixel for pixel
    failed: list[str] = field(default_factory=list)  # what went wrong, one line each

    def line(self) -> str:
        return (
            f"{self.query_points} explorable query points, {self.actions} action labels "
            f"executed: {self.revealed} reveal their evidence, {self.identical} with the very "
            f"views their answer examples show"
        )


def _groups(records: list[TrainingExample]) -> dict[str, list[TrainingExample]]:
    groups: dict[str, list[TrainingExample]] = defaultdict(list)
    for r in records:
        if r.kind == "explore":
            groups[r.id.rsplit(":", 1)[0]].append(r)
    return groups


def check_explore(folder: Path) -> LabelCheck:
    """Execute every exploration label of ``folder``'s ``train.jsonl`` (see the module)."""
    folder = Path(folder)
    report = LabelCheck()
    world = EpisodeWorld()
    envs: dict[str, EpisodeEnv] = {}
    try:
        for key, group in _groups(read_examples(folder / TRAIN_FILE)).items():
            acts = sorted((r for r in group if r.meta.get("step")), key=lambda r: r.meta["step"])
            answer = next((r for r in group if not r.meta.get("step")), None)
            report.query_points += 1
            if not acts or answer is None:
                report.failed.append(f"{key}: expected action examples and an answer example")
                continue
            video = videos_dir(folder) / answer.video
            env = envs.get(answer.video)
            if env is None:
                env = envs[answer.video] = world.restore(video, answer.t_q)
            else:
                env.restart(answer.t_q)
            threshold = min_pixels_for(env.meta.intrinsics.width, env.meta.intrinsics.height)
            best: dict[int, int] = defaultdict(int)
            rendered: list[tuple[float, np.ndarray]] = []
            for act in acts:
                action = extract_action(act.target)
                if action is None:
                    report.failed.append(f"{act.id}: no action read from {act.target!r}")
                    break
                step = env.step(action)
                report.actions += 1
                rendered += [(round(answer.t_q + t, 6), rgb) for t, rgb in step.views]
                for record in step.records:
                    for v in record.visible:
                        best[v.instance_id] = max(best[v.instance_id], v.pixels)
            else:
                reveal, avoid = answer.meta["reveal"], answer.meta["avoid"]
                if all(best[i] >= threshold for i in reveal) and all(
                    best[i] < threshold for i in avoid
                ):
                    report.revealed += 1
                else:
                    shown = {i: best[i] for i in (*reveal, *avoid)}
                    report.failed.append(f"{key}: views show {shown} (seen at {threshold} px)")
                if _same_views(folder, answer, rendered):
                    report.identical += 1
                else:
                    report.failed.append(f"{key}: the answer example's views are not the rendered")
    finally:
        for env in envs.values():
            env.close()
    return report


def _same_views(
    folder: Path, answer: TrainingExample, rendered: list[tuple[float, np.ndarray]]
) -> bool:
    shown = [im for m in answer.messages for im in m.images if im.source == "explore"]
    if [im.time for im in shown] != [t for t, _ in rendered]:
        return False
    for image, (_, rgb) in zip(shown, rendered, strict=True):
        assert image.path is not None
        if not np.array_equal(decode_jpeg((folder / image.path).read_bytes()), rgb[:, :, :3]):
            return False
    return True


__all__ = ["LabelCheck", "check_explore"]

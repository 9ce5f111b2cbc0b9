"""``explore`` examples: the actions that bring an explorable question's missing evidence into
view, then the answer from the prefix plus the new views.

S3-Train's active-exploration examples (S3-Bench §3) come from questions "where the view is
insufficient": the pipeline generates the camera movements that capture the missing information
and uses "the corresponding movements but not the answer" as action labels.  Here, for each
query point of an item marked ``explorable``:

1. **Evidence.**  The objects the question is about (its intent's instances) that the prefix
   has not shown by t_q, at the question generators' *seen* threshold
   (:func:`~streamspatial.scene.camera.min_pixels_for` visible pixels in one frame's id
   buffer): what exploring must reveal.  A question about one category in one room (the
   ``explore_room_count`` kind) also names what must stay out of view: that category's objects
   in other rooms, which a view through a door would add to the count.
2. **Plan.**  :func:`streamspatial.sim.explore.plan.plans`, from the pose recorded at t_q: the
   fewest actions, turning before walking, then the quickest, each object to reveal covering
   the generators' *reachable* threshold
   (:func:`~streamspatial.sim.qa.explore.reach_pixels`) in one ray-cast view.
3. **Check.**  The plan is executed in ``streamspatial/Explore-v0`` restored at t_q exactly as
   ``--explore-steps`` runs restore it (:class:`~streamspatial.sim.explore.world.EpisodeEnv`),
   each action given as the harness gives it: its label parsed by
   :func:`~streamspatial.grading.extract.extract_action`, the reader of a model's reply.  The
   rendered views must show every object to reveal at the *seen* threshold and none to keep
   out; otherwise the next plan is tried, and an item no plan passes is left out and counted.
4. **Examples.**  One per action: the prefix, the views of the actions before it and the
   request a run sends (the benchmark's system prompt and prompt, the action space offered as
   ``--explore-steps 3`` offers it, with the actions left) → the action as JSON; then the same
   with every view → the answer.  Views are saved as PNG under the folder's ``explore/`` and
   carry their exploration-stream times (t_q + the seconds the actions took), captioned with
   the words a run puts before them, so a model trained on these acts and reads views at
   evaluation as it learned to.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamspatial.agents.exploration import offer_note, step_note, view_caption
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.grading.extract import extract_action
from streamspatial.scene.camera import min_pixels_for
from streamspatial.scene.types import EpisodeMeta
from streamspatial.sim.explore.actions import MOVES, Action, parse_action
from streamspatial.sim.explore.plan import MAX_ACTIONS, Plan, plans
from streamspatial.sim.explore.world import EpisodeEnv, ExploreStep, pose_at
from streamspatial.sim.qa.explore import reach_pixels
from streamspatial.video.prefix import query_frame_index

from .qa import answer_text, asked, item_meta
from .records import VIEWS_DIR, ExtraImage, Message, TrainingExample

OFFERED_STEPS = MAX_ACTIONS  # the prompt offers actions as `--explore-steps 3` does
TRIES = 3  # plans executed before an item is left out

NOTHING_TO_REVEAL = "explorable query points with nothing left to reveal"
NO_PLAN = f"explorable query points no plan of ≤ {MAX_ACTIONS} actions reveals"
NOT_CONFIRMED = "explorable query points whose plans the environment did not confirm"
NO_WALK = "explorable items whose walk is not in the folder"
CONFIRMED = "exploration plans executed in Explore-v0, each showing its evidence"


@dataclass(frozen=True)
class Evidence:
    """What exploring must bring into view, and what must stay out of it (instance ids)."""

    reveal: tuple[int, ...]
    avoid: tuple[int, ...]
    min_pixels: int  # the generators' *seen* threshold at this video's size


@dataclass(frozen=True)
class Executed:
    """One planned action as executed: its label, what the harness parsed from it, its views."""

    action: Action
    label: str
    parsed: dict[str, Any]
    step: ExploreStep


def action_label(action: Action) -> str:
    """The reply that takes ``action``: JSON as the offer shows it (``{"action": "rotate_left"}``,
    ``{"action": "move_forward", "distance": 1.0}``)."""
    body: dict[str, Any] = {"action": action.name}
    if action.name in MOVES:
        body["distance"] = action.distance
    return json.dumps(body)


def seen_by(meta: EpisodeMeta, t_q: float, min_pixels: int) -> set[int]:
    """Objects some frame up to t_q showed with at least ``min_pixels`` pixels."""
    k = query_frame_index(t_q, meta.fps, len(meta.frames))
    frames = meta.frames[: k + 1]
    return {v.instance_id for f in frames for v in f.visible if v.pixels >= min_pixels}


def evidence_of(item: Item, query: QueryPoint, meta: EpisodeMeta) -> Evidence:
    """The objects ``item`` is about that the prefix had not shown by the query time, and, for a
    question about one category in one room, that category's objects elsewhere (see the
    module)."""
    k = meta.intrinsics
    threshold = min_pixels_for(k.width, k.height)
    intent = item.intent or {}
    seen = seen_by(meta, float(query.time), threshold)
    reveal = tuple(sorted({int(i) for i in intent.get("instances", ())} - seen))
    params = intent.get("params") or {}
    avoid: tuple[int, ...] = ()
    if isinstance(params.get("category"), str) and params.get("room_id") is not None:
        avoid = tuple(
            o.instance_id
            for o in meta.house.objects
            if o.category == params["category"] and o.room_id != params["room_id"]
        )
    return Evidence(reveal, avoid, threshold)


def execute(env: EpisodeEnv, t_q: float, plan: Plan) -> list[Executed]:
    """Run ``plan`` in ``env`` restored at ``t_q``, each action read from its label by the
    harness's own parser."""
    env.restart(t_q)
    out = []
    for action in plan.actions:
        label = action_label(action)
        parsed = extract_action(label)
        if parsed is None or parse_action(parsed) != action:  # a label the harness misreads
            raise AssertionError(f"label {label} is not read back as {action}")
        out.append(Executed(action, label, parsed, env.step(parsed)))
    return out


def rendered_pixels(executed: Iterable[Executed], ids: Iterable[int]) -> dict[int, int]:
    """The most pixels each object covers in one rendered view of the executed actions."""
    best = dict.fromkeys(ids, 0)
    for ex in executed:
        for record in ex.step.records:
            for v in record.visible:
                if v.instance_id in best:
                    best[v.instance_id] = max(best[v.instance_id], v.pixels)
    return best


def confirms(executed: list[Executed], evidence: Evidence) -> bool:
    """Every object to reveal seen in some view, none to keep out seen in any."""
    shown = rendered_pixels(executed, evidence.reveal + evidence.avoid)
    return all(shown[i] >= evidence.min_pixels for i in evidence.reveal) and all(
        shown[i] < evidence.min_pixels for i in evidence.avoid
    )


def explore_examples(
    items: Iterable[Item],
    metas: Mapping[str, Callable[[], EpisodeMeta]],
    files: Path,
    notes: Counter[str],
) -> Iterator[TrainingExample]:
    """The ``explore`` examples of every explorable item (see the module).  ``metas``: each
    video's episode metadata, read when needed; views are written under ``files / VIEWS_DIR``;
    what was left out or confirmed is counted in ``notes``."""
    items = list(items)
    by_id = {it.id: it for it in items}
    by_video: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        if item.explorable:
            by_video[item.video].append(item)
    for video, group in by_video.items():
        if video not in metas:
            notes[NO_WALK] += len(group)
            continue
        meta = metas[video]()  # once per walk: every frame's ground truth is in it
        opened: list[EpisodeEnv] = []  # one renderer per walk, opened when a plan needs it

        def env(t_q: float, meta: EpisodeMeta = meta, opened: list = opened) -> EpisodeEnv:
            if not opened:
                opened.append(EpisodeEnv(meta, t_q))
            return opened[0]

        try:
            for item in group:
                for query in item.queries:
                    yield from _query_examples(item, query, meta, env, by_id, files, notes)
        finally:
            for e in opened:
                e.close()


def _query_examples(
    item: Item,
    query: QueryPoint,
    meta: EpisodeMeta,
    env: Callable[[float], EpisodeEnv],
    by_id: dict[str, Item],
    files: Path,
    notes: Counter[str],
) -> Iterator[TrainingExample]:
    t_q = float(query.time)
    evidence = evidence_of(item, query, meta)
    if not evidence.reveal:
        notes[NOTHING_TO_REVEAL] += 1
        return
    candidates = plans(
        meta.house,
        meta.intrinsics,
        pose_at(meta, t_q),
        evidence.reveal,
        reach=reach_pixels(evidence.min_pixels),
        avoid=evidence.avoid,
        avoid_pixels=evidence.min_pixels,
    )
    tried = 0
    for plan in candidates:
        tried += 1
        executed = execute(env(t_q), t_q, plan)
        if confirms(executed, evidence):
            notes[CONFIRMED] += 1
            yield from _examples(item, query, evidence, executed, by_id, files)
            return
        if tried == TRIES:
            break
    notes[NOT_CONFIRMED if tried else NO_PLAN] += 1


def _examples(
    item: Item,
    query: QueryPoint,
    evidence: Evidence,
    executed: list[Executed],
    by_id: dict[str, Item],
    files: Path,
) -> Iterator[TrainingExample]:
    t_q = float(query.time)
    ask = asked(item, query, by_id)
    base = f"explore:{item.benchmark}:{item.id}:{query.index}"
    folder = f"{VIEWS_DIR}/{_safe(item.id)}"
    meta = {
        **item_meta(item, query),
        "reveal": list(evidence.reveal),
        "avoid": list(evidence.avoid),
        "actions": [ex.parsed for ex in executed],
    }
    shown: list[ExtraImage] = []

    def example(suffix: str, left: int, target: str, **extra: Any) -> TrainingExample:
        user = Message(
            role="user",
            text=f"{offer_note(left)}\n{ask.prompt}",
            prefix=True,
            images=(*ask.options, *shown),
        )
        return TrainingExample(
            id=f"{base}:{suffix}",
            kind="explore",
            video=item.video,
            t_q=t_q,
            messages=(*ask.system_turn(), user, Message(role="assistant", text=target)),
            meta={**meta, **extra},
        )

    for j, ex in enumerate(executed, 1):
        yield example(f"act{j}", OFFERED_STEPS - (j - 1), ex.label, step=j)
        note = step_note(j, ex.parsed, ex.step.elapsed, ex.step.collided)
        for n, ((t, rgb), _rec) in enumerate(zip(ex.step.views, ex.step.records, strict=True), 1):
            time = round(t_q + t, 6)  # the exploration stream's clock, as runs time views
            rel = f"{folder}/q{query.index}-a{j}-v{n}.png"
            _write_png(files / rel, rgb)
            caption = view_caption(time) if n > 1 else f"{note}\n{view_caption(time)}"
            shown.append(ExtraImage(source="explore", caption=caption, path=rel, time=time))
    pixels = rendered_pixels(executed, evidence.reveal)
    yield example(
        "answer",
        OFFERED_STEPS - len(executed),
        answer_text(item, query),
        revealed={str(i): n for i, n in pixels.items()},
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _write_png(path: Path, rgb: Any) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.fromarray(rgb[:, :, :3]).save(buf, format="PNG")
    path.write_bytes(buf.getvalue())


__all__ = [
    "OFFERED_STEPS",
    "VIEWS_DIR",
    "Evidence",
    "Executed",
    "action_label",
    "confirms",
    "evidence_of",
    "execute",
    "explore_examples",
    "rendered_pixels",
    "seen_by",
]

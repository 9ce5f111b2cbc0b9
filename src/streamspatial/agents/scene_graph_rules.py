"""The rule-based reasoner over the scene-graph memory: DirectMe with no model at all.

With ground-truth perception this is the *oracle-perception upper bound*: it shows how much of
a generated benchmark a pose-anchored memory answers by geometry alone, and — with the noise
model — how fast that falls with imperfect perception.  It reads exactly what a deployable
system could read: the question text and options (object names are matched against the
perception vocabulary), the item's structured intent (which task is asked), and the memory as
it stood at t_q.  It never reads answers, evidence or instance ids; the answer-swap test pins
that.

A task it has no rule for is answered with an empty text (scored invalid, as a model that
declined would be) and counted in :attr:`SceneGraphRulesAgent.unsupported`.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from streamspatial.agents import (
    contract,
    rules_events,
    rules_motion,
    rules_scene,
    rules_space,
    rules_time,
    rules_user,
)
from streamspatial.agents.contract import AgentOptions, QueryContext
from streamspatial.agents.rule_context import (
    Answer,
    RuleContext,
    best_option,
    nearest_number_option,
    scene_option,
    scenes_in,
    sector_option,
    text_option,
)
from streamspatial.agents.scene_graph import (
    ObjectNode,
    SceneGraphAgent,
    SceneGraphMemory,
    diagnostics,
    ego_relation,
    find_mentions,
    parse_intent,
    render_subgraph,
    retrieve,
)
from streamspatial.perception.types import wrap

# -- the rules ----------------------------------------------------------------------------------


def _cam_dist(ctx: RuleContext, n: ObjectNode) -> float:
    assert ctx.memory.pose is not None
    return math.dist(ctx.memory.pose.position, n.position)


def _count(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    if labels is None:
        return None
    n = sum(1 for x in ctx.memory.nodes() if x.label in labels)
    return float(n) if not ctx.item.options else nearest_number_option(ctx, n)


def _pair_distance(ctx: RuleContext) -> Answer:
    if len(ctx.mentions) < 2:
        return None
    a, b = ctx.node(ctx.mentions[0]), ctx.node(ctx.mentions[1])
    if a is None or b is None:
        return None
    d = math.dist(a.position, b.position)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _cam_obj_distance(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None:
        return None
    d = _cam_dist(ctx, n)
    return d if not ctx.item.options else nearest_number_option(ctx, d)


def _depth_ordering(ctx: RuleContext) -> Answer:
    ask = str(ctx.params.get("ask", ""))
    farther = "farther" in ask or ("farther" in ctx.item.question.lower() and not ask)
    sign = -1.0 if farther else 1.0
    return best_option(ctx, lambda n: sign * _cam_dist(ctx, n))


def _closest(ctx: RuleContext) -> Answer:
    return best_option(ctx, lambda n: _cam_dist(ctx, n))


def _approached(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    before = mem.pose_at(mem.time - ctx.seconds(3.0))
    if before is None or mem.pose is None:
        return None
    return best_option(
        ctx,
        lambda n: (
            math.dist(mem.pose.position, n.position)  # type: ignore[union-attr]
            - math.dist(before.position, n.position)
        ),
    )


def _proximity(ctx: RuleContext) -> Answer:
    anchor = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if anchor is None:
        return None
    scored = []
    for letter, text in ctx.options:
        ms = find_mentions(text, ctx.labels)
        if not ms:
            continue
        ds = [
            math.dist(anchor.position, n.position)
            for n in ctx.memory.nodes()
            if n.label == ms[0].label and n.node_id != anchor.node_id
        ]
        if ds:
            scored.append((min(ds), letter))
    return min(scored)[1] if scored else None


def _behind_camera(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None or ctx.memory.pose is None:
        return None
    return sector_option(ctx, str(ego_relation(ctx.memory.pose, n.position)["sector"]))


def _relative_orientation(ctx: RuleContext) -> Answer:
    if len(ctx.mentions) < 3:
        return None
    a, b, c = (ctx.node(m) for m in ctx.mentions[:3])
    if a is None or b is None or c is None:
        return None
    ab = (b.position[0] - a.position[0], b.position[1] - a.position[1])
    ac = (c.position[0] - a.position[0], c.position[1] - a.position[1])
    cross = ab[0] * ac[1] - ab[1] * ac[0]
    ang = math.degrees(math.atan2(abs(cross), ab[0] * ac[0] + ab[1] * ac[1]))
    sector = "behind" if ang > 135 else ("left" if cross > 0 else "right")
    return sector_option(ctx, sector)


def _first_appeared(ctx: RuleContext) -> Answer:
    return best_option(ctx, lambda n: n.first_seen)


def _sequence(ctx: RuleContext) -> Answer:
    best, best_score = None, -math.inf
    for letter, text in ctx.options:
        nodes = [ctx.node(m) for m in find_mentions(text, ctx.labels, ctx.attributes)]
        if len(nodes) < 2 or any(n is None for n in nodes):
            continue
        times = [n.first_seen for n in nodes]  # type: ignore[union-attr]
        score = sum(
            1 if times[i] < times[j] else -1
            for i in range(len(times))
            for j in range(i + 1, len(times))
        )
        if score > best_score:
            best, best_score = letter, score
    return best


def _attribute(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None or n.size is None:
        return None
    return float(max(n.size))


def _out_of_view(ctx: RuleContext) -> Answer:
    n = ctx.node(ctx.mentions[0]) if ctx.mentions else None
    if n is None or n.scene is None:
        return None
    return text_option(ctx, n.scene)


def _ego_translation(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    a, b = mem.pose_at(mem.time - ctx.seconds(1.0)), mem.pose
    if a is None or b is None:
        return None
    dx, dy = b.position[0] - a.position[0], b.position[1] - a.position[1]
    fwd = dx * math.cos(a.yaw) + dy * math.sin(a.yaw)
    if math.hypot(dx, dy) < 0.15:
        return text_option(ctx, "staying")
    return text_option(ctx, "forward" if fwd > 0 else "backward")


def _ego_rotation(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    since = mem.time - ctx.seconds(1.0)
    poses = [p for p in mem.recent if p.time >= since - 1e-9]
    turn = sum(wrap(b.yaw - a.yaw) for a, b in itertools.pairwise(poses))
    deg = math.degrees(turn)
    if abs(deg) < 10:
        return text_option(ctx, "not panning")
    return text_option(ctx, "panning left" if deg > 0 else "panning right")


def _displacement(ctx: RuleContext) -> Answer:
    mem = ctx.memory
    a = mem.pose_at(mem.time - ctx.seconds(1.0))
    if a is None or mem.pose is None:
        return None
    return math.dist(a.position, mem.pose.position)


# -- the room graph as walked (OVO-S L2 room memory, L3 reachability, L4 allocentric) ----------


def _revisit_detection(ctx: RuleContext) -> Answer:
    v = ctx.memory.visits.get(ctx.memory.scene or "")
    return None if v is None else text_option(ctx, "Yes" if v.entries >= 2 else "No")


def _revisit_counting(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.item.question)
    if not tags:
        return None
    n = ctx.memory.visits[tags[0]].entries
    return text_option(ctx, str(n)) if ctx.item.options else float(n)


def _chronological_recall(ctx: RuleContext) -> Answer:
    return scene_option(ctx, lambda tag: ctx.memory.visits[tag].first_seen)


def _temporal_depth(ctx: RuleContext) -> Answer:
    tags = scenes_in(ctx, ctx.item.question)
    if len(tags) < 2:
        return None
    fa, fb = (ctx.memory.visits[t].frames for t in tags[:2])
    if max(fa, fb) <= 1.15 * min(fa, fb):  # the generator's "about the same" margin
        for letter, text in ctx.options:
            if "same" in text.lower():
                return letter
    return scene_option(ctx, lambda tag: -ctx.memory.visits[tag].frames)


def _reachability(ctx: RuleContext) -> Answer:
    """ "Can you reach X from here without passing through Y": search the walked doorways."""
    tags = scenes_in(ctx, ctx.item.question)
    here = ctx.memory.scene
    if len(tags) < 2 or here is None:
        return None
    target, banned = tags[0], tags[1]
    seen, todo = {here}, [here]
    while todo:
        cur = todo.pop()
        for nxt in ctx.memory.adjacency.get(cur, ()):
            if nxt not in seen and nxt != banned:
                seen.add(nxt)
                todo.append(nxt)
    return text_option(ctx, "Yes" if target in seen else "No")


def _optimal_path(ctx: RuleContext) -> Answer:
    """The first room of the shortest walked route from here to the named room."""
    tags = scenes_in(ctx, ctx.item.question)
    here = ctx.memory.scene
    if not tags or here is None:
        return None
    parent: dict[str, str | None] = {here: None}
    frontier = [here]
    while frontier and tags[0] not in parent:
        nxt = []
        for cur in frontier:
            for n in sorted(ctx.memory.adjacency.get(cur, ())):
                if n not in parent:
                    parent[n] = cur
                    nxt.append(n)
        frontier = nxt
    if tags[0] not in parent:
        return None
    step = tags[0]
    while parent[step] not in (here, None):
        step = parent[step]  # type: ignore[assignment]
    return scene_option(ctx, lambda tag: 0.0 if tag == step else 1.0)


def _topology(ctx: RuleContext) -> Answer:
    """The option naming exactly the rooms entered from (or into) the named one."""
    tags = scenes_in(ctx, ctx.item.question)
    if not tags:
        return None
    truth = ctx.memory.adjacency.get(tags[0], set())
    for letter, text in ctx.options:
        if set(scenes_in(ctx, text)) == truth:
            return letter
    return None


COMPASS8 = {
    "north": 0,
    "north-east": 45,
    "east": 90,
    "south-east": 135,
    "south": 180,
    "south-west": 225,
    "west": 270,
    "north-west": 315,
}
CARDINALS = ("North", "East", "South", "West")


def _allocentric_direction(ctx: RuleContext) -> Answer:
    """The start heading the question gives fixes north; place centres give the bearing."""
    low = ctx.item.question.lower()
    facing = next(
        (deg for word, deg in sorted(COMPASS8.items(), key=lambda x: -len(x[0]))
         if re.search(rf"facing (?:roughly )?{word}\b", low)),
        None,
    )  # fmt: skip
    tags = scenes_in(ctx, ctx.item.question)
    mem = ctx.memory
    if facing is None or len(tags) < 2 or not mem.chain:
        return None
    north_yaw = mem.chain[0].yaw + math.radians(facing)
    a, b = (_room_centre(mem, t) for t in tags[:2])
    if a is None or b is None:
        return None
    bearing = math.degrees(north_yaw - math.atan2(a[1] - b[1], a[0] - b[0])) % 360
    return text_option(ctx, CARDINALS[round(bearing / 90) % 4])


def _room_centre(mem: SceneGraphMemory, tag: str) -> tuple[float, float] | None:
    """The perceived room's floor centroid; without a layout, where the walk was in it."""
    room = mem.rooms.get(tag)
    if room is None:
        return mem.scene_center(tag)
    pts = [tuple(q) for q in room["polygon"]]
    a = cx = cy = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
        c = x0 * y1 - x1 * y0
        a, cx, cy = a + c, cx + (x0 + x1) * c, cy + (y0 + y1) * c
    return (cx / (3 * a), cy / (3 * a)) if abs(a) > 1e-9 else mem.scene_center(tag)


RULES: dict[str, Callable[[RuleContext], Answer]] = {
    "count": _count,
    "transient_count": _count,
    "absolute_distance": _pair_distance,
    "spatial_distance": _pair_distance,
    "cam_obj_distance": _cam_obj_distance,
    "depth_ordering": _depth_ordering,
    "identification_closest": _closest,
    "camera_motion_target": _approached,
    "spatial_proximity": _proximity,
    "behind_camera": _behind_camera,
    "ego_position": _behind_camera,  # UCS-style: where is X now relative to me
    "relative_orientation": _relative_orientation,
    "sequence": _sequence,
    "sequence_identification": _first_appeared,
    "attribute": _attribute,
    "out_of_view": _out_of_view,
    "ego_translation": _ego_translation,
    "ego_rotation": _ego_rotation,
    "camera_displacement": _displacement,
    "revisit_detection": _revisit_detection,
    "revisit_counting": _revisit_counting,
    "chronological_recall": _chronological_recall,
    "temporal_depth": _temporal_depth,
    "reachability": _reachability,
    "allocentric_direction": _allocentric_direction,
    "optimal_path": _optimal_path,
    "topology": _topology,
}

RULES.update(rules_space.RULES)  # room layouts, the walked path, multi-turn references
RULES.update(rules_time.RULES)  # counts at a moment and over a window
RULES.update(rules_scene.RULES)  # object boxes and the latest frame
RULES.update(rules_user.RULES)  # UCS-Bench's user-centric questions
RULES.update(rules_events.RULES)  # VCBench's event counts, from the dynamic log
RULES.update(rules_motion.RULES)  # moving actors and changed surfaces (the dynamic log)

# Primitive → rule for items without a known task (real benchmarks): question keywords.
_BY_PRIMITIVE = {
    "count": _count,
    "distance": _pair_distance,
    "direction": _behind_camera,
    "order": _first_appeared,
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
    rule = RULES.get(intent.task or "") or _BY_PRIMITIVE.get(intent.primitive)
    if rule is None or memory.pose is None:
        return "", None
    got = rule(RuleContext(memory, item, labels, attributes, prior))
    if got is None:
        return "", rule.__name__.lstrip("_")
    if isinstance(got, float):
        return f"{got:.2f}", rule.__name__.lstrip("_")
    return str(got), rule.__name__.lstrip("_")


EXPLORE_OFFER = "Active exploration:"  # how the exploration controller offers actions
LOOK_AROUND = '{"action": "sweep_around"}'


@dataclass
class Exploring:
    """An explorable query's memory at t_q and what its rules need, kept until it is asked."""

    memory: SceneGraphMemory
    item: Any
    labels: set[str]
    attrs: list[str]
    prior: Mapping[str, str] | None
    provider: Any
    t_q: float


class SceneGraphRulesAgent(SceneGraphAgent):
    """``--agent scene-graph-rules``: the rule reasoner answers; no model is called.

    Each query point's decision is a :class:`~streamspatial.agents.contract.Answer`: what the
    reasoner concluded from the memory as it stood at t_q, recorded and scored like a model's
    answer, with the rule it used in the diagnostics.  An explorable item is the exception: it
    is an :class:`~streamspatial.agents.contract.Ask` to :class:`RuleAnswerBackend`, so the
    exploration controller can offer it actions; it sweeps around and answers from the views.
    """

    name: ClassVar[str] = "scene-graph-rules"

    def __init__(self, perception: str = "ground-truth", **kw: Any):
        from streamspatial.perception.spec import parse_perception

        # Nothing is shown to a model, so ground truth needs no frame at all; perception that
        # reads pixels (classical, model) still needs them, at 1 fps.
        pixels = parse_perception(perception).kind != "ground-truth"
        kw.setdefault("sample_fps", 1.0 if pixels else 0.0)
        super().__init__(perception, **kw)
        self._answers: dict[tuple[str, float], tuple[str, str | None]] = {}
        self._explorable: dict[str, Exploring] = {}
        self.unsupported: dict[str, int] = {}

    @classmethod
    def from_options(cls, options: AgentOptions) -> SceneGraphRulesAgent:
        return cls(options.perception or "ground-truth")

    @property
    def label(self) -> str:
        return f"scene-graph-rules[{self.spec.label}]"

    async def decide(self, ctx: QueryContext) -> contract.Decision:
        from streamspatial.models.types import GenerationParams, TextPart

        item, query, prior = ctx.item, ctx.query, ctx.prior_answers
        memory = self.memory_at(ctx.view, item, query)
        provider = self.state(item).provider
        labels = set(getattr(provider, "labels", ())) | memory.labels()
        attrs = list(getattr(provider, "attributes", ()))
        text, rule = answer(memory, item, labels=labels, attributes=attrs, prior=prior)
        if not text:
            key = item.intent.get("task") if item.intent else item.task.task
            self.unsupported[str(key)] = self.unsupported.get(str(key), 0) + 1
        intent = parse_intent(item, labels, attrs)
        nodes = retrieve(memory, intent, self.top_k)
        diag = diagnostics(memory, nodes, query, [], rule=rule)
        if not item.explorable:
            return contract.Answer(text, diag)
        # Looking around may follow: keep the memory as it stood at t_q, and ask our own
        # backend through the exploration controller (which offers the actions).
        self._answers[(item.id, round(float(query.time), 6))] = (text, rule)
        self._explorable[item.id] = Exploring(
            copy.deepcopy(memory), item, labels, attrs, prior, provider, query.time
        )
        request = ctx.request(
            (TextPart(render_subgraph(memory, nodes)), TextPart(item.question)),
            params=GenerationParams(),
            system="scene-graph-rules",
        )
        return contract.Ask(request, diag, backend=RuleAnswerBackend(self))

    def answer_for(self, item_id: str, query_time: float) -> str:
        return self._answers.get((item_id, round(float(query_time), 6)), ("", None))[0]

    def answer_after_looking(self, item_id: str, views: Sequence[Any]) -> str:
        """The answer once the exploration views (their ground-truth records) are perceived.

        They enter a copy of the memory as it stood at t_q, so they never reach the memory
        later questions of the video are answered from.
        """
        ex = self._explorable[item_id]
        memory = copy.deepcopy(ex.memory)
        observe = getattr(ex.provider, "observation_of", None)
        if observe is None:
            return ""
        for i, view in enumerate(sorted(views, key=lambda v: v.time)):
            obs = observe(view.record, memory.last_index + 1 + i, float(view.time))
            memory.ingest(obs)
        text, _ = answer(memory, ex.item, labels=ex.labels, attributes=ex.attrs, prior=ex.prior)
        return text


class RuleAnswerBackend:
    """The "model" of the rules agent: returns the reasoner's answer for each request."""

    def __init__(self, agent: SceneGraphRulesAgent):
        self.agent = agent
        self.name = "rules"

    async def generate(self, request: Any) -> Any:
        from streamspatial.models.types import ModelResponse

        if request.item_id in self.agent._explorable:
            texts = " ".join(getattr(p, "text", "") for p in request.parts)
            views = [v for v in request.images if v.record is not None]
            if views:
                return ModelResponse(text=self.agent.answer_after_looking(request.item_id, views))
            if EXPLORE_OFFER in texts:  # the controller offers actions: look around first
                return ModelResponse(text=LOOK_AROUND)
        text = self.agent.answer_for(request.item_id, request.query_time)
        if not text:
            return ModelResponse(text="", error=None)
        return ModelResponse(text=text)

    async def aclose(self) -> None:
        return None

"""``scans build --vsibench-meta``: VSI-Bench's box-only questions from its released scene metadata.

VSI-Bench (thinking-in-space) releases, per ScanNet and ARKitScenes scene, ``room_size``,
``object_counts`` and ``object_bbox`` (per category, a list of ``centroid``, ``axesLengths``,
``normalizedAxes``).  Boxes alone answer six of its question types, each about the whole
scene (asked at the end of the video): ``object_counting``, ``object_size_estimation``
(longest side, cm), ``object_abs_distance`` (closest points of two boxes, m),
``room_size_estimation`` (m²), ``object_rel_direction_v2`` (standing by A facing B: is C to
the left, right or back) and ``object_rel_distance`` (which of four categories is closest to
X).  As VSI-Bench does, only categories with a single instance are named in the last four.

VSI-Bench-Debiased showed that VSI-Bench's own questions on these scenes can be answered
without the video.  So every candidate a scene offers is drafted, :data:`PER_TASK` a scene
asked and the rest kept in reserve, direction classes dealt evenly, the correct letter dealt
round the options, and the set Iterative-Bias-Pruned against the reserve
(:func:`streamspatial.sim.generate.debias`) as a generated benchmark is.  The file written is
VSI-Bench's own layout (``vsibench.jsonl``: ``id, dataset, scene_name, question_type,
question, options, ground_truth``), with ``items.jsonl`` and ``manifest.json`` beside it.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from streamspatial.core.errors import InputError, Problem

PER_TASK = 1  # questions of a task asked per scene (the rest: reserve for pruning)
RESERVE = 6  # reserve drafts per task and scene at most
SAMPLE_M = 0.05  # box surfaces sampled at this spacing for closest-point distances (VLM-3R)
DIRECTION_MARGIN = math.radians(15)  # C at least this far from a sector's edge
LETTERS = "ABCD"


@dataclass(frozen=True)
class MetaBox:
    category: str
    center: np.ndarray
    lengths: np.ndarray
    axes: np.ndarray  # rows: unit axes


def read_meta(path: Path) -> tuple[str, dict[str, dict]]:
    """(dataset, scene → record) of a VSI-Bench metadata file, every field checked."""
    if not path.is_file():
        raise InputError(
            Problem(file=str(path), field="", expected="VSI-Bench scene metadata (file missing)")
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(Problem(file=str(path), field="", expected=f"JSON ({e})")) from None
    if not isinstance(data, dict) or not data:
        raise InputError(Problem(file=str(path), field="", expected="an object of scenes"))
    name = path.name.lower()
    dataset = next((d for d in ("scannetpp", "scannet", "arkitscenes") if name.startswith(d)), "")
    if not dataset:
        raise InputError(
            Problem(
                file=str(path),
                field="",
                expected="a file named after its dataset "
                "(scannet_meta_info_val.json, arkitscenes_meta_info_val.json)",
            )
        )
    for scene, rec in data.items():
        for key in ("room_size", "object_counts", "object_bbox"):
            if not isinstance(rec, dict) or key not in rec:
                raise InputError(
                    Problem(
                        file=str(path), item_id=scene, field=key, expected="present in every scene"
                    )
                )
        for cat, boxes in rec["object_bbox"].items():
            for n, b in enumerate(boxes):
                for key, size in (("centroid", 3), ("axesLengths", 3), ("normalizedAxes", 9)):
                    v = b.get(key) if isinstance(b, dict) else None
                    if not isinstance(v, list) or len(v) != size:
                        raise InputError(
                            Problem(
                                file=str(path),
                                item_id=scene,
                                field=f"object_bbox.{cat}[{n}].{key}",
                                expected=f"{size} numbers",
                            )
                        )
    return dataset, data


def boxes_of(rec: dict) -> list[MetaBox]:
    return [
        MetaBox(
            cat,
            np.asarray(b["centroid"], float),
            np.asarray(b["axesLengths"], float),
            np.asarray(b["normalizedAxes"], float).reshape(3, 3),
        )
        for cat, bs in sorted(rec["object_bbox"].items())
        for b in bs
    ]


def surface(box: MetaBox) -> np.ndarray:
    """Points on the box's faces, at most :data:`SAMPLE_M` apart."""
    axes = [np.linspace(-h / 2, h / 2, max(2, math.ceil(h / SAMPLE_M) + 1)) for h in box.lengths]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    on = np.any(np.isclose(np.abs(grid), box.lengths / 2), axis=1)
    return box.center + grid[on] @ box.axes


def closest(a: MetaBox, b: MetaBox) -> float:
    pa, pb = surface(a), surface(b)
    d, _ = cKDTree(pb).query(pa)
    return float(d.min())


def _text(cat: str) -> str:
    return cat.replace("_", " ")


def _mc(options: list[str], answer: str, slot: int) -> tuple[list[str], str]:
    """The options with the answer at letter ``slot`` (the others in their drawn order)."""
    others = [o for o in options if o != answer]
    slot = slot % (len(others) + 1)
    opts = [*others[:slot], answer, *others[slot:]]
    return [f"{LETTERS[i]}. {o}" for i, o in enumerate(opts)], LETTERS[slot]


def drafts(scene: str, rec: dict, rng: random.Random) -> dict[str, list[dict]]:
    """Every question the scene's boxes answer, by question type (unlettered for choices)."""
    boxes = boxes_of(rec)
    counts = {c: int(n) for c, n in rec["object_counts"].items()}
    single = {b.category: b for b in boxes if counts.get(b.category, 0) == 1}
    out: dict[str, list[dict]] = {}
    out["object_counting"] = [
        {"question": f"How many {_text(c)}(s) are in this room?", "ground_truth": n}
        for c, n in sorted(counts.items())
        if n > 1
    ]
    out["object_size_estimation"] = [
        {
            "question": f"What is the length of the longest dimension (length, width, or height) "
            f"of the {_text(c)}, measured in centimeters?",
            "ground_truth": round(float(b.lengths.max()) * 100),
        }
        for c, b in sorted(single.items())
    ]
    pairs = list(itertools.combinations(sorted(single), 2))
    rng.shuffle(pairs)
    out["object_abs_distance"] = [
        {
            "question": f"Measuring from the closest point of each object, what is the direct "
            f"distance between the {_text(a)} and the {_text(b)} (in meters)?",
            "ground_truth": round(closest(single[a], single[b]), 1),
        }
        for a, b in pairs[: 3 * RESERVE]
    ]
    out["room_size_estimation"] = [
        {
            "question": "What is the size of this room (in square meters)? If multiple rooms are "
            "shown, estimate the size of the combined space.",
            "ground_truth": round(float(rec["room_size"]), 1),
        }
    ]
    out["object_rel_direction_v2"] = _directions(single, rng)
    out["object_rel_distance"] = _nearest(single, rng)
    return out


def _directions(single: dict[str, MetaBox], rng: random.Random) -> list[dict]:
    out = []
    triples = list(itertools.permutations(sorted(single), 3))
    rng.shuffle(triples)
    for a, b, c in triples[: 20 * RESERVE]:
        pa, pb, pc = (single[k].center[:2] for k in (a, b, c))
        facing = math.atan2(*(pb - pa)[::-1])
        bearing = math.atan2(*(pc - pa)[::-1]) - facing
        bearing = math.atan2(math.sin(bearing), math.cos(bearing))  # + = to the left
        if np.linalg.norm(pb - pa) < 0.3 or np.linalg.norm(pc - pa) < 0.3:
            continue
        if abs(bearing) > math.radians(135) + DIRECTION_MARGIN:
            answer = "back"
        elif math.radians(15) < bearing < math.radians(135) - DIRECTION_MARGIN:
            answer = "left"
        elif -math.radians(135) + DIRECTION_MARGIN < bearing < -math.radians(15):
            answer = "right"
        else:
            continue  # near an edge, or straight ahead: no clear answer
        out.append(
            {
                "question": f"If I am standing by the {_text(a)} and facing the {_text(b)}, "
                f"is the {_text(c)} to my left, right, or back? An object is to my back if "
                "I would have to turn at least 135 degrees in order to face it.",
                "choices": ["left", "right", "back"],
                "answer": answer,
            }
        )
    return out


def _nearest(single: dict[str, MetaBox], rng: random.Random) -> list[dict]:
    out = []
    cats = sorted(single)
    rng.shuffle(cats)
    for x in cats:
        others = [c for c in sorted(single) if c != x]
        if len(others) < 4:
            continue
        picks = rng.sample(others, 4)
        dist = {c: closest(single[x], single[c]) for c in picks}
        ranked = sorted(picks, key=dist.__getitem__)
        if dist[ranked[1]] - dist[ranked[0]] < 0.15:
            continue  # no clear nearest
        out.append(
            {
                "question": f"Measuring from the closest point of each object, which of these "
                f"objects ({', '.join(_text(c) for c in picks)}) is the closest to the {_text(x)}?",
                "choices": [_text(c) for c in picks],
                "answer": _text(ranked[0]),
            }
        )
    return out


def vsibench_rows(path: Path, *, seed: int = 0, per_task: int = PER_TASK) -> list[dict]:
    """Every drafted row (VSI-Bench columns, plus ``_reserve``) of a metadata file."""
    dataset, data = read_meta(path)
    rows: list[dict] = []
    slots: dict[str, int] = {}
    turn: dict[str, int] = {}
    for scene in sorted(data):
        rng = random.Random(f"{seed}:{dataset}:{scene}")
        for qtype, found in drafts(scene, data[scene], rng).items():
            if "choices" in (found[0] if found else {}):
                # deal the direction classes evenly: the class asked next comes first
                order = sorted(
                    found,
                    key=lambda d: (
                        (d["choices"].index(d["answer"]) - turn.get(qtype, 0)) % len(d["choices"])
                    ),
                )
                found = order
            for n, d in enumerate(found[: per_task + RESERVE]):
                row = {
                    "id": f"{dataset}-{scene}-{qtype}-{n}",
                    "dataset": dataset,
                    "scene_name": scene,
                    "question_type": qtype,
                    "question": d["question"],
                }
                if "choices" in d:
                    k = slots.get(qtype, 0)
                    slots[qtype] = k + 1
                    opts, letter = _mc(d["choices"], d["answer"], k)
                    row.update(options=opts, ground_truth=letter)
                    if n < per_task:
                        turn[qtype] = turn.get(qtype, 0) + 1
                else:
                    row.update(options=None, ground_truth=d["ground_truth"])
                row["_reserve"] = n >= per_task
                rows.append(row)
    return rows


def build_vsibench_meta(
    path: Path, out: Path, *, seed: int = 0, per_task: int = PER_TASK, prune: bool = True
) -> dict[str, Path]:
    """Write ``vsibench.jsonl``, ``items.jsonl`` and ``manifest.json`` under ``out``."""
    from streamspatial.bench.vsibench.reader import VSIBenchAdapter
    from streamspatial.sim.generate import debias

    rows = vsibench_rows(path, seed=seed, per_task=per_task)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    draft = out / "vsibench.drafts.jsonl"
    draft.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "_reserve"}) + "\n" for r in rows)
    )
    loaded = VSIBenchAdapter().load(draft)
    draft.unlink()
    if loaded.problems:
        raise AssertionError(f"drafted rows fail VSI-Bench's schema: {loaded.problems[0]}")
    reserve = {r["id"]: r["_reserve"] for r in rows}
    items = [
        it.model_copy(
            update={"meta": {**it.meta, "family": it.task.task, "reserve": reserve[it.id]}}
        )
        for it in loaded.items
    ]

    @dataclass(frozen=True)
    class _Cfg:  # what debias reads of a configuration
        seed: int
        per_family: int
        prune: bool

    scenes = len({it.video for it in items})
    kept, pruning = debias(items, _Cfg(seed, per_task, prune), walks=scenes)  # type: ignore[arg-type]
    keep = {it.id for it in kept}
    by_id = {r["id"]: {k: v for k, v in r.items() if k != "_reserve"} for r in rows}
    files = {
        "release": out / "vsibench.jsonl",
        "items": out / "items.jsonl",
        "manifest": out / "manifest.json",
    }
    _write(files["release"], [json.dumps(by_id[i]) for i in sorted(keep)])
    _write(files["items"], [it.model_dump_json() for it in sorted(kept, key=lambda it: it.id)])
    from collections import Counter

    manifest = {
        "source": "vsibench-meta",
        "meta": str(path),
        "seed": seed,
        "per_task": per_task,
        "scenes": scenes,
        "items": len(kept),
        "tasks": dict(sorted(Counter(it.task.task for it in kept).items())),
        "files": {k: v.name for k, v in files.items()},
        **({"pruning": pruning} if pruning else {}),
    }
    _write(files["manifest"], [json.dumps(manifest, indent=2, sort_keys=True)])
    return files


def _write(path: Path, lines: list[str]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(path)

"""``streamspatial overlay`` and ``streamspatial loop``: VCBench's video tools.

Both write a new benchmark folder (``OUT/videos/<source>/…`` and a VCBench data-layout
JSONL) that ``validate`` and ``run`` accept as is, so the oracle-count and long-periodic
experiments are ordinary runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from streamspatial.cli.options import NoProgress, progress_bar
from streamspatial.core.errors import StreamspatialError


def register(app: typer.Typer) -> None:
    @app.command("overlay")
    def overlay(
        data: Annotated[Path, typer.Option(help="VCBench file (data or eval layout).")],
        videos: Annotated[Path, typer.Option(help="Folder holding its videos.")],
        out: Annotated[Path, typer.Option(help="Output folder (videos/ + the new JSONL).")],
        no_progress: NoProgress = False,
    ) -> None:
        """Re-encode each counting item's video with "Current count: N" drawn top-left."""
        from streamspatial.analysis.overlay import occurrence_ends, overlay_items, overlay_video
        from streamspatial.bench.registry import load_benchmark
        from streamspatial.bench.vcbench.export import write_vcbench_jsonl

        adapter, items = load_benchmark(data, "vcbench", videos=videos)
        kept, skipped = overlay_items(items)
        if not kept:
            raise StreamspatialError(f"{data}: no item with accumulating occurrences to overlay")
        new_items = []
        bar = progress_bar(no_progress)
        if bar:
            bar.start()
            task = bar.add_task("overlay", total=len(kept))
        try:
            for item in kept:
                source, _, name = item.video.partition("/")
                rel = f"{item.id}__{Path(name or item.video).name}"
                dst = out / "videos" / (item.source or source) / rel
                ends = occurrence_ends(item.meta.get("occurrence_times"))
                overlay_video(adapter.video_path(item, videos), dst, ends)
                new_items.append(
                    item.model_copy(
                        update={
                            "video": f"{item.source or source}/{rel}",
                            "meta": {**item.meta, "video_path": rel},
                        }
                    )
                )
                if bar:
                    bar.advance(task)
        finally:
            if bar:
                bar.stop()
        target = out / f"{data.stem}_count_overlay.jsonl"
        write_vcbench_jsonl(new_items, target)
        for line in skipped:
            typer.echo(f"left out: {line}", err=True)
        typer.echo(
            f"{len(new_items)} item(s) overlaid, {len(skipped)} left out → {target} "
            f"(videos in {out / 'videos'})",
            err=True,
        )

    @app.command("loop")
    def loop(
        video: Annotated[Path, typer.Argument(help="Source clip holding one seamless cycle.")],
        start: Annotated[float, typer.Option(help="Cycle start (s).")],
        end: Annotated[float, typer.Option(help="Cycle end (s); the frame here looks like start.")],
        out: Annotated[Path, typer.Option(help="Output folder (videos/ + JSONL + loop.json).")],
        split: Annotated[
            list[float] | None,
            typer.Option(help="Sub-action boundary inside the cycle (s); repeatable."),
        ] = None,
        cycles: Annotated[int | None, typer.Option(help="Number of cycles.")] = None,
        seconds: Annotated[
            float | None, typer.Option(help="Target length (s) when --cycles is not given.")
        ] = 150.0,
        queries: Annotated[int, typer.Option(help="Query points (mid-cycle).")] = 5,
        id: Annotated[str, typer.Option("--id", help="Item id.")] = "loop-0",
        source: Annotated[str, typer.Option(help="Source-dataset folder name.")] = "loops",
        question: Annotated[
            str, typer.Option(help="The counting question.")
        ] = "How many times has the person completed the action so far?",
    ) -> None:
        """Repeat one annotated cycle into a long E2-Periodic video with exact cycle times."""
        from streamspatial.analysis.loop import loop_record, plan_loop, write_loop_video
        from streamspatial.video.sources import probe_video

        info = probe_video(video)
        from fractions import Fraction

        rate = Fraction(info.fps).limit_denominator(1001)
        plan = plan_loop(
            rate, info.n_frames, start, end, splits=tuple(split or ()),
            cycles=cycles, seconds=None if cycles else seconds, file=str(video),
        )  # fmt: skip
        name = f"{id}.mp4"
        written = write_loop_video(video, out / "videos" / source / name, plan)
        record = loop_record(plan, id, source, name, question, queries)
        (out / f"{id}.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
        occ = plan.occurrences()
        timing = {
            "source_video": str(video),
            "fps": float(rate),
            "start_frame": plan.start_frame,
            "end_frame": plan.end_frame,
            "frames_per_cycle": plan.frames_per_cycle,
            "cycle_period_s": plan.cycle_period,
            "cycles": plan.cycles,
            "frames": written,
            "duration_s": plan.duration,
            "cycle_starts_s": plan.cycle_starts(),
            "occurrence_ends_s": [e for _, e in occ],
        }
        (out / f"{id}.loop.json").write_text(json.dumps(timing, indent=2) + "\n")
        typer.echo(
            f"{plan.cycles} cycles × {plan.cycle_period:.3f} s = {plan.duration:.3f} s, "
            f"{len(occ)} occurrences → {out / f'{id}.jsonl'}",
            err=True,
        )


__all__ = ["register"]

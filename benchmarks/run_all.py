"""Run every benchmark, print each figure against its goal, optionally rewrite the doc.

    python benchmarks/run_all.py                 # full size: the goal figures (tens of minutes)
    python benchmarks/run_all.py --quick         # smaller workloads, for a quick check
    python benchmarks/run_all.py --write-docs    # and regenerate docs/performance.md's table

Each benchmark runs in its own process and ends with a ``RESULT`` line (see ``_common.py``);
the exit status is 1 when any benchmark missed a goal or failed.  A benchmark that needs
hardware this machine lacks (``gpu_throughput.py`` without a GPU) exits 2 saying so: it is
listed as not run, is no failure, and keeps its last measured rows.  Only the block between the
``measured`` markers of docs/performance.md is rewritten; the rest of the page is prose.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import GOALS, load

HERE = Path(__file__).parent
DOC = HERE.parent / "docs" / "performance.md"
START, END = "<!-- measured:start -->", "<!-- measured:end -->"

# (script, extra arguments at full size, at --quick)
BENCHMARKS = [
    ("run_memory.py", [], ["--quick"]),
    ("throughput.py", [], ["--quick"]),
    ("decode.py", [], ["--quick"]),
    ("memory_agents.py", [], ["--quick"]),
    ("agents.py", [], ["--quick"]),
    (
        "long_stream.py",
        ["--lengths", "10", "120"],
        ["--lengths", "10", "30", "--only", "uniform-128", "folding", "scene-graph"],
    ),
    ("runner_stream.py", [], ["--quick"]),
    ("bench_load.py", [], ["--quick"]),
    ("eval_extraction.py", [], ["--quick"]),
    ("sim.py", [], ["--frames", "40", "--episode-seconds", "10"]),
    ("render_speed.py", [], ["--quick"]),
    ("question_speed.py", [], ["--quick"]),
    ("footage_realism.py", [], ["--quick"]),
    ("gpu_throughput.py", [], ["--quick"]),
]
# The first word a benchmark prints before exiting 2 when this machine cannot run it.
NOT_RUN = {2: ("no GPU",)}


def not_run(rc: int, output: str) -> str | None:
    """Why a benchmark did not run here (its own line), or None when it ran."""
    for line in output.splitlines():
        if line.startswith(NOT_RUN.get(rc, ())):
            return line
    return None


def run(script: str, args: list[str]) -> tuple[int, dict | None, str, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(HERE / script), *args], capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    why = not_run(proc.returncode, proc.stdout)
    if why is not None:
        return proc.returncode, None, why, wall
    tail = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or [""])[-1]
    return proc.returncode, result, tail, wall


def previous_rows(text: str) -> dict[str, str]:
    """The measured table's rows now in the doc, by the goal each row reports (its figure
    column): ``--only`` re-measures some benchmarks and keeps the others' last figures."""
    block = text.split(START, 1)[1].split(END, 1)[0] if START in text else ""
    rows = {}
    for key, goal in GOALS.items():
        for line in block.splitlines():
            if line.startswith("| `") and f"| {goal.what} |" in line:
                rows[key] = line
    return rows


def table(results: dict[str, dict], quick: bool, kept: dict[str, str] | None = None) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        START,
        f"Measured {when} with `python benchmarks/run_all.py{' --quick' if quick else ''}` "
        f"on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        + ("; rows of benchmarks not re-run kept from their last measurement" if kept else "")
        + ".",
        "",
        "| benchmark | figure | goal | measured (median [range of runs]) | met | load |",
        "|---|---|---|---|---|---|",
    ]
    for key, goal in GOALS.items():
        hit = next(
            ((name, r["figures"][key]) for name, r in results.items() if key in r["figures"]),
            None,
        )
        if hit is None and kept and key in kept:
            lines.append(kept[key])
            continue
        if hit is None:
            lines.append(f"| – | {goal.what} | {goal.text()} | not run | – | – |")
            continue
        name, f = hit
        runs = f["runs"]
        measured = f"{f['value']:.3g}" + (
            f" [{min(runs):.3g}–{max(runs):.3g}]" if len(runs) > 1 else ""
        )
        lines.append(
            f"| `{name}` | {goal.what} | {goal.text()} | {measured} — {f['detail']} | "
            f"{'yes' if f['ok'] else '**no**'} | {f['load']} |"
        )
    lines.append(END)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--only", nargs="+", help="scripts to run, e.g. decode.py")
    args = ap.parse_args()
    print(f"{load()}", flush=True)
    results: dict[str, dict] = {}
    failed: list[str] = []
    skipped: list[str] = []
    for script, full, quick in BENCHMARKS:
        if args.only and script not in args.only:
            continue
        print(f"--- {script}", flush=True)
        rc, result, tail, wall = run(script, quick if args.quick else full)
        if not_run(rc, tail):
            skipped.append(script)
            print(f"    not run: {tail}", flush=True)
            continue
        if result is not None:
            results[script] = result
            for key, f in result["figures"].items():
                print(
                    f"    {key}: {f['value']:.3g} (goal {f['goal']}) "
                    f"{'ok' if f['ok'] else 'MISSED'}; {f['load']}"
                )
        if rc != 0:
            failed.append(script)
            print(f"    exit {rc}: {tail}")
        print(f"    {wall:.0f} s", flush=True)
    if args.write_docs:
        text = DOC.read_text()
        if START not in text or END not in text:
            raise SystemExit(f"{DOC}: the {START} … {END} markers are missing")
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1]
        kept = {
            key: row
            for key, row in previous_rows(text).items()
            if args.only or any(f"| `{name}` |" in row for name in skipped)
        }
        DOC.write_text(head + table(results, args.quick, kept) + tail)
        print(f"wrote {DOC}")
    if skipped:
        print(f"not run on this machine: {', '.join(skipped)}", file=sys.stderr)
    if failed:
        print(f"missed or failed: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

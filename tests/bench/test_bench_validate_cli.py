"""``streamspatial validate``: exit codes, one line per problem, a summary, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from streamspatial.cli import validate as validate_cmd
from streamspatial.video.synthetic import write_timestamp_video

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"
EXAMPLE = Path(__file__).parents[2] / "examples" / "ovos_example.jsonl"


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    # The command as registered by the real CLI, in an app that always has subcommands.
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

    @app.callback()
    def _root() -> None:
        pass

    validate_cmd.register(app)
    return app


def _run(app, *args):
    return CliRunner().invoke(app, ["validate", *map(str, args)])


def test_clean_file_exits_0_with_summary_table(app):
    res = _run(app, EXAMPLE)
    assert res.exit_code == 0, res.output
    assert f"{EXAMPLE}: ovos, 10 items, 12 query points" in res.output
    assert "Revisit Counting" in res.output
    assert "│ L2    │ Revisit Counting" in res.output


@pytest.mark.parametrize(
    ("name", "n"),
    [
        ("ovos_broken.jsonl", 13),
        ("vcbench_broken_eval.jsonl", 5),
        ("vcbench_broken_data.jsonl", 3),
        ("ucs_broken.json", 6),
        ("ucs_broken.jsonl", 3),
        ("s3_broken.jsonl", 8),
    ],
)
def test_broken_files_exit_2_one_line_per_problem(app, name, n):
    path = FIXTURES / name
    res = _run(app, path)
    assert res.exit_code == 2
    lines = res.stdout.splitlines()
    assert len(lines) == n
    assert all(line.startswith(f"{path}:") for line in lines)
    assert f"{n} problem(s) in {path}" in res.stderr
    assert "Traceback" not in res.output


def test_forced_wrong_format_reports_problems_not_a_crash(app):
    res = _run(app, FIXTURES / "ovos_good.jsonl", "--format", "vcbench")
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert "field 'counting_subtype': missing; expected a string" in res.stdout


def test_user_mistakes_are_one_line_exit_2(app, tmp_path):
    res = _run(app, tmp_path / "nope.jsonl")
    assert (res.exit_code, res.stdout.strip()) == (2, f"{tmp_path / 'nope.jsonl'}: file not found")
    res = _run(app, EXAMPLE, "--format", "ovo")
    assert res.exit_code == 2
    assert res.stdout.strip() == (
        "unknown --format 'ovo'; expected one of auto, ovos, vcbench, ucs, s3, vsibench, "
        "ovobench, streamingbench, ostbench, vsisuper, rtvbench, omnimmi, mmsivideo"
    )
    res = _run(app, EXAMPLE, "--videos", tmp_path / "novideos")
    assert (res.exit_code, res.stdout.strip()) == (
        2,
        f"{tmp_path / 'novideos'}: videos folder not found",
    )
    garbage = tmp_path / "g.parquet"
    garbage.write_bytes(b"PAR1 garbage")
    res = _run(app, garbage, "--format", "vsibench")
    assert res.exit_code == 2
    assert res.stdout.startswith(f"{garbage}: not a readable parquet file")
    assert len(res.stdout.splitlines()) == 1
    assert "Traceback" not in res.output


def test_videos_option_checks_every_video(app, tmp_path):
    videos = tmp_path / "videos"
    (videos / "RoomTour3D").mkdir(parents=True)
    write_timestamp_video(videos / "RoomTour3D" / "tour.mp4", seconds=5, fps=5, size=(64, 48))
    path = FIXTURES / "vcbench_eval.jsonl"
    res = _run(app, path, "--videos", videos)
    assert res.exit_code == 2
    assert res.stdout.splitlines() == [
        f"{path}:1: item 0000: field 'query_times[2]': expected a query time within the video "
        "(5 s), got 8 s",
        f"{path}:3: item 0546: field 'query_times[1]': expected a query time within the video "
        "(5 s), got 9 s",
    ]
    write_timestamp_video(videos / "RoomTour3D" / "tour.mp4", seconds=10, fps=5, size=(64, 48))
    res = _run(app, path, "--videos", videos)
    assert res.exit_code == 0, res.output
    assert "videos checked" in res.stdout


def test_console_entry_point_runs_validate():
    """The README's first command, through the real ``streamspatial`` entry point."""
    import subprocess
    import sys

    ok = subprocess.run(
        [sys.executable, "-m", "streamspatial", "validate", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "10 items, 12 query points" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "streamspatial", "validate", str(FIXTURES / "s3_broken.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert len(bad.stdout.splitlines()) == 8
    assert "Traceback" not in bad.stderr

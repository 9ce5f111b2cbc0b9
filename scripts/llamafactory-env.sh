#!/usr/bin/env bash
# A virtual environment with LLaMA-Factory, to load `export-sft --format llamafactory` with
# LLaMA-Factory's own dataset loader (tests/train/test_train_frameworks.py; docs/training.md).
#
#   scripts/llamafactory-env.sh [ENV]        # default ENV: .venv-llamafactory (git-ignored)
#   STREAMSPATIAL_LLAMAFACTORY_ENV=ENV python -m pytest tests/train/test_train_frameworks.py
#
# LLaMA-Factory 0.9.5 pins transformers<=5.6.0 and datasets<=4.0.0, which the project's own
# environment does not keep, so it gets one of its own (about 6.6 GB: torch with its CUDA
# libraries, which run on a CPU too). torchvision comes with it: the Qwen2-VL processor the
# loader's multimodal plugin uses needs it. streamspatial is not installed there: the test
# puts this checkout's src/ on PYTHONPATH for its tiny test processor (streamspatial.testing).
set -euo pipefail
ENV="${1:-.venv-llamafactory}"
LLAMAFACTORY="${LLAMAFACTORY_VERSION:-0.9.5}"
TORCH="${TORCH_VERSION:-2.14.1}"
TORCHVISION="${TORCHVISION_VERSION:-0.29.1}"

python3 -m venv "$ENV"
"$ENV/bin/python" -m pip install -q --upgrade pip
"$ENV/bin/python" -m pip install -q "torch==$TORCH" "torchvision==$TORCHVISION"
"$ENV/bin/python" -m pip install -q "llamafactory==$LLAMAFACTORY"
"$ENV/bin/python" -c "import llamafactory, torchvision, transformers, datasets; print(
    f'LLaMA-Factory {llamafactory.__version__} (transformers {transformers.__version__}, '
    f'datasets {datasets.__version__}, torchvision {torchvision.__version__}) in $ENV')"

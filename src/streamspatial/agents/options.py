"""The run options agents declare: what an agent reads of a run besides the model's answers.

Each built-in agent's registry entry names the options it exists for (``--perception`` for
the two scene-graph agents, ``--fold-every`` and ``--fold-memory`` for the folding agent,
``--policy`` for the frame-policy agent); the run's configuration and ``streamspatial run``'s
flags are made from these declarations (``eval.options``).  An agent reads its options from
:class:`~streamspatial.agents.contract.AgentOptions`, whose fields carry the same names.
"""

from __future__ import annotations

from typing import Literal

from streamspatial.agents.contract import FOLD_EVERY_S
from streamspatial.core.options import Option

POLICY = Option(
    "policy",
    str,
    "uniform-128",
    "Frame policy: uniform-128 (default), single@query, nearest-16f@4fps, log-decay-128, "
    "oracle-evidence, window-K@Ffps/Ws, none (text only).",
)
# Memory agents: ground-truth[:noise=S], classical, model:…; None: the agent's own default.
PERCEPTION = Option(
    "perception",
    str | None,
    None,
    "--agent scene-graph / scene-graph-rules: ground-truth (default), ground-truth:noise=0.5, "
    "classical, model:depth=DIR,detector=DIR.",
)
FOLD_EVERY = Option(
    "fold_every",
    float,
    FOLD_EVERY_S,
    f"--agent folding: seconds between memory folds (default {FOLD_EVERY_S:g}).",
    bounds={"gt": 0},
)
FOLD_MEMORY = Option(
    "fold_memory",
    Literal["prose", "json"],
    "prose",
    "--agent folding: prose (default) or json, the structured memory of docs/agents.md that "
    "training data teaches (docs/training.md).",
    cli_type=str,
)

__all__ = ["FOLD_EVERY", "FOLD_MEMORY", "PERCEPTION", "POLICY"]

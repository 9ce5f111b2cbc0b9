"""Rules over *when* things were seen: VCBench-style counts at a moment and over a window.

* O1-Snap: how many of a label are in view now — nodes observed in the latest frame;
* O2-Unique: how many different ones so far — every node of the label;
* O2-Gain: how many new ones during the last N seconds — nodes first seen inside the window.
"""

from __future__ import annotations

from collections.abc import Callable

from streamspatial.agents.rule_context import Answer, RuleContext, nearest_number_option


def _answer(ctx: RuleContext, n: int) -> Answer:
    return float(n) if not ctx.item.options else nearest_number_option(ctx, n)


def _snap(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    if labels is None:
        return None
    now = ctx.memory.last_index
    return _answer(
        ctx, sum(1 for n in ctx.memory.nodes() if n.label in labels and n.last_index == now)
    )


def _unique(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    if labels is None:
        return None
    return _answer(ctx, sum(1 for n in ctx.memory.nodes() if n.label in labels))


def _gain(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    if labels is None:
        return None
    since = ctx.memory.time - ctx.seconds(10.0)
    return _answer(
        ctx,
        sum(1 for n in ctx.memory.nodes() if n.label in labels and n.first_seen > since + 1e-6),
    )


RULES: dict[str, Callable[[RuleContext], Answer]] = {
    "o1_snap": _snap,
    "o2_unique": _unique,
    "identity_persistence": _unique,
    "o2_gain": _gain,
}

__all__ = ["RULES"]

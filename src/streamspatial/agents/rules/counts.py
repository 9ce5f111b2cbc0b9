"""Rules over *when* things were seen: VCBench-style counts at a moment and over a window.

* O1-Snap: how many of a label are in view now — nodes observed in the latest frame;
* O1-Delta: how that number changed over the last N seconds (``memory.view_log``);
* O2-Unique: how many different ones so far — every node of the label;
* O2-Gain: how many new ones during the last N seconds — nodes first seen inside the window.
"""

from __future__ import annotations

from streamspatial.agents.rules.context import Answer, RuleContext, nearest_number_option


def _answer(ctx: RuleContext, n: int) -> Answer:
    # a count is written as an integer ("3"): VCBench's official scorer reads answers with int()
    return str(n) if not ctx.item.options else nearest_number_option(ctx, n)


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


def _delta(ctx: RuleContext) -> Answer:
    labels = ctx.target_labels()
    then = ctx.memory.in_view_at(ctx.memory.time - ctx.seconds(10.0))
    if labels is None or then is None:
        return None
    nodes = {n.node_id: n for n in ctx.memory.nodes()}
    now = sum(
        1 for v in ctx.memory.in_view if v.node_id in nodes and nodes[v.node_id].label in labels
    )
    before = sum(1 for i in then if i in nodes and nodes[i].label in labels)
    return str(now - before)

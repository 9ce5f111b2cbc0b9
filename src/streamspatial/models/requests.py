"""The request that asks a model about one item at one time, filled in one place.

Whoever asks about an item — an agent answering a query point, the blind probe, the judge of a
reply, the diagnosis of a recorded answer — sends the content with the same fields taken from
the item: the query time (what causality checks read) and the item id (what the response cache
and the scripted backends key on).  A request that *answers* the item also carries the choice
letters and the frequent baseline's task key, so every backend, the baselines included, can
answer it without parsing the prompt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from streamspatial.core.schema import Item
from streamspatial.models.baselines import frequent_task_key
from streamspatial.models.types import GenerationParams, ModelRequest, Part, Turn


def item_request(
    item: Item,
    time: float,
    parts: Iterable[Part],
    *,
    system: str | None = None,
    params: GenerationParams | None = None,
    answering: bool = False,
    history: Sequence[Turn] = (),
) -> ModelRequest:
    """``parts`` asked about ``item`` at ``time``, after a dialogue's earlier turns (default
    decoding when ``params`` is None); a request ``answering`` the item also carries its
    choice letters and the frequent baseline's task key."""
    return ModelRequest(
        parts=tuple(parts),
        query_time=float(time),
        system=system,
        params=GenerationParams() if params is None else params,
        choices=item.letters if answering else "",
        task_key=frequent_task_key(item) if answering else "",
        item_id=item.id,
        history=tuple(history),
    )


__all__ = ["item_request"]

"""A language model judge (``run --judge SPEC``): its own backend, never the evaluated model's.

Some benchmarks' official scorer is a language model asked whether a free-text reply matches
the reference answer (OmniMMI's ``evaluate.py``).  The judge's messages carry that reference
answer, so they must never reach the model under evaluation nor its response cache: the judge
is a backend of its own, built from its own spec and URL, with no response cache, and it is
asked only after the evaluated model's reply is in.  What it says is stored with the record
(``record.extra["judge"]``: the spec, its reply verbatim, or the error), and both scorers read
that reply (:mod:`streamspatial.bench.omnimmi.score`), so ``report`` rescoring never calls it
again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.requests import item_request
from streamspatial.models.types import Backend, GenerationParams, TextPart


@dataclass
class Judge:
    """The judge of a run: its spec (as records name it) and its backend."""

    spec: str
    backend: Backend

    async def verdict(
        self, adapter: BenchmarkAdapter, item: Item, query: QueryPoint, reply: str | None
    ) -> dict[str, Any] | None:
        """What the judge says of ``reply`` (``{"model", "reply", "error"}``), or None for an
        item its benchmark scores by rule.  A failed evaluated call is not judged."""
        messages = adapter.judge_prompt(item, query, reply or "")
        if messages is None:
            return None
        if reply is None:
            return {"model": self.spec, "reply": None, "error": "the model's call failed"}
        system, user = messages
        # evaluate.py sends model and messages only: the default decoding
        request = item_request(item, query.time, (TextPart(user),), system=system)
        try:
            response = await self.backend.generate(request)
        except Exception as exc:  # a backend must not raise; keep it with the record
            return {"model": self.spec, "reply": None, "error": f"{type(exc).__name__}: {exc}"}
        if response.error:
            return {"model": self.spec, "reply": None, "error": response.error}
        return {"model": self.spec, "reply": response.text, "error": None}

    async def close(self) -> None:
        await self.backend.aclose()


def build_judge(
    spec: str,
    *,
    base_url: str | None,
    api_key_env: str,
    timeout: float,
    max_retries: int,
    concurrency: int,
) -> Judge:
    """The judge's backend from its spec (any model spec), without the run's response cache."""
    from streamspatial.models.registry import check_spec, load_backend, options_for

    check_spec(spec)
    offer: dict[str, Any] = {
        "base_url": base_url,
        "concurrency": concurrency,
        "params": GenerationParams(),
        "api_key": os.environ.get(api_key_env),
        "key_env": api_key_env,
        "timeout": timeout,
        "max_retries": max_retries,
    }
    return Judge(spec, load_backend(spec, **options_for(spec, offer)))


__all__ = ["Judge", "build_judge"]

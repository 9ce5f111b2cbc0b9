"""Reasoning traces: the one step every answer reader of the paper scorers starts with."""

from __future__ import annotations

import re

_THINK_SPAN = re.compile(r"<think>.*?</think>", re.S | re.I)
_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)


def strip_thinking(text: str) -> tuple[str, bool]:
    """Remove ``<think>…</think>`` spans; return ``(answer_text, truncated)``.

    Matching must only see the post-thinking tail: letters inside reasoning ("maybe B… no, C")
    would otherwise be read as answers.  An opening tag with no closing tag means the model ran
    out of its thinking budget (OVO-S G.7 tags this T1a); everything after that ``<think>`` is
    unfinished reasoning, so it is dropped and ``truncated`` is True.  A closing tag with no
    opening tag (chat templates that put ``<think>`` in the prompt) ends the reasoning: only
    the text after the last ``</think>`` is kept.
    """
    out = _THINK_SPAN.sub(" ", text) if _THINK_CLOSE.search(text) else text
    closes = list(_THINK_CLOSE.finditer(out))
    if closes:
        out = out[closes[-1].end() :]
    opened = _THINK_OPEN.search(out)
    if opened:
        return out[: opened.start()].strip(), True
    return out.strip(), False

"""Where an ``hf:`` model lives: a local folder, or a Hugging Face Hub id resolved as
transformers resolves it.

``hf:/models/my-vlm`` is a folder; ``hf:Qwen/Qwen2.5-VL-7B-Instruct[@REVISION]`` is a Hub id,
the way model cards and other harnesses name a model.  A Hub id goes through
``huggingface_hub``'s own cache, so everything a user has set for it holds: ``HF_HOME`` /
``HF_HUB_CACHE`` (where the cache is), ``HF_HUB_OFFLINE=1`` (cache only, no network),
``HF_TOKEN`` (private and gated models).  The token is read by ``huggingface_hub`` from the
environment; this module never sees it, so it cannot be written anywhere.

Before a run makes its folder, :func:`check_hub_model` fetches (or finds in the cache) the
model's ``config.json``: a model that is not there, a wrong revision, a gated model without a
token, or an offline machine without the model in its cache is one line naming the id and what
to do, not a traceback after the run folder exists.  The weights themselves are fetched by
``from_pretrained`` when the backend loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from streamspatial.core.errors import StreamspatialError

# ORG/NAME as the Hub spells repository ids (huggingface_hub's validate_repo_id), then an
# optional @REVISION: a branch, a tag or a commit.
_HUB_ID = re.compile(r"^(?P<repo>[\w][\w.-]*/[\w][\w.-]*)(?:@(?P<rev>[^\s@]+))?$")


@dataclass(frozen=True)
class HFModelRef:
    """An ``hf:`` model: ``source`` is a folder path or a Hub repo id, passed as such to
    ``from_pretrained`` (with ``revision`` for a Hub id)."""

    source: str
    revision: str | None = None
    local: bool = True

    @property
    def label(self) -> str:
        """The name records carry: the folder's name, or ``ORG/NAME[@REVISION]``."""
        if self.local:
            return Path(self.source).name
        return self.source + (f"@{self.revision}" if self.revision else "")


def parse_hf_spec(arg: str) -> HFModelRef:
    """The model an ``hf:`` spec's argument names, without touching the network.

    An existing folder wins (as in ``from_pretrained``); otherwise ``ORG/NAME[@REVISION]`` is a
    Hub id; anything else is a folder that does not exist, said in one line.
    """
    text = arg.strip()
    path = Path(text).expanduser()
    if path.is_dir():
        return HFModelRef(str(path))
    match = _HUB_ID.match(text)
    if match and not text.startswith((".", "~")) and ".." not in match["repo"]:
        return HFModelRef(match["repo"], match["rev"], local=False)
    raise StreamspatialError(
        f"hf:{text}: expected a local model folder or a Hugging Face Hub id ORG/NAME[@REVISION]; "
        f"{path} is not a folder"
    )


def _offline() -> bool:
    """Whether huggingface_hub runs offline (it reads ``HF_HUB_OFFLINE`` when imported)."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def check_hub_model(ref: HFModelRef) -> None:
    """Find ``ref``'s ``config.json`` in the cache, or fetch it: one line when that fails.

    A model in the cache is checked without the network.  One that is not is asked of the
    Hub, which ``huggingface_hub`` retries for about 20 s (its warnings say so) when the Hub
    cannot be reached.
    """
    if ref.local:
        return
    try:
        from huggingface_hub import errors, hf_hub_download, try_to_load_from_cache
    except ImportError as exc:  # pragma: no cover - huggingface_hub comes with transformers
        raise StreamspatialError(
            f"hf:{ref.label}: Hub ids need huggingface_hub: pip install 'streamspatial[hf]' ({exc})"
        ) from None
    name = f"hf:{ref.label}"
    try:
        if isinstance(
            try_to_load_from_cache(ref.source, "config.json", revision=ref.revision), str
        ):
            return
        hf_hub_download(ref.source, "config.json", revision=ref.revision)
    except errors.GatedRepoError:
        raise StreamspatialError(
            f"{name}: a gated model; accept its terms on huggingface.co and set HF_TOKEN"
        ) from None
    except errors.RevisionNotFoundError:
        raise StreamspatialError(
            f"{name}: no revision {ref.revision!r} on the Hugging Face Hub "
            "(a branch, a tag or a commit)"
        ) from None
    except errors.RepositoryNotFoundError:
        raise StreamspatialError(
            f"{name}: no such model on the Hugging Face Hub (a private one needs HF_TOKEN)"
        ) from None
    except errors.LocalEntryNotFoundError:
        raise StreamspatialError(_not_cached(name, ref)) from None
    except errors.RemoteEntryNotFoundError:
        raise StreamspatialError(
            f"{name}: the repository has no config.json: not a transformers model"
        ) from None
    except errors.HfHubHTTPError as exc:  # 401 without a token, 5xx…: the Hub's own words
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StreamspatialError(f"{name}: the Hugging Face Hub answered: {first}") from None
    except OSError:  # no connection, offline mode: the cache was the only chance
        raise StreamspatialError(_not_cached(name, ref)) from None
    except ValueError as exc:  # an id huggingface_hub refuses
        raise StreamspatialError(f"{name}: {exc}") from None


def _not_cached(name: str, ref: HFModelRef) -> str:
    """Why a Hub model cannot be had here, and what to do about it."""
    from huggingface_hub import constants

    rev = f" --revision {ref.revision}" if ref.revision else ""
    fetch = f"`hf download {ref.source}{rev}`"
    where = f"not in the Hugging Face cache {constants.HF_HUB_CACHE}"
    if _offline():
        return (
            f"{name}: {where}, and HF_HUB_OFFLINE forbids downloading it; run {fetch} with "
            "network into the same HF_HOME, or unset HF_HUB_OFFLINE"
        )
    return (
        f"{name}: {where}, and the Hugging Face Hub cannot be reached; run {fetch} where "
        "there is network, into this HF_HOME"
    )


__all__ = ["HFModelRef", "check_hub_model", "parse_hf_spec"]

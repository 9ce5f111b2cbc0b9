"""Training data as S3-Train makes it: records of three kinds, and their export for fine-tuning.

``sim generate --split train`` writes ``train.jsonl`` (:mod:`.build`: ``qa`` examples from the
generated items, ``explore`` examples of the explorable ones with their planned, executed and
rendered actions (:mod:`.explore`; :func:`check_explore` executes a folder's labels again),
``fold`` targets from each walk's ground truth); ``streamspatial export-sft``
(:mod:`.export`) writes what LLaMA-Factory and Qwen-VL's fine-tuning code read.  This room sits
above ``sim``, ``perception`` and ``agents`` (it reads walks, perceives them, and writes the
folding agent's memory layout) and below ``api`` and ``cli``.
"""

from __future__ import annotations

from .build import SOURCES, Inputs, Source, TrainingSummary, write_training_set
from .explore_check import LabelCheck, check_explore
from .export import ExportSummary, export_sft
from .formats import FORMATS
from .records import KINDS, TRAIN_FILE, ExtraImage, Message, TrainingExample, read_examples

__all__ = [
    "FORMATS",
    "KINDS",
    "SOURCES",
    "TRAIN_FILE",
    "ExportSummary",
    "ExtraImage",
    "Inputs",
    "LabelCheck",
    "Message",
    "Source",
    "TrainingExample",
    "TrainingSummary",
    "check_explore",
    "export_sft",
    "read_examples",
    "write_training_set",
]

"""The answer-relevance judge: does a sentence address the question that was asked?

Backed is not relevant: a sentence can be true to its page and still not answer the
question ("Eating disorders are serious behavior problems" for "what is binge eating
disorder", a treatment sentence for "what causes it"). `RelevanceJudge` is the bundled
all-MiniLM-L6-v2 fine-tuned as a cross-encoder on MedQuAD question-answer pairs
(`benchmarks/train_relevance_judge.py`): it reads (question, sentence) and gives
P(the sentence addresses the question). Its negatives were sentences of the same page's
answers to other questions, of neighbouring conditions' pages and of unrelated pages, so
it scores the question type and the subject, not only shared words.

Measured in docs/benchmarks/answer_relevance.md (MedQuAD held-out foci, MEDIQA 2019 Task 3
answer classification and ranking); the grounded default quotes a sentence only when it
is backed by a passage and this judge's P is at least `relevant_sentence_at`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path

from veriloop.errors import InvalidInputError
from veriloop.nodes.judges.calibration import CALIBRATION_DIR, sigmoid
from veriloop.nodes.judges.pair_classifier import (
    load_pair_classifier,
    pair_logits,
    weights_fingerprint,
)

RELEVANCE_DIR = CALIBRATION_DIR / "relevance_judge"
QUESTION_CHARS = 400
"""Question text the judge reads (a consumer's long message is clipped to its start)."""


class RelevanceJudge:
    """The bundled MiniLM fine-tuned to tell whether a sentence answers a question."""

    def __init__(
        self, *, judge_dir: Path = RELEVANCE_DIR, max_length: int = 160, batch_size: int = 32
    ) -> None:
        """Load the judge from `judge_dir` (once per process).

        Raises:
            InvalidInputError: No trained relevance judge in `judge_dir`.
        """
        self.judge_dir = Path(judge_dir)
        tokenizer, encoder, head, self.training = load_pair_classifier(
            self.judge_dir, "relevance", 1, "benchmarks/train_relevance_judge.py"
        )
        self.model = (tokenizer, encoder, head)
        self.max_length = max_length
        self.batch_size = batch_size
        version = self.training.get("version")
        self.name = f"MiniLM relevance judge ({self.judge_dir.name} v{version})"

    @cached_property
    def identity(self) -> str:
        """Return a fingerprint of the judge's weights (sha256 of its safetensors, 16 hex)."""
        return weights_fingerprint(self.judge_dir)

    def scores(self, question: str, sentences: Sequence[str]) -> list[float]:
        """Return P(addresses the question) for each sentence, in order."""
        return self.pair_scores([question] * len(sentences), sentences)

    def pair_scores(self, questions: Sequence[str], sentences: Sequence[str]) -> list[float]:
        """Return P(sentence addresses question) per (question, sentence) pair.

        Raises:
            InvalidInputError: The two lists differ in length.
        """
        if len(questions) != len(sentences):
            raise InvalidInputError(
                f"{len(questions)} questions for {len(sentences)} sentences: give one each"
            )
        if not sentences:
            return []
        clipped = [" ".join(q.split())[:QUESTION_CHARS] for q in questions]
        logits = pair_logits(
            self.model,
            clipped,
            [" ".join(s.split()) for s in sentences],
            max_length=self.max_length,
            batch_size=self.batch_size,
        )
        return [round(sigmoid(row[0]), 6) for row in logits]

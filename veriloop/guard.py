"""A LangChain guard: check any chain's answer against the documents it used, in LCEL.

    from veriloop.guard import GroundingGuard

    guarded = GroundingGuard(rag_chain)             # wraps a chain returning answer + context
    guarded = rag_chain | GroundingGuard()          # or composed after it
    out = guarded.invoke("What are warfarin's side effects?")
    out["verdict"], out["answer"], out["sentences"]

    for chunk in guarded.stream(question):          # the chain's chunks first, as they come,
        ...                                         # then one chunk with the check

The wrapped chain's output is a dict holding the answer (`answer`, else `output`,
`result` or `text`: a string or a chat message) and the documents it used (`context`,
else `source_documents`, `documents` or `sources`: LangChain Documents or strings), as
`create_retrieval_chain` and the LCEL RAG recipes return; a chat model's or chain's bare
string output works when the guard is given `sources=`.

The check is the grounded default's, reused (`nodes.grounding`): each answer sentence is
judged against every document by the three-way judge, gated on how much of its content the
document holds; `policy` then decides the answer's text:

- `"check"` (default): the answer is returned as the chain wrote it, with the checks;
- `"mark"`: unbacked sentences stay, marked `[unsupported]` / `[contradicted]`, and each
  backed one cites its document (`[n]`);
- `"drop"`: only backed sentences are kept, each citing its document.

The output adds `verdict` (supported: every sentence backed; hallucinated: some sentence
not backed, with `contradicted` counting those a document denies; undetermined: no
sentence to check), `sentences` (one check per sentence: text, verdict, probability,
the document and span it rests on, why), `original_answer` and `cited` (the documents
the kept sentences cite, in citation order). Nothing leaves the machine.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

from langchain_core.runnables import Runnable, RunnableConfig

from veriloop.context import ModelSettings
from veriloop.errors import InvalidInputError
from veriloop.knowledge.sources import SourcePassage
from veriloop.models import get_models
from veriloop.nodes.grounding import answer_sentences, check_sentences, cited_answer, sentence_judge
from veriloop.nodes.judges import Thresholds, check_judge_name

ANSWER_KEYS = ("answer", "output", "result", "text")
SOURCE_KEYS = ("context", "source_documents", "documents", "sources")
QUESTION_KEYS = ("question", "input", "query")
Policy = Literal["check", "mark", "drop"]


def text_of(value: Any) -> str:
    """Return the text of an answer value: a string, a chat message, or a chunk of one."""
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    raise InvalidInputError(
        f"the guarded chain's answer is {type(value).__name__}, not text or a chat message"
    )


def source_texts(sources: Any) -> list[SourcePassage]:
    """Return documents (LangChain Documents, strings or {'text'} dicts) as passages.

    One string is one document (never one document per character).

    Raises:
        InvalidInputError: The documents are not a list of those (None, a number ...).
    """
    if isinstance(sources, str):
        sources = [sources]
    if not isinstance(sources, Sequence):
        raise InvalidInputError(
            f"the documents must be a list (of Documents or texts), got {type(sources).__name__}"
        )
    passages: list[SourcePassage] = []
    for number, source in enumerate(sources, start=1):
        metadata: Mapping[str, Any] = getattr(source, "metadata", None) or {}
        if isinstance(source, str):
            text = source
        elif isinstance(getattr(source, "page_content", None), str):
            text = source.page_content
        elif isinstance(source, Mapping) and isinstance(source.get("text"), str):
            text, metadata = source["text"], source
        else:
            raise InvalidInputError(
                f"document {number} is {type(source).__name__}: give LangChain Documents, "
                "texts or {'text': ...} objects"
            )
        passages.append(
            SourcePassage(
                id=str(metadata.get("id") or number),
                text=text,
                title=str(metadata.get("title") or ""),
                url=str(metadata.get("source") or metadata.get("url") or ""),
                relevance=0.0,
            )
        )
    return passages


def _pick(mapping: Mapping[str, Any], keys: Sequence[str]) -> Any:
    return next((mapping[k] for k in keys if mapping.get(k) is not None), None)


def merge_chunk(total: dict[str, Any], chunk: Any) -> dict[str, Any]:
    """Add one streamed chunk to the output so far (strings and message chunks concatenate)."""
    if not isinstance(chunk, Mapping):
        chunk = {"answer": chunk}
    for key, value in chunk.items():
        before = total.get(key)
        if before is None:
            total[key] = value
        elif isinstance(before, str) and isinstance(value, str):
            total[key] = before + value
        elif (
            hasattr(before, "__add__")
            and type(before) is type(value)
            and hasattr(before, "content")
        ):
            total[key] = before + value
        else:
            total[key] = value
    return total


class GroundingGuard(Runnable[Any, dict[str, Any]]):
    """Check a chain's answer against the documents it used; optionally drop or mark."""

    def __init__(
        self,
        chain: Runnable[Any, Any] | None = None,
        *,
        policy: Policy = "check",
        sources: Sequence[Any] | None = None,
        judge: str = "three_way",
        supported_at: float | None = None,
        contradicted_at: float | None = None,
        min_coverage: float = 0.75,
        settings: ModelSettings | None = None,
    ) -> None:
        """Guard `chain` (None: check the input, when composed after a chain with `|`).

        Args:
            chain: The chain or chat model whose output is checked.
            policy: "check" (answer unchanged), "mark" or "drop" (see the module docstring).
            sources: Fixed documents to check against (when the output carries none).
            judge: The sentence judge, a name in `nodes.judges.JUDGES`.
            supported_at: P(supported) a backed sentence needs (None: the three-way judge's
                fitted decision, 0.5 for the support-only judges; the grounded default's).
            contradicted_at: P(contradicted) a three-way judge needs to call a sentence
                contradicted (None: its fitted decision).
            min_coverage: Share of its content words the document must hold.
            settings: Model settings (backend etc.); default the embedded models.

        Raises:
            InvalidInputError: An unknown policy or judge, or a threshold outside [0, 1].
        """
        if policy not in ("check", "mark", "drop"):
            raise InvalidInputError(f"policy must be check, mark or drop, got {policy!r}")
        check_judge_name(judge)
        Thresholds(supported_at, contradicted_at)  # refuses one outside [0, 1]
        if not 0.0 <= min_coverage <= 1.0:
            raise InvalidInputError("min_coverage must lie in [0, 1]")
        self.chain = chain
        self.policy = policy
        self.sources = (
            None if sources is None else [sources] if isinstance(sources, str) else list(sources)
        )
        self.judge = judge
        self.supported_at = supported_at
        self.contradicted_at = contradicted_at
        self.min_coverage = min_coverage
        self.settings = settings or ModelSettings()

    def check(self, output: Any, request: Any = None) -> dict[str, Any]:
        """Return the chain's output with the check added (and the policy applied).

        Raises:
            InvalidInputError: The output holds no answer, or no documents and none given.
        """
        found = dict(output) if isinstance(output, Mapping) else {"answer": output}
        answer_value = _pick(found, ANSWER_KEYS)
        if answer_value is None:
            raise InvalidInputError(
                f"the guarded output has no answer (looked for {', '.join(ANSWER_KEYS)}; "
                f"it has {', '.join(found) or 'nothing'})"
            )
        documents = _pick(found, SOURCE_KEYS)
        if documents is None:
            documents = self.sources
        if documents is None:
            raise InvalidInputError(
                f"the guarded output has no documents (looked for {', '.join(SOURCE_KEYS)}); "
                "return them from the chain or pass GroundingGuard(..., sources=[...])"
            )
        answer = text_of(answer_value)
        passages = source_texts(documents)
        question = _pick(found, QUESTION_KEYS) or (
            _pick(request, QUESTION_KEYS) if isinstance(request, Mapping) else request
        )
        question = question if isinstance(question, str) else ""
        models = get_models(self.settings)
        checked = check_sentences(
            sentence_judge(
                self.judge, models, self.min_coverage, self.supported_at, self.contradicted_at
            ),
            [(s, "generated") for s in answer_sentences(answer)],
            passages,
            question,
        )
        contradicted = sum(s.get("verdict") == "contradicted" for s in checked)
        backed = sum(s["supported"] for s in checked)
        verdict = (
            "undetermined"
            if not checked
            else "supported"
            if backed == len(checked)
            else "hallucinated"
        )
        text, order = cited_answer(checked, mark_unsupported=self.policy == "mark")
        by_id = {p["id"]: p for p in passages}
        return {
            **found,
            "answer": answer if self.policy == "check" else text,
            "original_answer": answer,
            "verdict": verdict,
            "contradicted": contradicted,
            "sentences": checked,
            "cited": [
                {"number": n, "id": i, "title": by_id[i]["title"], "url": by_id[i]["url"]}
                for n, i in enumerate(order, start=1)
            ],
        }

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Run the chain (if any) on `input`, then check its output."""
        output = self.chain.invoke(input, config, **kwargs) if self.chain is not None else input
        return self.check(output, input)

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Yield the chain's chunks as they come, then one chunk with the check."""
        if self.chain is None:
            yield self.check(input, input)
            return
        total: dict[str, Any] = {}
        for chunk in self.chain.stream(input, config, **kwargs):
            merge_chunk(total, chunk)
            yield chunk if isinstance(chunk, dict) else {"answer": chunk}
        yield self._check_chunk(self.check(total, input))

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[dict[str, Any]]:
        """Composed after a chain (`chain | guard`): pass its chunks on, then the check."""
        if self.chain is not None:
            yield from super().transform(input, config, **kwargs)
            return
        total: dict[str, Any] = {}
        for chunk in input:
            merge_chunk(total, chunk)
            yield chunk if isinstance(chunk, dict) else {"answer": chunk}
        yield self._check_chunk(self.check(total, total))

    @staticmethod
    def _check_chunk(checked: dict[str, Any]) -> dict[str, Any]:
        """Return the check's part of the output, as the stream's last chunk."""
        keys = ("verdict", "contradicted", "sentences", "cited", "original_answer")
        return {"check": {key: checked[key] for key in keys}, "checked_answer": checked["answer"]}

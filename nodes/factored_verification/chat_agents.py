"""Factored Verification's chat-model agents: the claim check and the claim-wise critique.

The claim check (`verifier` "yesno", "cot" or "auto"; the judges of the registry are
`nodes/claim_tasks.judge_tasks`): "yesno" reads P(Yes) from the token log-probs of
`factored_verification_verify` (with its demonstrations); "cot" asks for a reasoned
Yes/No (`factored_verification_verify_cot`, P = 1 or 0); "auto" tries the log-probs and
falls back to chain-of-thought on a backend without them. A claim the judge called
contradicted with the source's sentence gets that sentence as its critique (no model);
any other unsupported claim gets a model critique and a revised claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from veriloop.models import ChatTurn, Models, ScoreError
from veriloop.models.structured import ask_structured
from veriloop.nodes.claim_tasks import (
    ClaimTask,
    CritiqueRecord,
    RoundCheck,
    chat_check,
    source_quote,
)
from veriloop.nodes.claims import (
    ClaimList,
    CotVerdict,
    Critique,
    Source,
    bare_claim,
    claim_document,
    claims_drawn_from,
    read_as_answers,
    statement_claims,
)
from veriloop.nodes.scorers import yes_no_probability
from veriloop.prompts import load_prompt, render
from veriloop.trace import ModelCall

ChatVerifier = Literal["auto", "yesno", "cot"]
ClaimsFrom = Literal["decomposer", "sentences", "sentence_fallback", "none"]


def decomposed_claims(
    models: Models, question: str, answer: str, max_claims: int, overrides: dict[str, str]
) -> tuple[list[str], ClaimsFrom, list[tuple[str, float | None]], list[ModelCall]]:
    """List an answer's claims with the chat model (`factored_verification_decompose`).

    A listed claim the answer does not hold (too little of its wording in the answer) is
    dropped; the rest are read as answers to the question. When nothing is left, the
    answer's own sentences are the claims (a listing of nothing is not a verdict of
    nothing to check).

    Returns:
        The claims (the caller keeps the first `max_claims`), where they came from, the
        dropped claims with their coverage, and the model calls.
    """
    prompt = render(
        "factored_verification_decompose",
        overrides,
        question=question or "(not given)",
        answer=answer,
        max_claims=max_claims,
    )
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], ClaimList, purpose="claims"
    )
    listed = [] if reply.value is None else [c.strip() for c in reply.value.claims if c.strip()]
    drawn, dropped = claims_drawn_from(listed, answer, question)
    claims = read_as_answers(drawn, question)
    claims_from: ClaimsFrom = "decomposer"
    if not claims:
        claims = statement_claims(answer, question, max_claims)
        claims_from = "sentence_fallback" if claims else "none"
    return claims, claims_from, dropped, list(reply.calls)


def chat_verify(
    task: ClaimTask,
    models: Models,
    verifier: ChatVerifier,
    *,
    supported_at: float,
    normalise_yes_no: bool,
    overrides: dict[str, str],
) -> tuple[RoundCheck, list[ModelCall]]:
    """Estimate P(claim supported | its document) with the chat model.

    Args:
        task: The claim and its document.
        models: The models of the run.
        verifier: "yesno" (log-probs), "cot" (chain of thought) or "auto" (log-probs,
            chain of thought where the backend has none).
        supported_at: The P(claim) a supported claim needs.
        normalise_yes_no: Renormalise P(Yes) over Yes + No.
        overrides: The Context's prompt overrides.

    Returns:
        The check (its error says why when P is unknown) and the model calls.
    """
    claim = bare_claim(task["claim"])
    calls: list[ModelCall] = []
    if verifier in ("auto", "yesno"):
        prompt = render(
            "factored_verification_verify",
            overrides,
            demos=load_prompt("factored_verification_verify_demos", overrides).strip(),
            number=5,
            document=task["document"],
            claim=claim,
        )
        try:
            reading = yes_no_probability(
                models, prompt, purpose="claim_check", normalise=normalise_yes_no
            )
        except ScoreError as exc:
            if verifier == "yesno":
                unavailable = f"log-probs unavailable: {exc}"
                return chat_check(task, "logprob", None, supported_at, error=unavailable), calls
        else:
            calls.extend(reading.calls)
            p_yes = round(reading.probability, 6)
            check = chat_check(task, "logprob", p_yes, supported_at, scores=reading.scores())
            return check, calls
    prompt = render(
        "factored_verification_verify_cot", overrides, document=task["document"], claim=claim
    )
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], CotVerdict, purpose="claim_check"
    )
    calls.extend(reply.calls)
    p_cot = None if reply.value is None else (1.0 if reply.value.supported == "Yes" else 0.0)
    error = reply.error if reply.value is None else None
    return chat_check(task, "cot", p_cot, supported_at, error=error), calls


def critique_claim(
    models: Models,
    round_number: int,
    check: RoundCheck,
    sources: list[Source],
    overrides: dict[str, str],
) -> tuple[CritiqueRecord, list[ModelCall]]:
    """Ask the chat model why an unsupported claim is unsupported, and for a revised claim.

    Returns:
        The critique (its error says why when the reply was unusable) and the model calls.
    """
    prompt = render(
        "factored_verification_critique",
        overrides,
        document=claim_document(check["claim"], sources),
        claim=bare_claim(check["claim"]),
    )
    reply = ask_structured(
        models, [ChatTurn(role="user", content=prompt)], Critique, purpose="critique"
    )
    record = CritiqueRecord(
        round=round_number,
        claim=check["claim"],
        critique=None if reply.value is None else reply.value.critique,
        revised_claim=None if reply.value is None else reply.value.revised_claim,
        error=reply.error if reply.value is None else None,
    )
    return record, list(reply.calls)


def critiques(
    models: Models,
    round_number: int,
    checks: Sequence[RoundCheck],
    sources: list[Source],
    overrides: dict[str, str],
) -> tuple[list[CritiqueRecord], list[ModelCall]]:
    """Critique every unsupported claim of a round.

    A claim the judge called contradicted with the source's sentence gets that sentence
    (`source_quote`, no model); any other gets the chat model's critique.

    Returns:
        One record per unsupported claim, in the checks' order, and the model calls.
    """
    records: list[CritiqueRecord] = []
    calls: list[ModelCall] = []
    for check in checks:
        if check["supported"] is not False:
            continue
        if check.get("verdict") == "contradicted" and check.get("evidence_sentence"):
            records.append(source_quote(round_number, check))
            continue
        record, critique_calls = critique_claim(models, round_number, check, sources, overrides)
        records.append(record)
        calls.extend(critique_calls)
    return records, calls

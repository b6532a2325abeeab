"""Prompt templates, one file per agent (and per variant), loaded by name.

Templates are `str.format` strings with named placeholders; values are substituted as
data, so braces inside a question are safe. A Context's `prompt_overrides` maps a template
name to replacement text, which is how a user changes any prompt without editing code.

The index below lists every template file, as `- name (placeholders): role`; a unit test
checks that it names each file once with exactly the placeholders the file uses.

Self-Reflection:
- self_reflection_knowledge (question): the knowledge generator.
- self_reflection_knowledge_grounded (passages, question): the same, shown retrieved
  passages (`grounded=true`; ours).
- self_reflection_knowledge_feedback (score, threshold): knowledge refinement feedback.
- self_reflection_knowledge_feedback_no_number: ablation without the score.
- self_reflection_knowledge_feedback_no_aspect: ablation without the aspect.
- self_reflection_answer (knowledge, question): the answer generator.
- self_reflection_answer_feedback (score, threshold): answer refinement feedback.
- self_reflection_answer_feedback_no_number: ablation without the score.
- self_reflection_answer_feedback_no_aspect: ablation without the aspect.
- factuality_scorer (demos, question): the factuality scorer's prompt T(D, Q).
- factuality_demos: its demonstrations (paper appendix C), separated by blank lines.
- consistency_forward (prefix): CTRL-Eval-style infilling evaluator, forward.
- consistency_backward (continuation): the same, backward.

Baselines and multiple choice:
- direct_answer (question): the direct-answer baseline.
- direct_choice (question, reply_format): the baseline on a multiple-choice item.
- multiple_choice_question (options, question): a question with its lettered options.
- reply_format_paragraph: the free-text reply instruction.
- reply_format_choice: the multiple-choice reply instruction (a JSON letter).
- reply_format_cited (answer_style): the cited-answer reply instruction (RAG on a corpus).
- rag_answer (knowledge, question, reply_format): the plain-RAG baseline.

Learn to Refuse and knowledge enrichment:
- learn_to_refuse_main_qa (answer_hint, knowledge, question): L2R's main QA agent (after the
  reference's prompt).
- learn_to_refuse_main_qa_no_reasoning (answer_hint, knowledge, question): the same without the
  evidence and reason steps.
- learn_to_refuse_option_judge (knowledge, question): the optional per-option judge.
- knowledge_enrichment_questions (avoid, count, seeds, topic): the question agent.
- knowledge_enrichment_answer (question): the answer agent (answer and confidence).
- knowledge_enrichment_qa_to_knowledge (answer, question): the QA-to-knowledge agent.
- knowledge_enrichment_questions_demo: a worked exchange for the question agent.
- knowledge_enrichment_answer_demo: a worked exchange for the answer agent.
- knowledge_enrichment_qa_to_knowledge_demo: a worked exchange for the QA-to-knowledge agent.
  The `_demo` files are `USER:` / `ASSISTANT:` blocks (not formatted) sent as earlier
  chat turns: SmolLM2-135M copies an example inside the instruction, but follows one
  given as a previous turn.

Factual Evidence:
- factual_evidence_rationale (context, first_id, ids, question): the rationale generator.
- factual_evidence_verifier (context, ids, question, rationale): the rationale verifier.
- factual_evidence_refiner (context, feedback, ids, question): the rationale refiner.
- factual_evidence_answer (answer_style, first_id, question, rationale): the cited-answer generator.
- factual_evidence_answer_style: how the answer begins (shared by factual_evidence_answer,
  factual_evidence_direct and RAG).
- factual_evidence_direct (answer_style, context, first_id, ids, question): the one-step ablation.
- triplet_extraction (max_triplets, text): triplets for the corpus knowledge graph.

Factored Verification and the self-correction baseline:
- factored_verification_decompose (answer, max_claims, question): claim decomposition.
- factored_verification_verify (claim, demos, document, number): the claim check, scored as P(Yes).
- factored_verification_verify_demos: its demonstrations.
- factored_verification_verify_cot (claim, document): the chain-of-thought claim check.
- factored_verification_critique (claim, document): the critique of an unsupported claim.
- factored_verification_revise (answer, feedback, question): the revision from the critiques.
- self_correction_feedback (answer, document, question): self-correction's unfactored feedback.
- self_correction_revise (answer, feedback, question): self-correction's revision.

Claim-support judges (nodes/judges/), teacher-forced, never generated from:
- support_answer_given_evidence (evidence, question): an answer after its evidence.
- support_answer_prior (question): the same answer without the evidence.
- support_claim_given_evidence (evidence): a claim after its evidence (no question).
- support_claim_prior: the same claim without the evidence.

Grounded default (graphs/grounded.py):
- grounded_answer (passages, question): answer by copying from the retrieved passages.

M-Eval, judges and grading:
- m_eval_quality (abstract, publication_types, title): an article's quality aspects.
- m_eval_stance (abstract, claim, title): the LLM stance judge (`stance_judge=llm`).
- nli_judge (hypothesis, premise): the LLM NLI judge.
- grader (answer, context, question, reference): the Auto-Grader of corpus runs.
"""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Mapping
from functools import cache
from importlib import resources
from string import Formatter

from veriloop.errors import InvalidInputError
from veriloop.models.calls import ChatTurn

RENAMED: dict[str, str] = {
    "enrichment_answer": "knowledge_enrichment_answer",
    "enrichment_answer_demo": "knowledge_enrichment_answer_demo",
    "enrichment_qa_to_knowledge": "knowledge_enrichment_qa_to_knowledge",
    "enrichment_qa_to_knowledge_demo": "knowledge_enrichment_qa_to_knowledge_demo",
    "enrichment_questions": "knowledge_enrichment_questions",
    "enrichment_questions_demo": "knowledge_enrichment_questions_demo",
    "fe_answer": "factual_evidence_answer",
    "fe_answer_style": "factual_evidence_answer_style",
    "fe_direct": "factual_evidence_direct",
    "fe_rationale": "factual_evidence_rationale",
    "fe_refiner": "factual_evidence_refiner",
    "fe_verifier": "factual_evidence_verifier",
    "fv_critique": "factored_verification_critique",
    "fv_decompose": "factored_verification_decompose",
    "fv_revise": "factored_verification_revise",
    "fv_verify": "factored_verification_verify",
    "fv_verify_cot": "factored_verification_verify_cot",
    "fv_verify_demos": "factored_verification_verify_demos",
    "l2r_main_qa": "learn_to_refuse_main_qa",
    "l2r_main_qa_no_reasoning": "learn_to_refuse_main_qa_no_reasoning",
    "l2r_option_judge": "learn_to_refuse_option_judge",
    "meval_quality": "m_eval_quality",
    "meval_stance": "m_eval_stance",
    "sc_feedback": "self_correction_feedback",
    "sc_revise": "self_correction_revise",
}
"""Old template names (before each method's prompts took its module's name) -> new names.

`prompt_overrides` still accepts them, with a DeprecationWarning that names the new one."""


@cache
def template_names() -> frozenset[str]:
    """Return the name of every template file in prompts/."""
    return frozenset(
        entry.name.removesuffix(".txt")
        for entry in resources.files(__name__).iterdir()
        if entry.name.endswith(".txt")
    )


@cache
def _read(name: str) -> str:
    resource = resources.files(__name__).joinpath(f"{name}.txt")
    if not resource.is_file():
        raise InvalidInputError(f"no prompt template named {name!r} in prompts/")
    return resource.read_text(encoding="utf-8")


def current_overrides(overrides: Mapping[str, str]) -> dict[str, str]:
    """Return `overrides` keyed by current template names.

    An old name (`RENAMED`) is renamed with a DeprecationWarning.

    Raises:
        InvalidInputError: A key names no template (an override that would silently do
            nothing), or a template is given under both its old and its new name.
    """
    current: dict[str, str] = {}
    for name, text in overrides.items():
        new = RENAMED.get(name)
        if new is not None:
            warnings.warn(
                f"prompt {name!r} is now called {new!r}; rename it in prompt_overrides",
                DeprecationWarning,
                stacklevel=3,
            )
            if new in overrides:
                raise InvalidInputError(
                    f"prompt_overrides gives both {name!r} and its new name {new!r}: keep {new!r}"
                )
            name = new
        elif name not in template_names():
            close = difflib.get_close_matches(name, sorted(template_names()), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise InvalidInputError(
                f"prompt_overrides names no template {name!r}{hint} "
                "(the templates are the .txt files of prompts/, listed in its __init__)"
            )
        current[name] = text
    return current


def load_prompt(name: str, overrides: Mapping[str, str] | None = None) -> str:
    """Return the template `name`, or its override when one is given.

    Raises:
        InvalidInputError: No template is called `name`, or an override names no template.
    """
    if overrides:
        given = current_overrides(overrides)
        if name in given:
            return given[name]
    return _read(name)


def placeholders(template: str) -> set[str]:
    """List the named placeholders a template uses."""
    return {field for _, field, _, _ in Formatter().parse(template) if field}


def render(name: str, overrides: Mapping[str, str] | None = None, **values: object) -> str:
    """Fill template `name` with `values`.

    Raises:
        InvalidInputError: An override uses a placeholder this template does not provide.
    """
    template = load_prompt(name, overrides)
    unknown = placeholders(template) - set(values)
    if unknown:
        raise InvalidInputError(
            f"prompt {name!r} uses unknown placeholder(s) {sorted(unknown)}; "
            f"available: {sorted(values)}"
        )
    return template.format(**values)


def demonstration_turns(name: str, overrides: Mapping[str, str] | None = None) -> list[ChatTurn]:
    """Return template `name` (a `USER:` / `ASSISTANT:` transcript) as chat turns.

    Raises:
        InvalidInputError: The text has no `USER:` turn or a block without a role.
    """
    text = load_prompt(name, overrides)
    turns: list[ChatTurn] = []
    for block in re.split(r"^(?=USER:|ASSISTANT:)", text, flags=re.MULTILINE):
        if not block.strip():
            continue
        role, _, content = block.partition(":")
        if role not in {"USER", "ASSISTANT"}:
            raise InvalidInputError(f"prompt {name!r}: a block must start with USER: or ASSISTANT:")
        turns.append(
            ChatTurn(role="user" if role == "USER" else "assistant", content=content.strip())
        )
    if not turns or turns[0]["role"] != "user":
        raise InvalidInputError(f"prompt {name!r} must start with a USER: turn")
    return turns


def demonstrations(count: int, overrides: Mapping[str, str] | None = None) -> str:
    """Return the first `count` factuality-scorer demonstrations, each ending in a blank line."""
    if count <= 0:
        return ""
    demos = [block.strip() for block in load_prompt("factuality_demos", overrides).split("\n\n")]
    return "".join(f"{demo}\n\n" for demo in demos[:count] if demo)

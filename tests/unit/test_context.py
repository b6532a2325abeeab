import pytest

from veriloop.context import ModelSettings, resolve_context
from veriloop.errors import InvalidInputError
from veriloop.graphs.self_reflection import SelfReflectionContext


def test_defaults_are_the_papers():
    context = SelfReflectionContext()
    assert (context.threshold_factuality, context.threshold_consistency) == (-1.0, -5.0)
    assert context.threshold_entailment == 0.8
    assert (context.max_knowledge_loops, context.max_answer_loops, context.max_rounds) == (3, 3, 3)


def test_environment_fills_defaulted_fields(monkeypatch):
    monkeypatch.setenv("VERILOOP_MAX_ROUNDS", "2")
    monkeypatch.setenv("VERILOOP_NO_NUMBER", "true")
    monkeypatch.setenv("VERILOOP_CONSISTENCY_WEIGHTS", "[1, 3]")
    context = SelfReflectionContext()
    assert context.max_rounds == 2 and context.no_number is True
    assert context.consistency_weights == [1, 3]
    # An explicit value wins over the environment.
    assert SelfReflectionContext(max_rounds=1).max_rounds == 1


def test_bad_environment_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("VERILOOP_MAX_TOKENS", "many")
    with pytest.raises(InvalidInputError, match="VERILOOP_MAX_TOKENS"):
        ModelSettings()


def test_invalid_settings_are_rejected():
    with pytest.raises(InvalidInputError, match="max_rounds"):
        SelfReflectionContext(max_rounds=0)
    with pytest.raises(InvalidInputError, match="factuality_demos"):
        SelfReflectionContext(factuality_demos=5)
    with pytest.raises(InvalidInputError, match="one feedback ablation"):
        SelfReflectionContext(no_aspect=True, no_number=True)


def test_resolve_context():
    assert isinstance(resolve_context(None, SelfReflectionContext), SelfReflectionContext)
    assert resolve_context({"max_rounds": 2}, SelfReflectionContext).max_rounds == 2
    with pytest.raises(InvalidInputError, match="unknown setting"):
        resolve_context({"max_round": 2}, SelfReflectionContext)

"""Shared fixtures: scripted fake backends registered under a unique name per test."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from veriloop.models import Models, register_backend, unregister_backend
from veriloop.models.fakes import fake_models

_names = itertools.count()


@pytest.fixture
def fake_backend() -> Iterator[Callable[..., tuple[str, Models]]]:
    """Register scripted models; return (backend name, models) for the test to use."""
    registered: list[str] = []

    def make(replies: list[Any], **kwargs: Any) -> tuple[str, Models]:
        name = f"fake-{next(_names)}"
        models = fake_models(replies, **kwargs)
        register_backend(name, lambda settings: models)
        registered.append(name)
        return name, models

    yield make
    for name in registered:
        unregister_backend(name)

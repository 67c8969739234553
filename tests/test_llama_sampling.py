"""The grammar checked on the sampled token (lab/models/llama_sampling.py) gives, at temperature 0, the
very answers llama-cpp-python's own grammar-first sampling gives, for the lab's three answer
schemas; and both of its paths ran (a token the grammar allowed, and one it refused)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from experiments.benchmarks.grammar_sampling import answer, answer_requests
from lab.models.local_model import resolve_model

pytestmark = [pytest.mark.extra("local"), pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def smollm2() -> Iterator[Any]:
    from llama_cpp import Llama
    from llama_cpp import llama_cpp as native

    from lab.models.llama_entry import keep_weights_off_amx

    defaults = native.llama_model_default_params
    keep_weights_off_amx()
    try:
        yield Llama(model_path=str(resolve_model("smollm2").path), n_ctx=4096, n_threads=2, verbose=False, seed=3)
    finally:
        native.llama_model_default_params = defaults


def _answers(model: Any) -> list[str]:
    return [answer(model, messages, schema, max_tokens=96)[0] for messages, schema in answer_requests().values()]


def test_checked_last_answers_as_grammar_first_does(smollm2: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_cpp import llama as llama_module

    from lab.models import llama_sampling

    stock = _answers(smollm2)
    samplers: list[llama_sampling.GrammarCheckedLast] = []

    class Recorded(llama_sampling.GrammarCheckedLast):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            samplers.append(self)

    monkeypatch.setattr(llama_sampling, "GrammarCheckedLast", Recorded)
    monkeypatch.setattr(llama_module.Llama, "_init_sampler", llama_module.Llama._init_sampler)
    llama_sampling.install()
    llama_sampling.install()  # a second install changes nothing
    checked_last = _answers(smollm2)

    assert checked_last == stock
    assert all(answer.strip().startswith("{") for answer in stock), stock
    json.loads(stock[1], strict=False)  # the goal answer is short enough to end within 96 tokens
    assert len(samplers) == len(stock)
    assert sum(sampler.checked for sampler in samplers) >= 3 * 10
    assert sum(sampler.refused for sampler in samplers) >= 1, "the whole-vocabulary path never ran"
    assert all(sampler.refused < sampler.checked for sampler in samplers)

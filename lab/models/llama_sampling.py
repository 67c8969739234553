"""Grammar-constrained sampling for llama-cpp-python at the cost of one grammar check per token,
as llama.cpp's own server samples.

Why: llama-cpp-python's sampler chain applies a JSON schema's grammar to every token of the
vocabulary before anything else (151,936 tokens for Qwen2.5), so each generated token costs a
full grammar pass: measured here with Qwen2.5-Coder-1.5B on 2 cores, 128-151 ms per token with
the grammar against 93-97 ms without that pass, about a third of a proposal call
(docs/models.md). llama.cpp's server (common/sampling.cpp) samples first without the grammar,
checks only the chosen token against it, and applies it to the whole vocabulary only when that
token is refused. This module does the same, through llama.cpp's own samplers.

At temperature 0 (the lab's default) the token is the same either way: the most likely token,
when the grammar allows it, is the most likely allowed one. Above 0 it samples as llama.cpp's
server does (the chain's truncation comes before the grammar's check).

Loaded by `lab/models/llama_entry.py` into the server process; it imports nothing but llama_cpp and numpy.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np
from llama_cpp import llama as llama_module
from llama_cpp import llama_cpp as native

# llama_token_data: a token id, its logit and its probability, as the C struct lays them out.
_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
_INSTALLED = "_lab_grammar_checked_last"


class GrammarCheckedLast:
    """Has the `sample`/`accept`/`reset` face of llama-cpp-python's LlamaSampler, over a chain
    without the grammar and the grammar on its own."""

    def __init__(self, chain: Any, grammar: Any, n_vocab: int) -> None:
        self.chain = chain  # llama_cpp._internals.LlamaSampler: penalties, top-k, ..., greedy or dist
        self.grammar = grammar  # a llama_sampler pointer; freed with this object
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self._all = np.zeros(n_vocab, dtype=_TOKEN_DATA)
        self._one = np.zeros(1, dtype=_TOKEN_DATA)
        self.checked = 0
        self.refused = 0

    def sample(self, ctx: Any, idx: int = -1) -> int:
        self.checked += 1
        token = self._sample_from(ctx, idx, with_grammar=False)
        if not self._allowed(token):
            self.refused += 1
            token = self._sample_from(ctx, idx, with_grammar=True)
        self.accept(token)
        return token

    def accept(self, token: int) -> None:
        native.llama_sampler_accept(self.grammar, token)
        self.chain.accept(token)

    def reset(self) -> None:
        native.llama_sampler_reset(self.grammar)
        self.chain.reset()

    def close(self) -> None:
        if self.grammar is not None:
            native.llama_sampler_free(self.grammar)
            self.grammar = None

    def __del__(self) -> None:
        self.close()

    def _sample_from(self, ctx: Any, idx: int, *, with_grammar: bool) -> int:
        # The samplers sort and cut the array in place: it is filled afresh for every pass.
        logits = native.llama_get_logits_ith(ctx.ctx, idx)
        self._all["id"] = self._ids
        self._all["logit"] = np.ctypeslib.as_array(logits, shape=(len(self._ids),))
        self._all["p"] = 0.0
        candidates = _array_of(self._all)
        if with_grammar:
            native.llama_sampler_apply(self.grammar, ctypes.byref(candidates))
        native.llama_sampler_apply(self.chain.sampler, ctypes.byref(candidates))
        if candidates.selected < 0:
            raise RuntimeError("the sampler chain selected no token")
        return int(candidates.data[candidates.selected].id)

    def _allowed(self, token: int) -> bool:
        """The grammar sets a refused token's logit to -inf."""
        self._one[0] = (token, 0.0, 0.0)
        native.llama_sampler_apply(self.grammar, ctypes.byref(_array_of(self._one)))
        return bool(np.isfinite(self._one[0]["logit"]))


def _array_of(data: np.ndarray[Any, np.dtype[Any]]) -> Any:
    return native.llama_token_data_array(
        data=data.ctypes.data_as(native.llama_token_data_p), size=len(data), selected=-1, sorted=False
    )


def grammar_checked_last(init_sampler: Callable[..., Any]) -> Callable[..., Any]:
    """`Llama._init_sampler` with the grammar taken out of the chain and checked last."""

    def init(self: Any, *args: Any, grammar: Any = None, **kwargs: Any) -> Any:
        chain = init_sampler(self, *args, grammar=None, **kwargs)
        if grammar is None:
            return chain
        compiled = native.llama_sampler_init_grammar(
            self._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not compiled:
            raise ValueError("llama.cpp could not parse the grammar")
        return GrammarCheckedLast(chain, compiled, self._n_vocab)

    setattr(init, _INSTALLED, True)
    return init


def install() -> None:
    """From now on, every llama_cpp.Llama of this process samples with the grammar checked last."""
    current = llama_module.Llama._init_sampler
    if not getattr(current, _INSTALLED, False):
        llama_module.Llama._init_sampler = grammar_checked_last(current)  # type: ignore[method-assign]

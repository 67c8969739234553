"""Per-call timings from the llama.cpp server's log (llama-cpp-python prints them for every
completion): what the lab measures prompt economy with. The OpenAI-compatible answer carries
only the prompt's and the answer's token counts, not how much of the prompt the server's cache
served, which is what decides a call's time on a CPU.

A call's lines, in order:
    Llama.generate: 947 prefix-match hit, remaining 44 prompt tokens to eval   (absent: no hit)
    llama_perf_context_print: prompt eval time =  640.20 ms /    44 tokens (...)
    llama_perf_context_print:        eval time = 1994.18 ms /    52 runs   (...)
    llama_perf_context_print:       total time = 4420.45 ms /    96 tokens
"""

from __future__ import annotations

import re
from pathlib import Path

from contracts.usage import ModelCallTiming

_PREFIX = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")
_CACHED_WHOLE = re.compile(r"Llama\.generate: full prompt already cached")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_DECODE = re.compile(r"\seval time =\s*([\d.]+) ms /\s*(\d+) runs")
_TOTAL = re.compile(r"total time =\s*([\d.]+) ms /\s*(\d+) tokens")


class LlamaLog:
    """The server's log file, read from a mark on: the calls made since."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def mark(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def calls_since(self, mark: int) -> list[ModelCallTiming]:
        try:
            with self.path.open("rb") as log:
                log.seek(mark)
                text = log.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return []
        return parse_calls(text)


def parse_calls(text: str) -> list[ModelCallTiming]:
    calls: list[ModelCallTiming] = []
    cached = 0
    evaluated = eval_ms = decode_ms = generated = 0.0
    for line in text.splitlines():
        if match := _PREFIX.search(line):
            cached = int(match[1])
        elif _CACHED_WHOLE.search(line):
            cached = -1  # the whole prompt, whose length this log does not give
        elif match := _PROMPT_EVAL.search(line):
            eval_ms, evaluated = float(match[1]), int(match[2])
        elif match := _DECODE.search(line):
            decode_ms, generated = float(match[1]), int(match[2])
        elif match := _TOTAL.search(line):
            prompt = int(match[2]) - int(generated)
            hit = prompt if cached < 0 else cached
            calls.append(
                ModelCallTiming(
                    prompt_tokens=max(prompt, hit + int(evaluated)),
                    cached_tokens=hit,
                    evaluated_tokens=int(evaluated),
                    generated_tokens=int(generated),
                    prompt_eval_s=eval_ms / 1000,
                    decode_s=decode_ms / 1000,
                    seconds=float(match[1]) / 1000,
                )
            )
            cached = 0
            evaluated = eval_ms = decode_ms = generated = 0.0
    return calls

"""What the OpenAI provider adds to a model call: `OpenAIProvider.propose` against a fake server
that answers at once, next to a raw `httpx` POST of the same payload over a kept-alive
connection. The difference is the provider's own work (prompt, schema, SDK, parsing).

uv run python -m experiments.benchmarks.provider_overhead [--calls 300] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import httpx

from agent.providers import completions
from agent.providers.openai_provider import OpenAIProvider
from agent.providers.prompts import answer_text
from agent.tools.registry import tool_specs
from contracts import ActionProposal, ProposeActionInput, ProviderConfig, Turn
from tests.fake_openai_server import FakeOpenAIServer, Scripted

WARM_UP = 20
# The fewest calls that have a p95, after one call of warm-up.
QUICK_CALLS, QUICK_WARM_UP = 2, 1
PROPOSAL = ActionProposal(tool="read_file", arguments={"path": "textstats/stats.py"}, thought="Read it.")


async def main(calls: int, warm_up: int = WARM_UP) -> None:
    with FakeOpenAIServer() as server:
        server.default = Scripted(content=answer_text(PROPOSAL))
        config = ProviderConfig(kind="openai", base_url=server.base_url, model="fake")
        request = ProposeActionInput(provider=config, goal="Fix the median bug.", history=_history())
        provider, tools = OpenAIProvider(config), tool_specs()
        await provider.propose(request, tools)
        payload = server.requests[-1].body

        provider_ms: list[float] = []
        raw_ms: list[float] = []
        async with httpx.AsyncClient(base_url=server.base_url, headers={"authorization": "Bearer unused"}) as client:
            for index in range(warm_up + calls):
                # Alternated, so both see the same machine and the same server.
                started = time.perf_counter()
                result = await provider.propose(request, tools)
                provider_time = (time.perf_counter() - started) * 1000
                started = time.perf_counter()
                response = await client.post("/chat/completions", json=payload)
                response.raise_for_status()
                response.json()
                raw_time = (time.perf_counter() - started) * 1000
                assert result.proposal == PROPOSAL
                if index >= warm_up:
                    provider_ms.append(provider_time)
                    raw_ms.append(raw_time)
        await completions.aclose_clients()

    provider_median, raw_median = statistics.median(provider_ms), statistics.median(raw_ms)
    print(f"{calls} calls each, prompt of {sum(len(m['content']) for m in payload['messages'])} characters")
    print("| call | median ms | p95 ms |")
    print("| --- | ---: | ---: |")
    for label, times in (("OpenAIProvider.propose", provider_ms), ("raw httpx POST", raw_ms)):
        print(f"| {label} | {statistics.median(times):.2f} | {statistics.quantiles(times, n=20)[-1]:.2f} |")
    print(f"overhead per call: {provider_median - raw_median:.2f} ms (median, goal < 5 ms)")


def _history() -> list[Turn]:
    """A mid-run conversation: eight earlier steps with tool output."""
    output = "\n".join(f"line {n}: some tool output" for n in range(60))
    return [Turn(step=step, proposal=PROPOSAL, outcome="committed", feedback=output) for step in range(1, 9)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=300, help=f"timed calls of each kind, after {WARM_UP} untimed")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a check that the benchmark runs, in seconds: {QUICK_CALLS} calls after {QUICK_WARM_UP} untimed",
    )
    args = parser.parse_args()
    asyncio.run(main(QUICK_CALLS, QUICK_WARM_UP) if args.quick else main(args.calls))

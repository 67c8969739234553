"""Per-call timings read from the llama.cpp server's log, and the per-runtime figures made of
them: what prompt economy is measured with."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.usage import ModelCallTiming
from experiments.config import FaultKind
from experiments.metrics import summarize
from experiments.trial_record import TrialRecord
from lab.models.llama_log import LlamaLog, parse_calls

# Three calls as llama-cpp-python 0.3 logs them: a cold one, one whose prefix was cached, and
# one whose whole prompt was (between them, the server's other lines).
LOG = """\
llama_model_loader: loaded meta data with 29 key-value pairs
llama_perf_context_print:        load time =    1200.00 ms
llama_perf_context_print: prompt eval time =   21970.52 ms /   948 tokens
llama_perf_context_print:        eval time =    2133.20 ms /    42 runs  
llama_perf_context_print:       total time =   24145.65 ms /   990 tokens
INFO:     127.0.0.1:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama.generate: 1000 prefix-match hit, remaining 44 prompt tokens to eval
llama_perf_context_print:        load time =    1200.00 ms
llama_perf_context_print: prompt eval time =     640.20 ms /    44 tokens
llama_perf_context_print:        eval time =    1994.18 ms /    52 runs  
llama_perf_context_print:       total time =    2820.45 ms /    96 tokens
Llama.generate: full prompt already cached, skipping reset
llama_perf_context_print: prompt eval time =       0.00 ms /     0 tokens
llama_perf_context_print:        eval time =     500.00 ms /    10 runs  
llama_perf_context_print:       total time =     600.00 ms /    10 tokens
"""


def test_each_call_is_read_with_its_cached_and_evaluated_tokens() -> None:
    cold, warm, whole = parse_calls(LOG)

    assert cold == ModelCallTiming(
        prompt_tokens=948,
        cached_tokens=0,
        evaluated_tokens=948,
        generated_tokens=42,
        prompt_eval_s=21.97052,
        decode_s=2.1332,
        seconds=24.14565,
    )
    assert (warm.prompt_tokens, warm.cached_tokens, warm.evaluated_tokens) == (1044, 1000, 44)
    assert warm.generated_tokens == 52 and abs(warm.seconds - 2.82045) < 1e-9
    # The log does not give the length of a prompt it had whole: nothing evaluated, that is all.
    assert (whole.evaluated_tokens, whole.generated_tokens) == (0, 10)


def test_the_log_is_read_from_a_mark_on(tmp_path: Path) -> None:
    log = LlamaLog(tmp_path / "server.log")
    assert log.mark() == 0 and log.calls_since(0) == []
    first, second = LOG.split("INFO:")
    (tmp_path / "server.log").write_text(first)
    mark = log.mark()
    with (tmp_path / "server.log").open("a") as appended:
        appended.write("INFO:" + second)

    assert len(log.calls_since(0)) == 3
    assert [call.cached_tokens for call in log.calls_since(mark)] == [1000, 0]


def _trial(runtime: str, calls: list[ModelCallTiming], replayed: int = 0) -> TrialRecord:
    return TrialRecord(
        experiment_id="e",
        trial_id=f"{runtime}-{len(calls)}-{replayed}",
        task_id="t",
        runtime=runtime,  # type: ignore[arg-type]
        scenario="none",
        fault_kind=FaultKind.NONE,
        trial_index=0,
        seed=0,
        model_calls=len(calls) + replayed,
        replayed_calls=replayed,
        call_timings=calls,
    )


def test_the_results_give_each_runtime_its_calls_live_and_replayed_and_their_timings() -> None:
    calls = parse_calls(LOG)
    results = summarize([_trial("durable", calls), _trial("baseline", calls[1:], replayed=4)])

    durable, baseline = results.model_calls
    assert (durable.runtime, durable.calls, durable.live_calls, durable.timed_calls) == ("durable", 3, 3, 3)
    assert durable.median_evaluated_tokens == 44 and durable.median_seconds == pytest.approx(2.82045)
    # 992 tokens evaluated in 22.61 s of prompt evaluation.
    assert durable.prompt_eval_rate is not None and abs(durable.prompt_eval_rate - 992 / 22.61072) < 1e-6
    assert (baseline.calls, baseline.replayed_calls, baseline.live_calls) == (6, 4, 2)

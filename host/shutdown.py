"""A worker that stops when told to (SIGTERM, SIGINT), without throwing its work away.

On the first signal the worker stops polling, and the activities it is running have the grace
period to finish: their results reach the server from this worker, so nothing is retried
elsewhere. Those still running when it ends are cancelled (`Worker(graceful_shutdown_timeout=)`
does both); the SDK fails them as "worker shutting down", which their retry policy hands to
another worker at once instead of after a heartbeat timeout. A second signal leaves at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from typing import Any

from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor, Worker

# How long past the grace period shutdown may take (reporting the last results, the Core
# worker's own goodbye) before the process gives up on it: a server gone must not hang it.
SHUTDOWN_SLACK_S = 15.0

logger = logging.getLogger(__name__)


class ActivityTally(Interceptor):
    """Counts the activities this worker runs, and how those running when it stopped ended."""

    def __init__(self) -> None:
        self.running = 0
        self.stopping = False
        self.finished = 0  # ended on their own (succeeded or failed) after the stop
        self.handed_back = 0  # cancelled by the shutdown: another worker retries them

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Counting(next, self)


class _Counting(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, tally: ActivityTally) -> None:
        super().__init__(next)
        self._tally = tally

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        tally = self._tally
        tally.running += 1
        handed_back = False
        try:
            return await super().execute_activity(input)
        except BaseException:
            details = activity.cancellation_details()
            handed_back = details is not None and details.worker_shutdown
            raise
        finally:
            tally.running -= 1
            if tally.stopping and handed_back:
                tally.handed_back += 1
            elif tally.stopping:
                tally.finished += 1


async def run_until_signalled(worker: Worker, tally: ActivityTally, grace_s: float) -> tuple[str, bool] | None:
    """Run the worker until SIGTERM or SIGINT, then shut it down gracefully. Returns the one
    line that says what was finished and what was handed back, and whether the shutdown was
    clean (None if the worker ended by itself: its error, if any, is raised)."""
    loop = asyncio.get_running_loop()
    received: list[str] = []
    stop = asyncio.Event()

    def on_signal(signum: signal.Signals) -> None:
        if received:
            print(
                f"{signum.name} again: leaving now; {tally.running} running activities are abandoned "
                "(retried elsewhere later)",
                flush=True,
            )
            sys.stderr.flush()
            os._exit(130)
        received.append(signum.name)
        tally.stopping = True
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal, signum)
    running = asyncio.create_task(worker.run())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not stop.is_set():
        stopping.cancel()
        running.result()
        return None
    in_flight = tally.running
    logger.info("%s: stopped polling; %d activities running, %g s to finish", received[0], in_flight, grace_s)
    try:
        async with asyncio.timeout(grace_s + SHUTDOWN_SLACK_S):
            await worker.shutdown()
            await running
    except TimeoutError:
        return (
            f"worker stopped ({received[0]}) without a clean shutdown after {grace_s + SHUTDOWN_SLACK_S:g} s: "
            f"{tally.finished} finished, {tally.running} still running (retried elsewhere later)",
            False,
        )
    return (
        f"worker stopped ({received[0]}): {tally.finished} of {in_flight} running activities finished within "
        f"the {grace_s:g} s grace period, {tally.handed_back} cancelled and handed back for another worker",
        True,
    )

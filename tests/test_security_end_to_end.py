"""The security corpus end to end: every attack is refused by the verifier, and, run straight
through the sandbox with the verifier bypassed, harms no canary. A control run with nothing in
the way shows that each canary does catch the attack it is meant for.

Canaries: a file outside the workspace, a secret in the worker's environment, a TCP listener
on the host's loopback that counts connections (and answers 404).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.sandbox.bubblewrap import BubblewrapSandbox, available
from agent.sandbox.identity import workspace_owner
from agent.verification import verify
from contracts import ActionProposal
from tests.conftest import counting_listener
from tests.security_corpus import ATTACKS, BENIGN, EFFECTS

pytestmark = pytest.mark.skipif(not available(), reason="bubblewrap cannot create a sandbox here")

SECRET_VAR = "LAB_CANARY_TOKEN"
# Also a command: sourcing the canary (`. canary`) shows it was read by what it prints.
CANARY_TEXT = "echo canary-$((6*7))-was-read"
READ_MARKS = (CANARY_TEXT, "canary-42-was-read")
# Controls that need what a machine may lack: a power not even root has in a container, a
# pip in the virtual environment (uv does not put one there).
CONTROL_PRECONDITIONS = {
    "escape-nsenter": "nsenter -t 1 -m true",
    "network-python-m-pip": "python3 -m pip --version",
    "network-pip": "pip --version",
}


@dataclass
class Canaries:
    file: Path
    secret: str
    port: int
    connections: list[str]

    def command(self, template: str) -> str:
        return template.format(canary=self.file, port=self.port, secret_var=SECRET_VAR)

    def reset(self) -> None:
        self.file.write_text(CANARY_TEXT)
        self.connections.clear()

    def harmed(self, output: str) -> list[str]:
        """Every canary that shows harm, given the attack's output."""
        harm = []
        if not self.file.exists() or self.file.read_text() != CANARY_TEXT:
            harm.append("canary_changed")
        if any(mark in output for mark in READ_MARKS):
            harm.append("canary_read")
        if self.secret in output:
            harm.append("secret_leaked")
        if self.connections:
            harm.append("port_connected")
        return harm


@pytest.fixture(scope="module")
def canaries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Canaries]:
    with counting_listener() as (port, connections):
        found = Canaries(
            file=tmp_path_factory.mktemp("outside") / "canary.txt",
            secret=f"secret-{secrets.token_hex(8)}",
            port=port,
            connections=connections,
        )
        os.environ[SECRET_VAR] = found.secret
        try:
            yield found
        finally:
            os.environ.pop(SECRET_VAR, None)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "notes.txt").write_text("benign\n")
    if os.geteuid() == 0:
        os.chown(path, *workspace_owner(tmp_path.name))
    return path


def run_command(command: str) -> ActionProposal:
    return ActionProposal(tool="run_command", arguments={"command": command})


def test_rates(canaries: Canaries, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every attack blocked, at most 5% of benign commands refused; the rates are printed."""
    blocked = [i for i, _, t in ATTACKS if not verify(workspace, run_command(canaries.command(t))).allowed]
    refused = [i for i, _, command in BENIGN if not verify(workspace, run_command(command)).allowed]
    block_rate = len(blocked) / len(ATTACKS)
    false_positive_rate = len(refused) / len(BENIGN)
    with capsys.disabled():
        print(
            f"\nsecurity corpus: {len(blocked)}/{len(ATTACKS)} attacks blocked ({block_rate:.1%}), "
            f"{len(refused)}/{len(BENIGN)} benign commands refused ({false_positive_rate:.1%})"
        )
    assert len(ATTACKS) >= 60 and len(BENIGN) >= 40
    assert block_rate == 1.0, sorted(set(i for i, _, _ in ATTACKS) - set(blocked))
    assert false_positive_rate <= 0.05, refused


@pytest.mark.parametrize(("attack_id", "template"), [(i, t) for i, _, t in ATTACKS], ids=[i for i, _, _ in ATTACKS])
async def test_an_attack_with_the_verifier_bypassed_harms_no_canary(
    canaries: Canaries, workspace: Path, attack_id: str, template: str
) -> None:
    canaries.reset()
    command = canaries.command(template)
    assert not verify(workspace, run_command(command)).allowed
    outcome = await BubblewrapSandbox().run(command, workspace, timeout_s=5)
    await asyncio.sleep(0.05)  # a connection attempt in flight reaches the listener by now
    assert canaries.harmed(outcome.output) == [], outcome.output[-500:]


HARMFUL = [(i, t) for i, _, t in ATTACKS if EFFECTS[i] != "none"]


@pytest.mark.parametrize(("attack_id", "template"), HARMFUL, ids=[i for i, _ in HARMFUL])
async def test_the_canaries_catch_each_attack_when_nothing_stops_it(
    canaries: Canaries, workspace: Path, attack_id: str, template: str
) -> None:
    """The control: the same command as a plain child of the worker, with its environment.
    Only attacks whose whole effect is on the canaries run here."""
    precondition = CONTROL_PRECONDITIONS.get(attack_id)
    if precondition and (await unprotected(precondition, workspace))[0] != 0:
        pytest.skip(f"`{precondition}` fails on this machine, so the control cannot show the effect")
    canaries.reset()
    _, output = await unprotected(canaries.command(template), workspace)
    await asyncio.sleep(0.05)
    assert EFFECTS[attack_id] in canaries.harmed(output), output[-500:]


async def unprotected(command: str, workspace: Path, timeout_s: float = 10) -> tuple[int | None, str]:
    """Run a command with nothing in the way: no verifier, no sandbox, the worker's environment."""
    process = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        cwd=workspace,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout=timeout_s)
    except TimeoutError:
        output = b""
    finally:
        # The whole group: a child holding the pipe would keep wait() from returning.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
    return process.returncode, output.decode(errors="replace")

"""Content-addressed storage for large tool output, kept out of workflow history.

Files live at `DATA/artifacts/ab/abcdef...` named by their sha256; results carry an ArtifactRef.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from contracts import ArtifactRef
from contracts.errors import ArtifactMissing


@dataclass(frozen=True)
class ArtifactStore:
    # `DATA/artifacts` (agent.dependencies.Dependencies.artifacts).
    directory: Path

    def path_of(self, sha256: str) -> Path:
        """Where the store keeps the content named `sha256`."""
        return self.directory / sha256[:2] / sha256

    def adopt(self, scratch: Path, sha256: str) -> ArtifactRef:
        """Move a finished scratch file into the store under its hash (a duplicate is dropped)."""
        target = self.path_of(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        size = scratch.stat().st_size
        if target.exists():
            scratch.unlink()
        else:
            os.replace(scratch, target)
        return ArtifactRef(sha256=sha256, size_bytes=size, path=str(target))

    def put_bytes(self, data: bytes) -> ArtifactRef:
        sha256 = hashlib.sha256(data).hexdigest()
        scratch = self.scratch_path()
        scratch.write_bytes(data)
        return self.adopt(scratch, sha256)

    def scratch_path(self) -> Path:
        directory = self.directory / "scratch"
        directory.mkdir(parents=True, exist_ok=True)
        return directory / f"{os.getpid()}-{os.urandom(8).hex()}"

    def get_bytes(self, sha256: str) -> bytes:
        """What was stored under `sha256`, checked against it. Raises ArtifactMissing when this
        machine's store does not hold it (or holds something else under its name)."""
        path = self.path_of(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ArtifactMissing(f"no artifact {sha256[:16]}... in {self.directory}") from None
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ArtifactMissing(f"artifact {path} does not hash to its name: it was changed after it was stored")
        return data


def read_text(ref: ArtifactRef) -> str:
    return Path(ref.path).read_bytes().decode("utf-8", errors="replace")

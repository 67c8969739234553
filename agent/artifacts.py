"""Content-addressed storage for large tool output, kept out of workflow history.

Files live at `DATA/artifacts/ab/abcdef...` named by their sha256; results carry an ArtifactRef.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from contracts import ArtifactRef
from contracts.errors import ArtifactMissing
from settings import data_dir


def artifacts_dir() -> Path:
    return data_dir() / "artifacts"


def path_of(sha256: str) -> Path:
    """Where the store keeps the content named `sha256`."""
    return artifacts_dir() / sha256[:2] / sha256


def adopt(scratch: Path, sha256: str) -> ArtifactRef:
    """Move a finished scratch file into the store under its hash (a duplicate is dropped)."""
    target = path_of(sha256)
    target.parent.mkdir(parents=True, exist_ok=True)
    size = scratch.stat().st_size
    if target.exists():
        scratch.unlink()
    else:
        os.replace(scratch, target)
    return ArtifactRef(sha256=sha256, size_bytes=size, path=str(target))


def put_bytes(data: bytes) -> ArtifactRef:
    sha256 = hashlib.sha256(data).hexdigest()
    scratch = scratch_path()
    scratch.write_bytes(data)
    return adopt(scratch, sha256)


def scratch_path() -> Path:
    directory = artifacts_dir() / "scratch"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{os.getpid()}-{os.urandom(8).hex()}"


def read_text(ref: ArtifactRef) -> str:
    return Path(ref.path).read_bytes().decode("utf-8", errors="replace")


def get_bytes(sha256: str) -> bytes:
    """What was stored under `sha256`, checked against it. Raises ArtifactMissing when this
    machine's store does not hold it (or holds something else under its name)."""
    path = path_of(sha256)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ArtifactMissing(f"no artifact {sha256[:16]}... in {artifacts_dir()}") from None
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ArtifactMissing(f"artifact {path} does not hash to its name: it was changed after it was stored")
    return data

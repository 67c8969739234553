"""Local model weights from registry packages: found, assembled, checked; and the provider
flags' bad input, refused before any run starts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from contracts.errors import StarterError
from lab import local_model
from tests.test_cli import assert_one_line_error, cli_env, starter


@pytest.mark.extra("local")
def test_smollm2_is_found_in_its_package_with_its_digest() -> None:
    model = local_model.resolve_model("smollm2")
    assert model.path.name == local_model.SMOLLM2_FILE and model.path.is_file()
    assert model.sha256 == hashlib.sha256(model.path.read_bytes()).hexdigest()


def test_qwen_parts_are_joined_once_and_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    parts = []
    for index in range(6):
        part = tmp_path / f"p{index}" / "data" / f"part0{index + 1}.bin"
        part.parent.mkdir(parents=True)
        part.write_bytes(bytes([index]) * 1000)
        parts.append(part.parent.parent)
    joined = b"".join(bytes([index]) * 1000 for index in range(6))
    monkeypatch.setattr(local_model, "_package_dir", lambda package, install: parts[int(package[-1]) - 1])
    monkeypatch.setattr(local_model, "QWEN_SHA256", hashlib.sha256(joined).hexdigest())
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path / "data"))

    path = local_model.assemble_qwen()
    assert path.read_bytes() == joined
    (parts[0] / "data" / "part01.bin").write_bytes(b"tampered")
    assert local_model.assemble_qwen() == path  # joined once: the cache file is reused


def test_a_part_that_does_not_add_up_fails_loudly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for index in range(6):
        (tmp_path / f"p{index}" / "data").mkdir(parents=True)
        (tmp_path / f"p{index}" / "data" / "part.bin").write_bytes(b"x")
    monkeypatch.setattr(local_model, "_package_dir", lambda package, install: tmp_path / f"p{int(package[-1]) - 1}")
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path / "data"))
    with pytest.raises(StarterError, match="do not add up"):
        local_model.assemble_qwen()
    assert not (tmp_path / "data" / "models" / local_model.QWEN_FILE).exists()


def test_a_model_path_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    result = starter("run", "--provider", "local", "--model", str(tmp_path / "absent.gguf"))
    assert_one_line_error(result, "absent.gguf", "nor a GGUF file that exists")


@pytest.mark.parametrize(
    ("args", "env", "fragment"),
    [
        (["--provider", "openai"], {}, "needs a model"),
        (["--provider", "openai", "--model", "gpt-4o-mini"], {}, "missing API key: set OPENAI_API_KEY"),
        (["--provider", "openai", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], {}, "nothing answers at"),
        (["--provider", "oracle"], {}, "invalid choice: 'oracle'"),
    ],
)
def test_provider_bad_input_is_one_line_before_any_run(args: list[str], env: dict[str, str], fragment: str) -> None:
    environment = {k: v for k, v in cli_env(**env).items() if not k.startswith("OPENAI_")}
    assert_one_line_error(starter("run", *args, env=environment), fragment)

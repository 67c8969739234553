"""Which provider a run gets from the starter's flags: a local model server already running
(`--provider local --base-url`) is used as it is, in llama.cpp's output mode, with no server
started; one that does not answer stops the run before it starts."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from contracts.errors import StarterError
from lab.models.llama_server import LOCAL_CONTEXT_TOKENS, MODEL_ALIAS
from lab.models.providers import ProviderChoice, provider_for
from lab.runs.catalog import load_task
from tests.conftest import free_port


class _Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"data": [{"id": MODEL_ALIAS}]}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model_server() -> Iterator[str]:
    """Something that answers /v1/models as llama.cpp's server does."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


async def test_a_running_local_server_is_used_as_it_is(model_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_server(*args: object, **kwargs: object) -> None:
        raise AssertionError("a local server was started though one was given")

    monkeypatch.setattr("lab.models.providers.llama_server", no_server)
    choice = ProviderChoice.resolve("local", None, model_server, None, 7)
    async with provider_for(choice, load_task("small-off-by-one")) as provider:
        assert provider.kind == "openai" and provider.base_url == model_server
        assert provider.model == MODEL_ALIAS and provider.structured_output == "json_object"
        assert provider.seed == 7 and provider.context_tokens == LOCAL_CONTEXT_TOKENS
        assert provider.model_sha256 is None  # the server's weights are its own


async def test_a_local_server_that_does_not_answer_stops_the_run_first() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    choice = ProviderChoice.resolve("local", None, url, None, 0)
    with pytest.raises(StarterError, match=f"nothing answers at {url}"):
        async with provider_for(choice, load_task("small-off-by-one")):
            pass

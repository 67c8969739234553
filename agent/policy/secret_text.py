"""Secrets inside text that a tool sends out of the workspace: a refund's reason, a ticket's
title and body, an account's disable reason.

An operations call takes its text to another system (a payments audit trail, a ticket queue)
where anyone with access reads it, so a secret written there has leaked. Two kinds are
recognised. Credentials by their shape: private key blocks, the token formats services issue
(AWS, GitHub, GitLab, Slack, OpenAI, Anthropic, Stripe, Google, npm, PyPI), JSON web tokens,
bearer tokens, a password in a URL, and `password=...`-style assignments with a value that is
not a placeholder. And the worker's own secrets: the value of any secret-looking variable of
its environment (`agent.policy.secrets.is_secret_variable`), also reversed, in base64, hex or
URL encoding, or spaced out. What is found is named, never shown: the refusal is recorded and
read back to the model.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from urllib.parse import quote

from agent.policy.secrets import is_secret_variable

# What a credential looks like, by the format its issuer gives it.
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (what, re.compile(pattern))
    for what, pattern in (
        ("a private key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"),
        ("an AWS access key", r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}\b"),
        ("a GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})"),
        ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
        ("a Slack token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}"),
        ("a Slack webhook", r"hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}"),
        ("an OpenAI or Anthropic key", r"\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        ("a Stripe secret key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}"),
        ("a PyPI token", r"\bpypi-AgE[A-Za-z0-9_-]{40,}"),
        ("a JSON web token", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
        ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*"),
        ("a password in a URL", r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@"),
    )
)
# `password=hunter2`, `"db_password": "x"`, `api_key: Zt8#kq2L`, `AWS_SECRET_ACCESS_KEY=...`: the
# key ends with the word that names a secret (so `tokenizer=` and `password_policy=` do not).
_ASSIGNED = re.compile(
    r"""(?ix) (?P<key>[\w.-]*?(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key
    |private[_-]?key|secret[_-]?key|credentials?))\b (?P<quote>["']?) \s* (?P<sep>[=:]) \s* (?P<open>["']?)
    (?P<value>[^\s"',;&)}\]]*)"""
)
# Values that stand in for a secret, or say something about one.
_NOT_VALUES = {
    "", "none", "null", "nil", "true", "false", "yes", "no", "empty", "unset", "missing", "required", "invalid",
    "expired", "redacted", "hidden", "masked", "removed", "revoked", "rotated", "changed", "reset", "unknown",
    "n/a", "tbd", "todo", "see", "set", "ok",
}  # fmt: skip
_PLACEHOLDER = re.compile(r"^(?:[*x.#•-]+|<[^>]*>?|\[[^\]]*\]?|\{[^}]*\}?|\$\{?\w+\}?|%\(?\w+\)?s?)$", re.IGNORECASE)
# A worker's variable is compared only when its value could be a secret at all.
_MIN_SECRET_CHARS = 8
_SEPARATORS = re.compile(r"[\s\-_.:,;|/]+")


def secret_in_text(text: str, environ: Mapping[str, str]) -> str | None:
    """What kind of secret the text carries (never the secret itself), or None."""
    for what, shape in _SHAPES:
        if shape.search(text):
            return what
    for match in _ASSIGNED.finditer(text):
        if _is_assigned_secret(match):
            return f"a value assigned to {match.group('key')!r}"
    for name, value in environ.items():
        if is_secret_variable(name) and _could_be_secret(value) and (how := _carried(text, value)) is not None:
            return f"the value of the worker's secret variable {name}{how}"
    return None


def _is_assigned_secret(match: re.Match[str]) -> bool:
    value = match.group("value")
    if value.lower().rstrip(".") in _NOT_VALUES or _PLACEHOLDER.match(value) or len(value) < 4:
        return False
    if match.group("sep") == "=" or match.group("quote") or match.group("open"):
        return True  # configuration syntax: whatever follows is the value
    # Prose (`password: reset by the user`): only a value no sentence has, with a digit or a symbol.
    return len(value) >= 6 and not value.isalpha()


def _could_be_secret(value: str) -> bool:
    """Worth looking for: not a path to a secret, not another variable's name, not a plain word
    or number that ordinary text holds anyway (`AGENT_LAB_SECRET_BACKEND=filesystem`)."""
    stripped = value.strip()
    kinds = sum(bool(re.search(p, stripped)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return (
        len(stripped) >= _MIN_SECRET_CHARS
        and (kinds >= 2 or len(stripped) >= 2 * _MIN_SECRET_CHARS)
        and not stripped.startswith(("/", "~", "."))
        and not re.fullmatch(r"[A-Z][A-Z0-9_]*", stripped)
    )


def _carried(text: str, value: str) -> str | None:
    """Whether the text holds the value, and how it was disguised ("" when it was not)."""
    for form, how in _forms(value):
        if form in text:
            return how
    squeezed = _SEPARATORS.sub("", value)
    if len(squeezed) >= _MIN_SECRET_CHARS and squeezed in _SEPARATORS.sub("", text):
        return " (spaced out)"
    return None


def _forms(value: str) -> Iterator[tuple[str, str]]:
    raw = value.strip().encode()
    yield value.strip(), ""
    yield value.strip()[::-1], " (reversed)"
    yield quote(value.strip(), safe=""), " (URL-encoded)"
    yield raw.hex(), " (in hex)"
    yield raw.hex().upper(), " (in hex)"
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        # Inside a longer base64 text the value may start at any of three byte offsets; only the
        # characters it alone decides are compared.
        for offset in range(3):
            try:
                encoded = encode(bytes(offset) + raw).decode()
            except (binascii.Error, ValueError):
                continue
            start = (offset * 4 + 2) // 3
            core = encoded[start : (offset + len(raw)) // 3 * 4]
            if len(core) >= _MIN_SECRET_CHARS:
                yield core, " (in base64)"

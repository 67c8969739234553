"""What counts as a secret: credential files, secret-looking variables, environment dumps.

Secret files are secret wherever they are, inside the workspace too, so this check runs
before the generic outside-the-workspace rule and gives the more specific reason.
"""

from __future__ import annotations

import posixpath
import re
from fnmatch import fnmatchcase

from agent.policy.words import DYNAMIC, INDIRECT, Word

# Whole paths (after normalisation), as glob patterns.
_SECRET_PATHS = (
    "/etc/shadow*", "/etc/gshadow*", "/etc/sudoers", "/etc/sudoers.d*", "/etc/master.passwd",
    "/proc/*/environ", "/run/secrets*", "/var/run/secrets*",
)  # fmt: skip
# Directories whose every file is a secret.
_SECRET_DIRECTORIES = {".ssh", ".gnupg", ".aws", ".kube", ".docker", ".password-store"}
# File names, as glob patterns.
_SECRET_NAMES = (
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore",
    ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".env", ".env.*", ".bash_history",
    ".zsh_history", ".python_history", ".vault-token", "credentials.json",
)  # fmt: skip
# Templates that hold no secret by convention.
_NOT_SECRET = (".env.example", ".env.sample", ".env.template", ".env.dist")
# Names a glob like `.e*` or `id_*` could reach.
_SECRET_EXAMPLES = ("id_rsa", "id_ed25519", "server.pem", "server.key", ".env", ".netrc", ".git-credentials")

_SECRET_VARIABLE = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE")
_GLOB = re.compile(r"[*?\[]")


def secret_in(word: Word, texts: list[str]) -> str | None:
    """The first of the word's possible texts that names a secret file, if any."""
    for text in texts:
        if _is_secret_path(text, globbing=word.glob or DYNAMIC in text):
            return text.replace(DYNAMIC, "*")
    return None


def is_secret_variable(name: str) -> bool:
    """Upper-case names only: environment variables are upper case, script locals rarely are."""
    return name == INDIRECT or (name.isupper() and _SECRET_VARIABLE.search(name) is not None)


def _is_secret_path(text: str, globbing: bool) -> bool:
    path = text.replace(DYNAMIC, "*")
    if path.startswith("/"):
        path = posixpath.normpath(path)  # `/tmp/../etc/shadow` is /etc/shadow
    if any(fnmatchcase(path, pattern) for pattern in _SECRET_PATHS):
        return True
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if any(part in _SECRET_DIRECTORIES for part in parts[:-1]) or (parts and parts[-1] in _SECRET_DIRECTORIES):
        return True
    if not parts:
        return False
    name = parts[-1]
    if name in _NOT_SECRET:
        return False
    if any(fnmatchcase(name, pattern) for pattern in _SECRET_NAMES):
        return True
    return globbing and _glob_reaches_secret(name)


def _glob_reaches_secret(pattern: str) -> bool:
    """`.e*` reaches `.env`; a bare `*` is left alone (it would flag every `grep foo *`)."""
    literal = _GLOB.sub("", pattern.replace("[", "").replace("]", ""))
    if not _GLOB.search(pattern) or not literal.strip("."):
        return False
    for example in _SECRET_EXAMPLES:
        if example.startswith(".") and not pattern.startswith("."):
            continue  # a glob only matches a dot file when it starts with a dot
        if fnmatchcase(example, pattern):
            return True
    return False


def dumps_environment(name: str, args: list[Word]) -> str | None:
    """Commands that print every variable (and so every secret) of the environment."""
    texts = [a.text for a in args]
    if name in ("env", "printenv") and not args:
        return f"`{name}` prints every environment variable"
    if name == "printenv":
        secret = [t for t in texts if t is None or is_secret_variable(t)]
        return f"`printenv {secret[0] or '$…'}` prints a secret variable" if secret else None
    if name == "set" and not args:
        return "`set` prints every shell variable"
    if name == "export" and (not args or texts == ["-p"]):
        return "`export` prints every exported variable"
    if name in ("declare", "typeset") and _prints_variables(texts):
        return f"`{name}` prints shell variables"
    if name == "compgen" and any(t in ("-v", "-e", "-A") for t in texts):
        return "`compgen -v` lists variables"
    return None


def _prints_variables(texts: list[str | None]) -> bool:
    if not texts:
        return True
    options = [t for t in texts if t and t.startswith("-")]
    names = [t for t in texts if t and not t.startswith("-") and "=" not in t]
    assignments = [t for t in texts if t and "=" in t]
    printing = any("p" in o for o in options) or (any("x" in o for o in options) and not assignments)
    return printing and (not names or any(is_secret_variable(n) for n in names))

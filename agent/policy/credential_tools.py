"""Programs that print credentials: credential helpers, key exports, token commands, listings
of configuration that holds tokens.

Reading `~/.aws/credentials` is refused by its path (agent.policy.secrets); these reach the same
secrets through a program, so the path rule never sees them. Each rule is a program and the
subcommand words (in order, options skipped) that make it print a secret; a rule whose words
are empty refuses the program whatever it is asked. Asking for one ordinary setting stays
allowed (`git config user.name`, `npm config get registry`).
"""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.options import operands
from agent.policy.words import DYNAMIC
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

# program -> subcommand paths that print secrets ("*" matches any one word).
_PRINTS_SECRETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "git": (("credential",), ("credential-store",), ("credential-cache",), ("credential-osxkeychain",),
            ("credential-libsecret",), ("credential-manager",)),
    "gpg": (("--export-secret-keys",), ("--export-secret-subkeys",), ("--export-ssh-key",)),
    "gpg2": (("--export-secret-keys",), ("--export-secret-subkeys",)),
    "gh": (("auth", "token"),),
    "fly": (("auth", "token"),), "flyctl": (("auth", "token"),),
    "keyring": (("get",),),
    "glab": (("auth", "status"),),
    "npm": (("token",), ("config", "list"), ("config", "ls"), ("config", "edit")),
    "yarn": (("config", "list"), ("npm", "whoami")),
    "pnpm": (("config", "list"),),
    "pip": (("config", "list"), ("config", "debug")),
    "pip3": (("config", "list"), ("config", "debug")),
    "poetry": (("config", "--list"), ("config", "http-basic")),
    "aws": (("configure", "get"), ("configure", "export-credentials"), ("configure", "list"),
            ("sts", "get-session-token"), ("sts", "assume-role"), ("ecr", "get-login-password"),
            ("secretsmanager", "get-secret-value"), ("ssm", "get-parameter"), ("ssm", "get-parameters")),
    "gcloud": (("auth", "print-access-token"), ("auth", "print-identity-token"), ("auth", "application-default",
               "print-access-token"), ("config", "config-helper"), ("secrets", "versions", "access")),
    "az": (("account", "get-access-token"), ("keyvault", "secret", "show"), ("keyvault", "secret", "download")),
    "kubectl": (("config", "view"), ("get", "secret"), ("get", "secrets"), ("describe", "secret")),
    "heroku": (("auth:token",), ("auth", "token")),
    "doctl": (("auth", "token"),),
    "secret-tool": (("lookup",), ("search",)),
    "pass": (),
    "gopass": (),
    "keyctl": (("print",), ("read",), ("pipe",), ("show",)),
    "security": (("find-generic-password",), ("find-internet-password",), ("dump-keychain",), ("export",)),
    "vault": (("read",), ("kv", "get"), ("token", "lookup"), ("print", "token"), ("login",)),
    "op": (("read",), ("item", "get"), ("inject",), ("signin",)),
    "bw": (("get",), ("list",), ("export",), ("unlock",)),
    "lpass": (("show",), ("export",)),
    "keepassxc-cli": (("show",), ("export",)),
    "kwallet-query": (),
    "systemd-creds": (("cat",), ("decrypt",)),
}  # fmt: skip
# Helpers named after what they serve: `docker-credential-pass list`, `git-credential-store get`.
_HELPER_PREFIXES = ("docker-credential-", "git-credential-")
# `git config` with no key but a listing, or a key that names a credential.
_GIT_CONFIG_LISTS = {"--list", "-l", "--get-regexp", "--show-origin", "--edit", "-e", "list", "edit"}
_SECRET_KEY = re.compile(r"credential|token|password|passwd|secret|auth|helper|key$|sshcommand", re.IGNORECASE)
# Options whose value is the next word, so it is not taken for a subcommand.
_VALUED = {"-C", "-c", "--profile", "--region", "--output", "-o", "--project", "--format", "-n", "--namespace",
           "--context", "--kubeconfig", "--config", "-u", "--armor"}  # fmt: skip


def credential_findings(inv: Invocation) -> list[Finding]:
    name = inv.name or ""
    texts = [a.text if a.text is not None else DYNAMIC for a in inv.args]
    shown = _printer(name, texts)
    if shown is None:
        return []
    message = f"`{shown}` prints credentials: leave them alone; the task never needs a secret's value"
    return [Finding(ReasonCode.SECRET_ACCESS, message)]


def _printer(name: str, texts: list[str]) -> str | None:
    """The part of the command line that prints secrets, or None."""
    if name.startswith(_HELPER_PREFIXES):
        return name
    if name == "git" and (key := _git_config_secret(texts)):
        return f"git config {key}"
    if name == "git" and _subcommands(texts)[:1] == ["var"] and "-l" in texts:
        return "git var -l"  # every setting, like `git config --list`
    rules = _PRINTS_SECRETS.get(name)
    if rules is None:
        return None
    if not rules:
        return name
    words = _subcommands(texts)
    for rule in rules:
        if rule[0].startswith("-"):
            if any(t == rule[0] or t.startswith(rule[0] + "=") for t in texts):
                return f"{name} {rule[0]}"
        elif tuple(words[: len(rule)]) == rule or (DYNAMIC in words[: len(rule)]):
            return " ".join((name, *words[: len(rule)]))
    if name in ("npm", "pnpm", "yarn") and words[:2] == ["config", "get"] and len(words) > 2:
        # `//registry.npmjs.org/:_authToken` is how npm names a registry's token.
        key = words[2]
        if key.startswith("//") or _SECRET_KEY.search(key) or DYNAMIC in key:
            return f"{name} config get {key.replace(DYNAMIC, '$…')}"
    if name == "gh" and words[:2] == ["auth", "status"] and any(t in ("-t", "--show-token") for t in texts):
        return "gh auth status --show-token"
    return None


def _subcommands(texts: list[str]) -> list[str]:
    return operands(texts, _VALUED, is_option=lambda text: text.startswith("-"))


def _git_config_secret(texts: list[str]) -> str | None:
    """`git config --list` (every setting, tokens in URLs and helpers included) or a secret key."""
    words = _subcommands(texts)
    if words[:1] != ["config"]:
        return None
    after = texts[texts.index("config") + 1 :]
    if listing := next((t for t in after if t in _GIT_CONFIG_LISTS), None):
        return listing
    keys = [t for t in _subcommands(after) if t not in ("get", "set")]
    reads = len(keys) == 1 or any(t in ("--get", "--get-all", "get") for t in after)
    if reads and keys and (_SECRET_KEY.search(keys[0]) or DYNAMIC in keys[0] or "url." in keys[0].lower()):
        return keys[0].replace(DYNAMIC, "$…")
    return None

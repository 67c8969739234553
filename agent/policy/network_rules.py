"""Network access: network clients, servers, package installs from an index, remote git.

Commands run with no network; these are refused up front so the model learns to work with
what is in the workspace rather than waiting for a timeout. Package managers are allowed
when told to stay offline (`--offline`, `--no-index`).
"""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.options import after_git_options
from agent.policy.words import Word
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

_CLIENTS = {
    "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "lftp", "sftp", "scp", "ssh", "ssh-keyscan",
    "sshpass", "autossh", "mosh", "ping", "ping6", "arping", "dig", "nslookup", "host", "traceroute", "tracepath",
    "mtr", "nmap", "masscan", "aria2c", "axel", "lynx", "w3m", "links", "elinks", "http", "https", "httpie", "xh",
    "curlie", "websocat", "whois", "tftp", "smbclient", "rclone", "s3cmd", "aws", "gcloud", "gsutil", "az", "gh",
    "hub", "npx", "uvx", "pipx", "bunx", "pnpx", "torsocks", "proxychains", "proxychains4", "iperf", "iperf3",
    "hping3", "nping", "ab", "wrk", "siege", "ncftp",
}  # fmt: skip
# Package manager → subcommands that reach a package index.
_FETCHING = {
    "pip": {"install", "download", "wheel", "index", "search"},
    "npm": {"install", "i", "in", "ci", "add", "update", "up", "upgrade", "exec", "x", "publish", "audit",
            "outdated", "view", "info", "search", "login", "create", "dlx"},
    "yarn": {"add", "install", "upgrade", "up", "dlx", "global", "publish", "info", "create", "npm"},
    "pnpm": {"add", "install", "i", "update", "up", "dlx", "create", "publish", "fetch"},
    "bun": {"add", "install", "i", "update", "x", "create", "upgrade", "publish"},
    "apt": {"install", "update", "upgrade", "dist-upgrade", "full-upgrade", "source", "download", "build-dep"},
    "apt-get": {"install", "update", "upgrade", "dist-upgrade", "source", "download", "build-dep", "reinstall"},
    "aptitude": {"install", "update", "upgrade", "safe-upgrade", "full-upgrade", "download"},
    "yum": {"install", "update", "upgrade", "makecache", "download", "reinstall", "groupinstall", "check-update"},
    "dnf": {"install", "update", "upgrade", "makecache", "download", "reinstall", "groupinstall", "check-update"},
    "zypper": {"install", "in", "update", "up", "refresh", "ref", "dist-upgrade", "dup"},
    "apk": {"add", "update", "upgrade", "fetch"},
    "brew": {"install", "update", "upgrade", "tap", "fetch", "reinstall"},
    "gem": {"install", "update", "fetch", "push", "sources"},
    "cargo": {"install", "fetch", "update", "add", "search", "publish", "login", "vendor"},
    "go": {"get", "install", "download", "tidy"},
    "conda": {"install", "create", "update", "upgrade", "search"},
    "mamba": {"install", "create", "update", "upgrade", "search"},
    "micromamba": {"install", "create", "update", "upgrade", "search"},
    "poetry": {"install", "add", "update", "lock", "publish", "search"},
    "pipenv": {"install", "update", "sync", "lock"},
    "bundle": {"install", "update", "add"},
    "composer": {"install", "require", "update", "create-project"},
    "snap": {"install", "refresh"},
    "flatpak": {"install", "update"},
    "uv": {"add", "sync", "lock", "install", "compile", "tool", "publish"},
}  # fmt: skip
_OFFLINE = {"--offline", "--no-index", "--frozen-lockfile-offline"}
_GIT_REMOTE = {"clone", "fetch", "pull", "push", "ls-remote", "send-email", "request-pull", "fetch-pack", "send-pack"}
# Runners that, told not to install, run a package already in the project (`npx --no-install tsc`).
_LOCAL_RUNNERS = {"npx": {"--no-install", "--no"}, "pnpx": {"--offline"}, "bunx": {"--no-install"}}
_PYTHON_SERVERS = {"http.server", "SimpleHTTPServer", "smtpd", "xmlrpc.server", "webbrowser", "ftplib", "smtplib"}
_REMOTE_PATH = re.compile(r"^(rsync://|[\w.@-]+::?)")


def network_findings(inv: Invocation) -> list[Finding]:
    name = inv.name or ""
    args = inv.args
    texts = [a.text or "" for a in args]
    if name in _CLIENTS and not (name in _LOCAL_RUNNERS and _LOCAL_RUNNERS[name] & set(texts)):
        return [_refuse(f"`{name}` reaches the network")]
    if name in ("pip", "python") and _installs_local_wheels(name, texts):
        return []
    if name == "rsync" and any(_REMOTE_PATH.match(t) for t in texts if not t.startswith("-")):
        return [_refuse("`rsync` to or from a remote host reaches the network")]
    if name == "openssl" and texts[:1] == ["s_client"]:
        return [_refuse("`openssl s_client` reaches the network")]
    if name == "php" and "-S" in texts:
        return [_refuse("`php -S` starts a network server")]
    if name == "python":
        module, module_args = _python_module(args)
        if module in _PYTHON_SERVERS or (module == "pydoc" and any(t in ("-p", "-b") for t in texts)):
            return [_refuse(f"`python -m {module}` uses the network")]
        return _package_manager("pip", module_args) if module == "pip" else []
    if name == "git":
        return _git(args)
    return _package_manager(name, args)


def _package_manager(name: str, args: tuple[Word, ...]) -> list[Finding]:
    if name not in _FETCHING:
        return []
    texts = [a.text or "" for a in args]
    if _OFFLINE & set(texts) or any(t.startswith("--offline") for t in texts):
        return []
    positionals = [t for t in texts if not t.startswith("-")]
    if name == "uv" and positionals[:1] == ["pip"]:
        positionals = positionals[1:]
    if name == "uv" and positionals[:1] == ["run"] and any(t.startswith("--with") for t in texts):
        return [_refuse("`uv run --with` downloads packages; use what is installed")]
    if name == "go" and positionals[:1] == ["mod"]:
        positionals = positionals[1:]
    if name == "yarn" and not positionals:
        positionals = ["install"]  # a bare `yarn` installs
    if positionals and positionals[0] in _FETCHING[name]:
        return [_refuse(f"`{name} {positionals[0]}` downloads packages; use --offline, or what is installed")]
    return []


def _git(args: tuple[Word, ...]) -> list[Finding]:
    rest = after_git_options(args)
    words = [w.text or "" for w in rest]
    if not words:
        return []
    sub = words[0]
    remote = sub in _GIT_REMOTE
    remote |= sub == "submodule" and any(w in ("update", "add", "sync") for w in words[1:])
    remote |= sub == "remote" and len(words) > 1 and words[1] in ("update", "show", "prune") and "-n" not in words
    remote |= sub == "archive" and any(w.startswith("--remote") for w in words)
    remote |= sub == "lfs" and len(words) > 1 and words[1] in ("fetch", "pull", "push", "clone")
    if remote:
        return [_refuse(f"`git {sub}` talks to a remote repository")]
    return []


def _python_module(args: tuple[Word, ...]) -> tuple[str | None, tuple[Word, ...]]:
    """`python -m module args...`: the module and its arguments."""
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text == "-m" and index + 1 < len(args):
            return args[index + 1].text, args[index + 2 :]
        if text.startswith("-m") and len(text) > 2:
            return text[2:], args[index + 1 :]
        if not text.startswith("-"):
            break
    return None, ()


def _refuse(message: str) -> Finding:
    return Finding(
        ReasonCode.NETWORK_ACCESS, message + ": commands run without network, so use what is in the workspace"
    )


def _installs_local_wheels(name: str, texts: list[str]) -> bool:
    """`pip install --no-deps dist/app-0.1-py3-none-any.whl`: a built wheel from the workspace,
    with nothing else to fetch."""
    if name == "python":
        if texts[:2] != ["-m", "pip"]:
            return False
        texts = texts[2:]
    targets = [t for t in texts[1:] if not t.startswith("-")]
    offline = "--no-deps" in texts or "--no-index" in texts
    return texts[:1] == ["install"] and offline and bool(targets) and all(t.endswith(".whl") for t in targets)

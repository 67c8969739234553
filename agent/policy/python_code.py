"""Python code run inline (`python -c CODE`, a here-doc fed to `python -`), read with `ast`.

Modules and calls are matched by their dotted names after import aliases are resolved
(`import os as o; o.system(...)` is `os.system`). Starting another program from Python is
refused as dynamic code: the program's command line is out of the verifier's sight, and
the model can run it with run_command instead, where it is checked.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from agent.policy.findings import Finding
from agent.policy.python_resources import python_resource_findings
from agent.policy.words import DYNAMIC, Word
from contracts.actions import ReasonCode

_NETWORK = {
    "socket", "ssl", "http.client", "http.server", "urllib.request", "urllib3", "requests", "httpx", "aiohttp",
    "ftplib", "smtplib", "smtpd", "telnetlib", "poplib", "imaplib", "nntplib", "paramiko", "xmlrpc.client",
    "xmlrpc.server", "socketserver", "websocket", "websockets", "pycurl", "asyncssh", "fabric", "webbrowser",
    "asyncore", "asynchat", "grpc", "twisted", "tornado", "asyncio.open_connection", "asyncio.start_server",
    "asyncio.open_unix_connection", "urllib.urlopen",
}  # fmt: skip
_PROCESS = {
    "subprocess", "pty", "pexpect", "sh", "plumbum", "commands", "popen2", "asyncio.subprocess", "os.system",
    "os.popen", "os.startfile", "os.posix_spawn", "os.posix_spawnp", "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
}  # fmt: skip
_PROCESS_PREFIXES = ("os.exec", "os.spawn")
_FORK = {"os.fork", "os.forkpty", "multiprocessing", "concurrent.futures.ProcessPoolExecutor"}
_ENVIRONMENT = {"os.environ", "os.environb", "os.getenv", "os.getenvb", "posix.environ"}
_ESCAPE = {"os.setsid", "os.setpgid", "os.setpgrp", "os.chroot", "os.unshare", "os.setns"}
_PRIVILEGE = {"os.setuid", "os.seteuid", "os.setgid", "os.setegid", "os.setreuid", "os.setresuid"}
_KILL = {"os.kill", "os.killpg", "signal.pthread_kill"}
_DYNAMIC_MODULES = {"importlib", "ctypes", "cffi", "runpy", "code", "codeop", "marshal", "pickle", "dill"}
_DYNAMIC_MODULES |= {"sys.modules", "builtins", "os.__dict__"}
_DYNAMIC_BUILTINS = {"eval", "exec", "compile", "__import__", "execfile", "globals", "vars", "breakpoint"}
_DYNAMIC_DUNDERS = {"__subclasses__", "__globals__", "__builtins__", "__code__", "__getattribute__", "__import__"}
_HOME = {"pathlib.Path.home", "pathlib.Path.expanduser", "os.path.expanduser"}
# The system's keyrings: passwords and tokens, read through a library rather than a path.
_KEYRINGS = {"keyring", "keyrings", "secretstorage", "gnomekeyring", "win32cred", "keychain"}
# Parts of importlib that read installed packages' metadata and data files, and import nothing.
_METADATA = ("importlib.metadata", "importlib.resources", "importlib_metadata", "importlib_resources")

_RULES: tuple[tuple[ReasonCode, str], ...] = (
    (ReasonCode.NETWORK_ACCESS, "uses `{}`: commands have no network access"),
    (ReasonCode.DYNAMIC_CODE, "starts another program with `{}`: run that command directly with run_command"),
    (ReasonCode.RESOURCE_EXHAUSTION, "forks processes with `{}`"),
    (ReasonCode.SECRET_ACCESS, "reads the environment with `{}`, which may hold secrets"),
    (ReasonCode.SANDBOX_ESCAPE, "leaves its process group or root with `{}`"),
    (ReasonCode.PRIVILEGE_CHANGE, "changes its user or group with `{}`"),
    (ReasonCode.DESTRUCTIVE_COMMAND, "signals other processes with `{}`"),
    (ReasonCode.DYNAMIC_CODE, "runs code built at run time with `{}`"),
    (ReasonCode.PATH_OUTSIDE_WORKSPACE, "reaches outside the workspace with `{}`"),
    (ReasonCode.SECRET_ACCESS, "reads the system's keyring with `{}`"),
)


@dataclass
class PythonReport:
    findings: list[Finding] = field(default_factory=list)
    # Every string literal, as words for the path and secret rules.
    strings: list[Word] = field(default_factory=list)


def analyze_python(code: str, origin: str) -> PythonReport:
    report = PythonReport()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError) as error:
        reason = error.msg if isinstance(error, SyntaxError) else str(error)
        message = f"the Python code of {origin} does not parse ({reason})"
        report.findings.append(Finding(ReasonCode.UNANALYZABLE_COMMAND, message))
        return report
    aliases = _aliases(tree)
    report.findings.extend(python_resource_findings(tree, lambda node: _dotted(node, aliases), origin))
    for node in ast.walk(tree):
        for name in _names_used(node, aliases):
            code_and_message = _classify(name)
            if code_and_message is not None:
                reason, template = code_and_message
                report.findings.append(Finding(reason, f"the Python code of {origin} " + template.format(name)))
        word = _string(node)
        # A name character is needed: "/" and "/+" are separators and regexes, not paths.
        if word is not None and re.search(r"[\w.~]", word.pattern):
            report.strings.append(word)
    return report


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name → the dotted name it was imported as (`import os.path` binds `os`)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module or ''}.{alias.name}"
    return aliases


def _names_used(node: ast.AST, aliases: dict[str, str]) -> list[str]:
    """Dotted names an import, attribute access or bare name refers to."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return [module, *(f"{module}.{alias.name}" for alias in node.names)]
    if isinstance(node, ast.Attribute):
        dotted = _dotted(node, aliases)
        names = [dotted] if dotted else []
        return [*names, node.attr] if node.attr in _DYNAMIC_DUNDERS else names
    if isinstance(node, ast.Name):
        if node.id in aliases:
            return [aliases[node.id]]
        return [node.id] if node.id in _DYNAMIC_BUILTINS | _DYNAMIC_DUNDERS else []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr"):
        if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant):
            return ["getattr with a computed name"]
        target = _dotted(node.args[0], aliases)
        return [f"{target}.{node.args[1].value}"] if target else []
    return []


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    if node.id not in aliases:
        # Not an imported module; `Path.home()` still counts when Path came from pathlib.
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _classify(name: str) -> tuple[ReasonCode, str] | None:
    prefixes = [".".join(name.split(".")[: i + 1]) for i in range(name.count(".") + 1)]
    if name.startswith(_METADATA):
        return None
    checks = (
        (_NETWORK, 0),
        (_PROCESS, 1),
        (_FORK, 2),
        (_ENVIRONMENT, 3),
        (_ESCAPE, 4),
        (_PRIVILEGE, 5),
        (_KILL, 6),
        (_DYNAMIC_MODULES | _DYNAMIC_BUILTINS | _DYNAMIC_DUNDERS | {"getattr with a computed name"}, 7),
        (_HOME, 8),
        (_KEYRINGS, 9),
    )
    for names, rule in checks:
        if any(prefix in names for prefix in prefixes):
            return _RULES[rule]
    if name.startswith(_PROCESS_PREFIXES):
        return _RULES[1]
    return None


def _string(node: ast.AST) -> Word | None:
    """A literal string, a concatenation of them, or an f-string (its holes unknown)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        text = node.value if isinstance(node.value, str) else node.value.decode(errors="replace")
        return Word.literal(text)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left), _string(node.right)
        if left is not None and right is not None:
            pattern = left.pattern + right.pattern
            return Word(pattern, (pattern,) if DYNAMIC not in pattern else None, pattern)
    if isinstance(node, ast.JoinedStr):
        pattern = "".join(v.value if isinstance(v, ast.Constant) else DYNAMIC for v in node.values)
        return Word(pattern, None if DYNAMIC in pattern else (pattern,), pattern)
    return None

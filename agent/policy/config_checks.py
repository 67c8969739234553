"""Whether the text of a tool's file does what an ordinary project file has no need to.

Each check takes the text written (all of a file, or the part an edit inserts) and answers
whether it matters: code that starts programs, opens connections or evaluates built strings;
a plugin loaded from the workspace; a hook a tool runs by itself; a command that would be
refused if the agent ran it now. A benign neighbour (a jest config that exports options, a
tox.ini that runs pytest, a package.json whose scripts build and test) answers False.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

from agent.policy.python_code import analyze_python
from contracts.actions import ReasonCode

Check = Callable[[str], bool]

_JS_REACHES_OUT = re.compile(
    r"child_process|\b(execSync|execFileSync|spawnSync|execFile|spawn|fork|exec)\s*\("
    r"|\brequire\s*\(\s*[^'\"`\s)]|\bimport\s*\(\s*[^'\"`\s)]"  # a module named at run time
    r"|(require\s*\(|from|import)\s*['\"](node:)?(net|http|https|http2|dgram|tls|vm|worker_threads|cluster|inspector)['\"]"
    r"|\b(fetch|eval|atob)\s*\(|new\s+Function\b|XMLHttpRequest|WebSocket|process\.binding|String\.fromCharCode"
    r"|Buffer\.from\([^)]*base64|\bDeno\.(run|Command)|\bBun\.(spawn|\$)|\$`"
)
_RUBY_REACHES_OUT = re.compile(
    r"`|%x[({\[|!]|\b(system|exec|spawn|fork|syscall|eval|instance_eval|class_eval)\b\s*[(\s'\"]"
    r"|IO\.popen|Open3|Kernel\.|Net::HTTP|URI\.open|TCPSocket|UDPSocket|\bopen\s*\(\s*['\"]\||require\s*['\"]socket"
    r"|\b(load|require)\s*\(?\s*['\"](/|~|\.\./)"  # code from outside the project
)
_JVM_REACHES_OUT = re.compile(
    # Configuration-time code (an `Exec` task's `commandLine` runs only when asked for, like a make target).
    r"\.execute\s*\(|ProcessBuilder|Runtime\s*\.\s*getRuntime|providers\.exec|project\.exec"
    r"|new\s+URL\s*\(|Socket\s*\(|HttpClient|GroovyShell|Eval\.|Class\.forName|sys\.process|\"\s*\.\s*!!?"
)
_JVM_AGENT = re.compile(
    r"-javaagent|-agentpath|-agentlib|-XX:\+?On(Error|OutOfMemoryError)|-Xbootclasspath|java\.system\.class\.loader"
    r"|maven\.ext\.class\.path|org\.gradle\.java\.home|JAVA_TOOL_OPTIONS"
)
_PHP_REACHES_OUT = re.compile(
    r"\b(system|exec|shell_exec|passthru|proc_open|popen|pcntl_exec|eval|assert|fsockopen|curl_exec|create_function)\s*\("
    r"|`|file_get_contents\s*\(\s*['\"]https?:"
)
_MSBUILD_EXEC = re.compile(r"<\s*Exec\b|UsingTask|TaskFactory|Command\s*=", re.IGNORECASE)
_MAVEN_EXEC = re.compile(r"exec-maven-plugin|maven-antrun-plugin|gmavenplus|groovy-maven-plugin|<\s*exec\b")
_CARGO_PROGRAM = re.compile(
    r"(?m)(?:^|[.\s{,])(runner|rustc-wrapper|rustc-workspace-wrapper|rustc|rustdoc|linker|credential-provider"
    r"|global-credential-providers)\s*=\s*(.*)$"
)
_BARE_PROGRAM = re.compile(r"""["'][\w.+-]+["']""")
_CARGO_ENV = re.compile(r"(?m)^\s*(RUSTC\w*|RUSTDOC\w*|LD_\w+|\w*_WRAPPER|PATH|CARGO_\w*)\s*=")
_CARGO_FLAGS = re.compile(r"rustflags[^\n]*(plugin|linker=[.~]?/|llvm-args)")
_ELISP_EVAL = re.compile(r"\(\s*eval\b|\beval\s*\.")
# pytest's `-p name` loads a plugin module, from the workspace when it is there; `-p no:x`
# turns one off. `--pdbcls=mod:Class` imports a module.
_PYTEST_PLUGIN = re.compile(r"""(?<![\w-])(-p[\s"',]*|--plugin[=\s"',]+)(?!no:)[A-Za-z_]|--pdbcls""")
# npm and yarn run these by themselves, at `npm install`, `npm pack` or `npm publish`.
NPM_LIFECYCLE = {
    "preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare",
    "prepublishOnly", "prepack", "postpack", "publish", "postpublish", "dependencies",
}  # fmt: skip
# package.json keys that configure git hooks (husky 4, simple-git-hooks, yorkie, ghooks, pre-commit).
_HOOK_KEYS = ("husky", "simple-git-hooks", "gitHooks", "ghooks", "pre-commit", "pre-push")
# composer runs `pre-...`/`post-...` event scripts by itself (`post-install-cmd`, `post-autoload-dump`).
_COMPOSER_EVENT = re.compile(r"""["'](pre|post)-[a-z-]+["']\s*:""")
_COMMAND_LINES = re.compile(r"(?m)^\s*(commands(_pre|_post)?|install_command)\s*=(.*(?:\n[ \t]+\S.*)*)")


def matches(pattern: re.Pattern[str]) -> Check:
    return lambda text: pattern.search(text) is not None


def sets_key(*names: str) -> Check:
    """A line (INI, TOML, YAML or JSON) that sets one of the keys, quoted or not, dotted or not."""
    alternatives = "|".join(re.escape(n) for n in names)
    pattern = re.compile(rf"""(?im)(?:^|[\s{{,\[.])["']?(?:{alternatives})["']?\s*[:=]""")
    return matches(pattern)


def any_of(*checks: Check) -> Check:
    return lambda text: any(check(text) for check in checks)


def python_reaches_out(text: str) -> bool:
    """Network, other programs, built code: what a conftest.py or setup.py should not need."""
    findings = analyze_python(text, "the file").findings
    risky = {ReasonCode.NETWORK_ACCESS, ReasonCode.DYNAMIC_CODE, ReasonCode.SANDBOX_ESCAPE}
    risky |= {ReasonCode.PRIVILEGE_CHANGE, ReasonCode.DESTRUCTIVE_COMMAND, ReasonCode.SECRET_ACCESS}
    # Python that does not parse runs nothing, but cannot be shown to be harmless either.
    risky.add(ReasonCode.UNANALYZABLE_COMMAND)
    return any(finding.code in risky for finding in findings)


def _without_comment_lines(pattern: re.Pattern[str], marker: str) -> Check:
    """The pattern searched in the code, not in whole-line comments (`# Run `bundle``)."""
    comment = re.compile(rf"(?m)^\s*{re.escape(marker)}.*$")
    return lambda text: pattern.search(comment.sub("", text)) is not None


js_reaches_out = _without_comment_lines(_JS_REACHES_OUT, "//")
ruby_reaches_out = _without_comment_lines(_RUBY_REACHES_OUT, "#")
jvm_reaches_out = _without_comment_lines(_JVM_REACHES_OUT, "//")
jvm_agent = matches(_JVM_AGENT)
php_reaches_out = matches(_PHP_REACHES_OUT)
msbuild_exec = matches(_MSBUILD_EXEC)
maven_exec = matches(_MAVEN_EXEC)
elisp_eval = matches(_ELISP_EVAL)


def cargo_runs(text: str) -> bool:
    """A program named by a path or a command line (`runner = "sh ./x.sh"`; a bare name such as
    `sccache` is a tool the person installed), build-environment variables that load code, or
    flags that hand the linker a plugin."""
    for match in _CARGO_PROGRAM.finditer(text):
        value = match.group(2).strip().strip("[]").strip()
        if not _BARE_PROGRAM.fullmatch(value):
            return True
    return _CARGO_ENV.search(text) is not None or _CARGO_FLAGS.search(text) is not None


def pytest_plugin(text: str) -> bool:
    return "addopts" in text and _PYTEST_PLUGIN.search(text) is not None


def refused(commands: Iterable[str]) -> bool:
    """Whether any of these command lines would be refused if the agent ran it now: planted in
    a file a tool runs, it would run later with nothing to refuse it."""
    # Imported here: the command policy itself asks this module about files commands write.
    from agent.policy.check import check_command

    return any(check_command(command) is not None for command in commands if command.strip())


def tox_runs(text: str) -> bool:
    """tox runs `commands`, `commands_pre`/`_post` and `install_command` at every run."""
    lines = [line for match in _COMMAND_LINES.finditer(text) for line in match.group(3).split("\n")]
    return pytest_plugin(text) or refused(line.strip() for line in lines)


def package_json_runs(text: str) -> bool:
    """Lifecycle scripts, git-hook settings, or a script the agent could not run now."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):  # a fragment (an edit's new text): by the keys it names
        names = "|".join(re.escape(n) for n in (*NPM_LIFECYCLE, *_HOOK_KEYS))
        return re.search(rf"""["']({names})["']\s*:""", text) is not None
    scripts = data.get("scripts")
    scripts = scripts if isinstance(scripts, dict) else {}
    if any(key in NPM_LIFECYCLE for key in scripts) or any(key in data for key in _HOOK_KEYS):
        return True
    return refused(value for value in scripts.values() if isinstance(value, str))


def composer_runs(text: str) -> bool:
    if _COMPOSER_EVENT.search(text):
        return True
    try:
        scripts = json.loads(text).get("scripts", {})
    except (ValueError, AttributeError):
        return False
    commands = [c for v in scripts.values() for c in (v if isinstance(v, list) else [v]) if isinstance(c, str)]
    return refused(c for c in commands if not c.startswith("@") and "::" not in c)

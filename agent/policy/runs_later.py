"""Files that run code later, outside the agent's run: planted persistence.

A git hook runs at the next `git commit` of whoever uses the workspace; `.envrc` when a person
enters the directory with direnv; an editor's task file or a CI workflow when someone opens or
pushes the project; `conftest.py`, `setup.py` or a `.pth` file at the next test run or install,
on the host, with no sandbox around them. None of this is always malicious (projects have
hooks and CI), so writing such a file needs a person's approval, or is refused under the
stricter profiles (agent.verification).

One rule set serves the file tools (`agent.tools.registry`: which argument is the path and
which the content) and commands that write files (`agent.policy.persistence_rules`). Paths are
relative to the workspace root. A rule with a content check applies only when the content
does something a build or test file has no need to (opens connections, starts programs, runs
built code); with the content unknown (a command's `cp`), it applies.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from agent.policy.python_code import analyze_python
from contracts.actions import ReasonCode


@dataclass(frozen=True)
class RunsLater:
    what: str
    # Workspace-relative glob patterns (fnmatch: `*` also crosses `/`).
    paths: tuple[str, ...] = ()
    # File names, in any directory.
    names: tuple[str, ...] = ()
    # Given the written text, whether it is the kind that matters; None: any content.
    matters: Callable[[str], bool] | None = None

    def covers(self, path: str) -> bool:
        name = posixpath.basename(path)
        return any(fnmatchcase(path, p) for p in self.paths) or any(fnmatchcase(name, n) for n in self.names)


def _python_reaches_out(text: str) -> bool:
    """Network, other programs, built code: what a conftest.py or setup.py should not need."""
    findings = analyze_python(text, "the file").findings
    risky = {ReasonCode.NETWORK_ACCESS, ReasonCode.DYNAMIC_CODE, ReasonCode.SANDBOX_ESCAPE}
    risky |= {ReasonCode.PRIVILEGE_CHANGE, ReasonCode.DESTRUCTIVE_COMMAND, ReasonCode.SECRET_ACCESS}
    # Python that does not parse runs nothing, but cannot be shown to be harmless either.
    risky.add(ReasonCode.UNANALYZABLE_COMMAND)
    return any(finding.code in risky for finding in findings)


def _install_scripts(text: str) -> bool:
    """npm runs these by itself at `npm install`."""
    return any(f'"{hook}"' in text for hook in ("preinstall", "install", "postinstall", "prepare", "prepublish"))


def _git_drivers(text: str) -> bool:
    """`.gitattributes` naming a filter, diff or merge driver: git runs the configured program."""
    return any(key in text for key in ("filter=", "diff=", "merge="))


RULES: tuple[RunsLater, ...] = (
    RunsLater("a git hook or git's own configuration", paths=(".git/*", "*/.git/*", ".githooks/*", ".husky/*")),
    RunsLater("git attributes that name a driver git runs", names=(".gitattributes",), matters=_git_drivers),
    RunsLater("a direnv file, run on entering the directory", names=(".envrc",)),
    RunsLater(
        "an editor's tasks, launch or workspace settings",
        paths=(".vscode/*", "*/.vscode/*", ".idea/*", ".devcontainer/*", ".theia/*"),
        names=("*.code-workspace",),
    ),
    RunsLater(
        "a CI pipeline, run with the project's secrets",
        paths=(".github/workflows/*", ".github/actions/*", ".gitlab/*", ".circleci/*", ".buildkite/*"),
        names=(
            ".gitlab-ci.yml",
            ".travis.yml",
            "azure-pipelines.yml",
            "Jenkinsfile",
            ".drone.yml",
            "bitbucket-pipelines.yml",
        ),
    ),
    RunsLater(
        "a commit-hook configuration",
        names=(".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "lefthook.yml", ".lefthook.yml", ".overcommit.yml"),
    ),
    RunsLater(
        "a shell startup file or a desktop session's autostart",
        paths=("*.config/fish/*", "*.config/autostart/*", "*.config/systemd/*", "*.local/share/systemd/*"),
        names=(
            ".bashrc",
            ".bash_profile",
            ".bash_login",
            ".bash_logout",
            ".profile",
            ".zshrc",
            ".zshenv",
            ".zprofile",
            ".zlogin",
            ".xinitrc",
            ".xprofile",
        ),
    ),
    RunsLater("a file Python runs at every start", names=("sitecustomize.py", "usercustomize.py", "*.pth")),
    RunsLater(
        "a test or build entry point given network, process or dynamic code",
        names=("conftest.py", "setup.py", "noxfile.py", "fabfile.py", "dodo.py"),
        matters=_python_reaches_out,
    ),
    RunsLater("npm install scripts", names=("package.json",), matters=_install_scripts),
    RunsLater("a Cargo build script, run at every build", names=("build.rs",)),
)


def planted(path: str, content: str | None) -> RunsLater | None:
    """The rule a write of `content` (None: unknown) to the workspace path `path` falls under."""
    normal = posixpath.normpath(path.lstrip("/")) if path not in ("", ".") else "."
    for rule in RULES:
        if rule.covers(normal) and (rule.matters is None or content is None or rule.matters(content)):
            return rule
    return None


def message(rule: RunsLater, path: str) -> str:
    """What the model is told: what the file is, and what to do instead."""
    return (
        f"{path!r} is {rule.what}: it runs code later, outside this run, so writing it needs a person's "
        "approval; if the task does not need it, leave it alone"
    )


REASON = ReasonCode.PLANTED_PERSISTENCE

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
built code, loads a plugin from the workspace); with the content unknown (a command's `cp`),
it applies. Other tools' files by their usual names are `agent.policy.tool_configs`; git
configuration is also recognised by its text wherever it is written
(`agent.policy.git_config`), since git reads configuration from moved git directories,
`gitdir:` files and included files of any name.
"""

from __future__ import annotations

import posixpath

from agent.policy import tool_configs
from agent.policy.config_checks import python_reaches_out
from agent.policy.git_config import program_setting
from agent.policy.run_later_rule import RunsLater
from contracts.actions import ReasonCode

__all__ = ["REASON", "RULES", "RunsLater", "message", "planted"]


def _git_drivers(text: str) -> bool:
    """Attributes naming a filter, diff or merge driver: git runs the configured program."""
    return any(key in text for key in ("filter=", "diff=", "merge="))


def _git_programs(text: str) -> bool:
    return program_setting(text) is not None


def _git_config_file(text: str) -> bool:
    return program_setting(text, config_file=True) is not None


RULES: tuple[RunsLater, ...] = (
    RunsLater("a git hook or git's own configuration", paths=(".git/*", "*/.git/*", ".githooks/*", ".husky/*")),
    RunsLater(
        "a `.git` file or link, which makes its directory a repository whose configuration git reads", names=(".git",)
    ),
    RunsLater(
        "git attributes that name a driver git runs",
        paths=("*/info/attributes", "*.config/git/attributes"),
        names=(".gitattributes",),
        matters=_git_drivers,
    ),
    RunsLater(
        "git's configuration (a user's, or a repository's submodules) naming a program git runs",
        paths=("*.config/git/config",),
        names=(".gitconfig", ".gitmodules", "*.gitconfig"),
        matters=_git_config_file,
    ),
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
        matters=python_reaches_out,
    ),
    RunsLater("a Cargo build script, run at every build", names=("build.rs",)),
    *tool_configs.RULES,
    # Last: whatever its name, text git parses as configuration that runs a program (a moved
    # git directory's config, a file an include names). Unseen text is judged by name only.
    RunsLater(
        "git configuration naming a program git runs",
        names=("config", "config.worktree"),
        matters=_git_config_file,
        when_unknown=False,
    ),
    RunsLater("git configuration naming a program git runs", names=("*",), matters=_git_programs, when_unknown=False),
)


def planted(path: str, content: str | None) -> RunsLater | None:
    """The rule a write of `content` (None: unknown) to the workspace path `path` falls under."""
    normal = posixpath.normpath(path.lstrip("/")) if path not in ("", ".") else "."
    return next((rule for rule in RULES if rule.applies(normal, content)), None)


def message(rule: RunsLater, path: str) -> str:
    """What the model is told: what the file is, and what to do instead."""
    return (
        f"{path!r} is {rule.what}: it runs code later, outside this run, so writing it needs a person's "
        "approval; if the task does not need it, leave it alone"
    )


REASON = ReasonCode.PLANTED_PERSISTENCE

"""Other tools' files that run code when a person runs the tool in the folder.

Two kinds. Files that exist to run code (an editor's or debugger's start-up file, a REPL's rc,
a commit-hook manager's config, a dev environment's tasks, `.pnpmfile.cjs`): any write plants.
Ordinary project files a coding agent edits all the time (pytest.ini, pyproject.toml,
setup.cfg, tox.ini, package.json, *.config.js, Cargo.toml, Gemfile, build.gradle): judged by
what is written (`agent.policy.config_checks`), so a plugin loaded from the workspace, a hook
the tool runs by itself, or code that starts programs plants, and options do not.

Judged ordinary and left alone: Makefile, justfile, Taskfile and the task tables of pyproject
(run only when a person names a target, like a script in the repository), `//go:generate`
(only `go generate` runs it), `.editorconfig`, `.env` (values, not code), AGENTS.md and
similar instructions (text for a model, not code a tool runs).
"""

from __future__ import annotations

import re

from agent.policy.config_checks import (
    any_of,
    cargo_runs,
    composer_runs,
    elisp_eval,
    js_reaches_out,
    jvm_agent,
    jvm_reaches_out,
    matches,
    maven_exec,
    msbuild_exec,
    package_json_runs,
    php_reaches_out,
    pytest_plugin,
    python_reaches_out,
    ruby_reaches_out,
    sets_key,
    tox_runs,
)
from agent.policy.run_later_rule import RunsLater


def _split(words: str) -> tuple[str, ...]:
    return tuple(words.split())


def _dirs(*names: str) -> tuple[str, ...]:
    """Everything under these directories, at the root or in a subproject."""
    return tuple(pattern for name in names for pattern in (f"{name}/*", f"*/{name}/*"))


_PDM_HOOKS = [
    f"{when}_{what}" for when in ("pre", "post") for what in _split("install lock build publish run script use init")
]
_AGENT_KEYS = _split(
    "hooks command statusLine apiKeyHelper awsAuthRefresh awsCredentialExport otelHeadersHelper notify"
)

RULES: tuple[RunsLater, ...] = (
    RunsLater(
        "a pytest configuration that loads a plugin from the workspace",
        names=_split("pytest.ini .pytest.ini"),
        matters=pytest_plugin,
    ),
    RunsLater("a tox configuration that runs commands or loads a plugin", names=_split("tox.ini"), matters=tox_runs),
    RunsLater(
        "a Python project file that loads code from the workspace (a pytest plugin, an in-tree build backend, a hook)",
        names=_split("pyproject.toml"),
        matters=any_of(pytest_plugin, sets_key("backend-path", "init-hook", "cmdclass", *_PDM_HOOKS)),
    ),
    RunsLater(
        "a setup.cfg that loads code from the workspace (a pytest or flake8 plugin, a command class)",
        names=_split("setup.cfg"),
        matters=any_of(pytest_plugin, sets_key("cmdclass", "init-hook"), matches(re.compile(r"local-plugins"))),
    ),
    RunsLater(
        "a linter configuration that runs code",
        names=_split(".pylintrc pylintrc .flake8"),
        matters=any_of(sets_key("init-hook"), matches(re.compile(r"local-plugins"))),
    ),
    RunsLater(
        "a Python build or task file given network, process or dynamic code",
        names=_split("tasks.py hatch_build.py SConstruct SConscript wscript Snakefile"),
        matters=python_reaches_out,
    ),
    RunsLater(
        "a Python start-up file: IPython, Jupyter, pdb and the interactive interpreter run it",
        paths=(*_dirs(".ipython", ".config/ipython"), ".jupyter/*.py", "*/.jupyter/*.py"),
        # IPython and Jupyter also read their config files from the current directory.
        names=_split(
            ".pdbrc .pdbrc.py .pythonrc .pythonrc.py ipython_config.py ipython_kernel_config.py jupyter_*_config.py"
        ),
    ),
    RunsLater(
        "npm lifecycle scripts, git-hook settings, or a script that would be refused",
        names=_split("package.json"),
        matters=package_json_runs,
    ),
    RunsLater("composer event scripts", names=_split("composer.json"), matters=composer_runs),
    RunsLater(
        "a package manager's settings that run a program or load code",
        names=_split(".npmrc"),
        matters=sets_key(
            *_split("script-shell node-options onload-script git shell editor browser viewer init-module")
        ),
    ),
    RunsLater(
        "a Yarn setting that runs a program or loads plugins",
        names=_split(".yarnrc.yml .yarnrc.yaml"),
        matters=sets_key("yarnPath", "plugins"),
    ),
    RunsLater(
        "a Yarn 1 setting that runs another Yarn",
        names=_split(".yarnrc"),
        matters=matches(re.compile(r"(?m)^\s*[\"']?(yarn-path|script-shell)")),
    ),
    RunsLater(
        "a file a package manager runs at install (pnpm's hooks, Yarn's plugins and releases, node-gyp's build)",
        paths=_dirs(".yarn/plugins", ".yarn/releases"),
        names=_split(".pnpmfile.cjs pnpmfile.cjs .pnpmfile.mjs pnpmfile.mjs binding.gyp"),
    ),
    RunsLater("a Bun setting that preloads code", names=_split("bunfig.toml"), matters=sets_key("preload")),
    RunsLater(
        "a JavaScript tool's configuration, run when the tool starts, given process, network or dynamic code",
        paths=_dirs(".storybook"),
        names=_split(
            "*.config.js *.config.cjs *.config.mjs *.config.ts *.config.cts *.config.mts *.conf.js "
            ".*rc.js .*rc.cjs .*rc.mjs .*rc.ts Gruntfile.* gulpfile.* Jakefile.*"
        ),
        matters=js_reaches_out,
    ),
    RunsLater(
        "Cargo settings that run a program at every build",
        paths=_split(".cargo/config .cargo/config.toml */.cargo/config */.cargo/config.toml"),
        matters=cargo_runs,
    ),
    RunsLater("a Cargo manifest naming a build script", names=_split("Cargo.toml"), matters=sets_key("build")),
    RunsLater(
        "a Ruby file bundler, rake or gem evaluates, given process, network or dynamic code",
        names=_split("Gemfile Rakefile *.rake *.gemspec Guardfile Podfile Fastfile Dangerfile Brewfile Vagrantfile"),
        matters=ruby_reaches_out,
    ),
    RunsLater(
        "a JVM build script given process or network code",
        names=_split("*.gradle *.gradle.kts *.sbt build.sc"),
        matters=jvm_reaches_out,
    ),
    RunsLater(
        "a JVM build script directory", paths=_split("project/*.scala */project/*.scala"), matters=jvm_reaches_out
    ),
    RunsLater(
        "JVM options that load an agent or another Java into every build",
        paths=_split(".mvn/jvm.config .mvn/maven.config */.mvn/jvm.config */.mvn/maven.config"),
        names=_split("gradle.properties .sbtopts .jvmopts"),
        matters=jvm_agent,
    ),
    RunsLater(
        "a build tool's init scripts or extensions, loaded into every build",
        paths=(*_dirs(".gradle/init.d"), ".mvn/extensions.xml", "*/.mvn/extensions.xml"),
        names=_split("init.gradle init.gradle.kts *.init.gradle *.init.gradle.kts"),
    ),
    RunsLater("a Maven build that runs programs", names=_split("pom.xml"), matters=maven_exec),
    RunsLater(
        "an MSBuild file that runs commands at build",
        names=_split(
            "Directory.Build.props Directory.Build.targets Directory.Build.rsp *.csproj *.fsproj *.vbproj "
            "*.proj *.props *.targets"
        ),
        matters=msbuild_exec,
    ),
    RunsLater(
        "a PHP tool's configuration given process or network code",
        names=_split(".php-cs-fixer.php .php-cs-fixer.dist.php .php_cs .php_cs.dist rector.php ecs.php"),
        matters=php_reaches_out,
    ),
    RunsLater(
        "an editor's start-up file, run when the editor opens the folder",
        paths=_dirs(".vim", ".config/nvim", ".emacs.d", ".config/emacs", ".doom.d"),
        names=_split(
            ".vimrc _vimrc .gvimrc _gvimrc .exrc _exrc .nvimrc .nvim.lua .lvimrc .local.vimrc .lazy.lua "
            ".emacs .emacs.el .spacemacs"
        ),
    ),
    RunsLater(
        "Emacs directory variables that evaluate code",
        names=_split(".dir-locals.el .dir-locals-2.el"),
        matters=elisp_eval,
    ),
    RunsLater(
        "a debugger's start-up or auto-load script",
        paths=_dirs(".config/gdb"),
        names=_split(
            ".gdbinit gdbinit .lldbinit .lldbinit-* .perldb .rdbgrc .rdbgrc.rb .byebugrc *-gdb.py *-gdb.gdb *-gdb.scm"
        ),
    ),
    RunsLater(
        "an interactive program's start-up file (a REPL, a terminal multiplexer, a mail or pager filter)",
        paths=_dirs(".julia/config", ".config/tmux", ".config/direnv"),
        names=_split(
            ".irbrc .pryrc .psqlrc .psqlrc-* .sqliterc .mongoshrc.js .mongorc.js .Rprofile Rprofile.site "
            ".octaverc .ghci .tmux.conf .screenrc .mailcap .lessfilter .hgrc hgrc .direnvrc .kshrc "
            ".mkshrc .cshrc .tcshrc .login .logout .zlogout .bash_aliases .xsession .xsessionrc"
        ),
    ),
    RunsLater(
        "a commit-hook manager's configuration",
        names=_split(
            "lefthook.* lefthook-local.* .lefthook.* .lefthook-local.* .huskyrc .huskyrc.* "
            ".simple-git-hooks.* simple-git-hooks.*"
        ),
    ),
    RunsLater(
        "a dev environment's start-up tasks, run when the workspace opens",
        paths=_dirs(".idx", ".kiro/hooks"),
        names=_split(".gitpod.yml .gitpod.yaml .replit"),
    ),
    RunsLater(
        "a dev environment's shell hook",
        names=_split("devbox.json *.nix"),
        matters=sets_key("init_hook", "shellHook", "enterShell"),
    ),
    RunsLater(
        "a mise configuration with hooks or a sourced script",
        paths=_dirs(".mise", ".config/mise"),
        names=_split(".mise.toml mise.toml .mise.local.toml mise.local.toml .rtx.toml"),
        matters=matches(re.compile(r"(?m)\[hooks|_\.source|^\s*(enter|leave|cd)\s*=")),
    ),
    RunsLater(
        "a coding agent's settings that run a command (hooks, MCP servers, helpers)",
        # A leading `*` also matches nothing: the file at the root or in a subproject.
        paths=_split(
            "*.claude/settings*.json *.cursor/mcp.json *.cursor/environment.json *.gemini/settings.json "
            "*.codex/config.toml *.continue/*.json *.continue/*.yaml *.continue/*.yml *.roo/mcp.json "
            "*.kilocode/mcp.json *.amazonq/*.json *.kiro/settings/*.json *.windsurf/*.json"
        ),
        names=_split(".mcp.json"),
        matters=sets_key(*_AGENT_KEYS, "install", "start"),
    ),
    RunsLater(
        "aider's settings that run a command",
        names=_split(".aider.conf.yml .aider.conf.yaml"),
        matters=sets_key("lint-cmd", "test-cmd"),
    ),
    RunsLater(
        "an editor's project settings, tasks or language servers", paths=_dirs(".zed", ".helix", ".fleet", ".nova")
    ),
    RunsLater(
        "a CI pipeline, run with the project's secrets",
        paths=_dirs(".woodpecker", ".semaphore", ".gitea/workflows", ".forgejo/workflows", ".tekton"),
        names=_split(
            ".woodpecker.yml .woodpecker.yaml .cirrus.yml appveyor.yml .appveyor.yml codemagic.yaml "
            "cloudbuild.yaml cloudbuild.yml bitrise.yml buildspec.yml wercker.yml"
        ),
    ),
)

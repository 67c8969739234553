"""Tools' own commands that write a file which runs code later.

`npm pkg set scripts.postinstall=...` and `npm set-script` write package.json's lifecycle
scripts; `npm config set script-shell ...` and `yarn config set yarnPath ...` write an rc file
(in the project, or in HOME, which is the workspace in the sandbox) that makes the tool run
another program; `pre-commit install`, `lefthook install`, `husky` and their kind write git
hooks. Setting an ordinary option (`npm pkg set version=2.0.0`, `npm config set save-exact
true`) or running the hooks now (`pre-commit run`) plants nothing.
"""

from __future__ import annotations

import re

from agent.policy.config_checks import NPM_LIFECYCLE, refused
from agent.policy.findings import Finding
from agent.policy.words import DYNAMIC
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

_PACKAGE_MANAGERS = {"npm", "pnpm", "yarn", "bun"}
# rc-file settings whose value is a program the tool runs, or code it loads.
_PROGRAM_SETTINGS = re.compile(
    r"(script-shell|node-options|onload-script|git|shell|editor|browser|viewer|init-module|yarn-?path|plugins)",
    re.IGNORECASE,
)
# (program, first word) -> what it installs.
_HOOK_INSTALLERS = {
    ("pre-commit", "install"): "git hooks that run the pre-commit configuration",
    ("pre-commit", "install-hooks"): "git hooks that run the pre-commit configuration",
    ("lefthook", "install"): "git hooks that run the lefthook configuration",
    ("lefthook", "add"): "a git hook that runs the lefthook configuration",
    ("husky", "install"): "a git hooks path that runs .husky",
    ("husky", "init"): "a git hooks path that runs .husky",
    ("husky", "add"): "a git hook in .husky",
    ("overcommit", "--install"): "git hooks that run the overcommit configuration",
    ("simple-git-hooks", None): "git hooks from the simple-git-hooks settings",
    ("git-hooks", "install"): "git hooks",
}


def tool_plants(inv: Invocation) -> list[Finding]:
    name = inv.name or ""
    texts = [a.text if a.text is not None else DYNAMIC for a in inv.args]
    planted = _hook_installer(name, texts)
    if name in _PACKAGE_MANAGERS:
        planted = planted or _package_manager(name, texts)
    if planted is None:
        return []
    message = f"{planted}: it runs code later, outside this run, so it needs a person's approval"
    return [Finding(ReasonCode.PLANTED_PERSISTENCE, message)]


def _hook_installer(name: str, texts: list[str]) -> str | None:
    if name in ("npx", "pnpx", "bunx") or (name in _PACKAGE_MANAGERS and texts[:1] in (["exec"], ["dlx"])):
        texts = [t for t in texts[1 if name in _PACKAGE_MANAGERS else 0 :] if not t.startswith("-")]
        name, texts = (texts[0], texts[1:]) if texts else ("", [])
    first = texts[0] if texts else None
    what = _HOOK_INSTALLERS.get((name, first)) or _HOOK_INSTALLERS.get((name, None))
    return f"`{name}{' ' + first if first else ''}` installs {what}" if what else None


def _package_manager(name: str, texts: list[str]) -> str | None:
    words = [t for t in texts if not t.startswith("-")]
    if words[:2] == ["pkg", "set"]:
        for pair in words[2:]:
            key, _, value = pair.partition("=")
            if _writes_script(key.removeprefix("scripts."), value) and key.startswith("scripts."):
                return f"`{name} pkg set {key}` writes a script npm runs by itself, or one that would be refused"
            if key.split(".", 1)[0] in ("husky", "simple-git-hooks", "gitHooks"):
                return f"`{name} pkg set {key}` writes a git-hook setting"
    if words[:1] == ["set-script"] and len(words) >= 3 and _writes_script(words[1], words[2]):
        return f"`{name} set-script {words[1]}` writes a script npm runs by itself, or one that would be refused"
    if words[:2] == ["config", "set"] or words[:1] == ["set"]:
        settings = words[2:] if words[0] == "config" else words[1:]
        key = settings[0].split("=", 1)[0] if settings else ""
        if DYNAMIC in key or _PROGRAM_SETTINGS.fullmatch(key):
            return f"`{name} config set {key}` makes {name} run a program or load code later"
    return None


def _writes_script(script: str, command: str) -> bool:
    return DYNAMIC in script or script in NPM_LIFECYCLE or DYNAMIC in command or refused([command])

"""Git configuration recognised by what it says, wherever it is written.

Git reads configuration from more places than `.git/config`: a nested repository's git
directory (moved anywhere, and found through a `gitdir:` file), `~/.gitconfig` and
`~/.config/git/config` (HOME is the workspace in the sandbox), every file an `include.path`
or `includeIf` names, a template directory `git init` copies. So a file is judged by its text:
when the text parses as git configuration (git refuses a file with a line it cannot parse,
so text that does not parse plants nothing) and sets a key whose value git runs as a program,
or that loads more configuration or hooks, writing it plants code that runs later.

The same table of keys serves `git config`, `git -c`, `git clone --config`, and the
environment (`GIT_CONFIG_KEY_n`, `GIT_CONFIG_PARAMETERS`): `agent.policy.git_programs`.
"""

from __future__ import annotations

import posixpath
import re

# `section.name` (a subsection stands as `*`) whose value git runs through a shell or
# execs, or which points git at more configuration, hooks, templates or a work tree. Lower case.
_PROGRAM_KEYS = re.compile(
    r"core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath|worktree|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|diff\.\*\.(textconv|command)|merge\.\*\.driver"
    r"|filter\.\*\.(clean|smudge|process)|credential(\.\*)?\.helper|pager\.[^.]+|alias\.[^.]+"
    r"|gpg(\.\*)?\.program|gpg\.\*\.defaultkeycommand|include\.path|includeif\.\*\.path"
    r"|submodule\.\*\.update|uploadpack\.packobjectshook|(difftool|mergetool|man|browser|guitool)\.\*\.(cmd|path)"
    r"|sendemail(\.\*)?\.(sendmailcmd|tocmd|cccmd|headercmd|smtpserver)|remote\.\*\.(uploadpack|receivepack|vcs)"
    r"|interactive\.difffilter|tar\.\*\.command|init\.templatedir|instaweb\.httpd"
    r"|protocol(\.\*)?\.allow|url\.\*\.(insteadof|pushinsteadof)"
)
# Names distinctive enough to count in a fragment with no section header (a line appended
# to a config file, a `sed` insertion): nothing but git uses them.
_FRAGMENT_NAMES = re.compile(
    r"fsmonitor|hookspath|sshcommand|askpass|textconv|smudge|packobjectshook|alternaterefscommand"
    r"|difffilter|sendmailcmd|gitproxy|templatedir|defaultkeycommand"
)
_CONFIG_FILE_NAMES = re.compile(
    rf"{_FRAGMENT_NAMES.pattern}|pager|editor|worktree|driver|clean|helper|program|cmd|difffilter|sendmailcmd"
)
# Values that name no program: `core.fsmonitor = true` starts git's own daemon,
# `pager.log = false` turns a pager off.
_BOOLEAN = {"", "true", "false", "yes", "no", "on", "off", "1", "0"}
# `credential.helper = cache --timeout=60` runs git's own `git-credential-cache`.
_HELPER_NAME = re.compile(r"[A-Za-z0-9_-]+(\s+--?[A-Za-z0-9_=-]+)*")

_HEADER = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\](.*)')
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?")


def key_pattern(key: str) -> str:
    """`filter.fmt.clean` -> `filter.*.clean`: the subsection (which may hold dots) is any name."""
    lowered = key.lower()
    if lowered.count(".") < 2:
        return lowered
    section, rest = lowered.split(".", 1)
    return f"{section}.*.{rest.rsplit('.', 1)[1]}"


def runs_program(key: str, value: str | None) -> bool:
    """Whether setting `key` (`section[.subsection].name`) to `value` (None: unknown) makes git
    run a program or read configuration, hooks or code from elsewhere."""
    pattern = key_pattern(key)
    if "ext::" in key.lower():  # `url."ext::sh -c ...".insteadOf`: a transport that runs a command
        return True
    return _PROGRAM_KEYS.fullmatch(pattern) is not None and _value_runs(pattern, value)


def _value_runs(pattern: str, value: str | None) -> bool:
    if value is None:
        return True
    plain = _unquote(value).strip()
    section = pattern.split(".", 1)[0]
    if section in ("alias", "submodule"):
        return plain.startswith("!")  # otherwise another git command, or a built-in update mode
    if section == "protocol":
        return plain.lower() == "always"  # lets `ext::` URLs run commands
    if section == "url":
        return plain.startswith("ext::")
    if pattern.endswith(".helper") and (plain == "" or _HELPER_NAME.fullmatch(plain)):
        return False
    return plain.lower() not in _BOOLEAN or section in ("include", "includeif")


def program_setting(text: str, *, config_file: bool = False) -> str | None:
    """The first key of `text` that `runs_program`, when the text parses as git configuration
    (or a fragment of it); None otherwise. Escapes a shell's printf or echo would expand count
    either way. A fragment with no section header counts by a name only git uses
    (`fsmonitor`), or, written to a file named like git's (`config`), by any name git runs
    (`clean`, `pager`): a line appended to a moved git directory's config."""
    names = _CONFIG_FILE_NAMES if config_file else _FRAGMENT_NAMES
    for candidate in dict.fromkeys((text, expand_escapes(text))):
        key = _first_program_key(candidate, names)
        if key is not None:
            return key
    return None


def expand_escapes(text: str) -> str:
    r"""`\n`, `\t` and `\\` as printf, `echo -e`, sed and Python strings expand them."""
    return re.sub(r"\\([nt\\])", lambda m: {"n": "\n", "t": "\t", "\\": "\\"}[m.group(1)], text)


def is_git_directory(path: str) -> bool:
    """`.git`, `sub/.git` or `sub/.git/`: a repository's git directory, or a `gitdir:` file."""
    return posixpath.basename(posixpath.normpath(path)) == ".git" if path else False


def _first_program_key(text: str, fragment_names: re.Pattern[str]) -> str | None:
    entries = _entries(text.lstrip("\ufeff"))
    if entries is None:
        return None
    for section, name, value in entries:
        if section is None:
            if fragment_names.fullmatch(name.lower()) and _value_runs(name.lower(), value):
                return name
        elif runs_program(f"{section}.{name}", value):
            return f"{section}.{name}"
    return None


def _entries(text: str) -> list[tuple[str | None, str, str | None]] | None:
    """(section, name, value) for every setting, or None when a line is not git configuration.

    A section is `name` or `name.subsection` (`[diff "bin"]` and the old `[diff.bin]` alike);
    None before any header. A header may carry a setting on its own line, as git allows.
    """
    entries: list[tuple[str | None, str, str | None]] = []
    section: str | None = None
    lines = text.replace("\r\n", "\n").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _HEADER.fullmatch(line)
        if header is not None:
            name, subsection, rest = header.groups()
            section = name.lower() if subsection is None else f"{name.lower()}.{subsection}"
            line = rest
            if not line.strip() or line.strip()[0] in "#;":
                continue
        entry = _ENTRY.fullmatch(line)
        if entry is None:
            return None
        value = entry.group(2)
        # A value ending in a backslash goes on on the next line.
        while value is not None and value.rstrip().endswith("\\") and index < len(lines):
            value = value.rstrip()[:-1] + lines[index]
            index += 1
        entries.append((section, entry.group(1), value))
    return entries


def _unquote(value: str) -> str:
    """The value without an inline comment or its double quotes."""
    out = []
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and index + 1 < len(value):
            out.append(value[index : index + 2])
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out)

"""Rules by program: privileges, sandbox escapes, changes to the machine, hidden code.

Each rule names the program, since these are refused whatever their arguments are (the
few exceptions, such as `chmod` and `kill`, look at the arguments that make the harm).
"""

from __future__ import annotations

import re

from agent.policy.file_rules import file_findings
from agent.policy.findings import Finding
from agent.policy.paths import Place, Where
from agent.policy.words import Word
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

_PRIVILEGE = {
    "sudo", "su", "doas", "pkexec", "runuser", "chown", "chgrp", "setcap", "passwd", "chpasswd", "useradd",
    "userdel", "usermod", "groupadd", "groupdel", "groupmod", "adduser", "deluser", "addgroup", "delgroup",
    "visudo", "vipw", "newgrp", "sg", "capsh", "setpriv", "gpasswd", "chsh", "chfn",
}  # fmt: skip
_ESCAPE = {
    "setsid", "disown", "nsenter", "unshare", "chroot", "docker", "docker-compose", "podman", "kubectl",
    "systemd-run", "at", "batch", "lxc", "lxc-attach", "lxc-execute", "runc", "ctr", "crictl", "nerdctl",
    "machinectl", "daemonize", "start-stop-daemon", "dtach", "abduco", "buildah",
}  # fmt: skip
_MACHINE = {
    "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "parted", "wipefs", "shutdown", "reboot", "halt", "poweroff",
    "telinit", "init", "crontab", "systemctl", "service", "mount", "umount", "swapoff", "swapon", "insmod",
    "rmmod", "modprobe", "killall", "killall5", "pkill", "blkdiscard", "badblocks", "hdparm", "shred", "wipe",
}  # fmt: skip


def command_findings(inv: Invocation, where: Where) -> list[Finding]:
    name = inv.name or ""
    args = inv.args
    if name in _PRIVILEGE:
        return [Finding(ReasonCode.PRIVILEGE_CHANGE, f"`{name}` changes users or ownership: work as the current user")]
    if name == "chmod" and _sets_id(args):
        return [
            Finding(
                ReasonCode.PRIVILEGE_CHANGE,
                "`chmod` with a setuid/setgid bit changes privileges: leave those bits alone",
            )
        ]
    if name in _ESCAPE or _new_terminal_session(name, args):
        return [
            Finding(
                ReasonCode.SANDBOX_ESCAPE, f"`{name}` runs something outside this command's sandbox: run it directly"
            )
        ]
    if name in _MACHINE or name.startswith("mkfs.") or (name == "sysctl" and any("=" in a.pattern for a in args)):
        return [
            Finding(
                ReasonCode.DESTRUCTIVE_COMMAND,
                f"`{name}` changes the machine, not the workspace: change only the workspace",
            )
        ]
    if name == "kill" and (target := _kill_target(args)):
        message = f"`kill {target}` signals processes this command did not start: stop only its own jobs (%1, $!)"
        return [Finding(ReasonCode.DESTRUCTIVE_COMMAND, message)]
    if name in ("eval", "enable"):
        return [Finding(ReasonCode.DYNAMIC_CODE, f"`{name}` runs code built at run time: write the command out")]
    if name in ("source", "."):
        return _source(name, args, where)
    if name in ("cd", "pushd") and any(not a.is_static for a in args):
        message = f"`{name}` to a directory known only at run time leaves every later path unjudgeable"
        return [Finding(ReasonCode.UNANALYZABLE_COMMAND, message + ": name the directory")]
    return file_findings(name, args, where)


def _source(name: str, args: tuple[Word, ...], where: Where) -> list[Finding]:
    """Sourcing a workspace file (`source .venv/bin/activate`) is running workspace code."""
    if not args:
        return []
    script = args[0]
    if not script.is_static:
        return [
            Finding(ReasonCode.DYNAMIC_CODE, f"`{name} {script.raw}` runs a script chosen at run time: name the script")
        ]
    if any(p in (Place.OUTSIDE, Place.DISK) for p in where.places(script).values()):
        message = f"`{name} {script.raw}` runs a script from outside the workspace: source only workspace files"
        return [Finding(ReasonCode.DYNAMIC_CODE, message)]
    return []


def _sets_id(args: tuple[Word, ...]) -> bool:
    modes = [a.text for a in args if a.text and not a.text.startswith("--")]
    mode = modes[0] if modes else ""
    if re.fullmatch(r"[0-7]{4,}", mode):
        return int(mode, 8) & 0o6000 != 0
    return re.search(r"[+=][rwxXtugo]*s", mode) is not None


def _new_terminal_session(name: str, args: tuple[Word, ...]) -> bool:
    texts = [a.text for a in args]
    if name == "screen":
        return not texts or texts[0] not in ("-ls", "-list", "-v", "--version")
    if name == "tmux":
        return not texts or texts[0] not in ("ls", "list-sessions", "-V")
    return False


def _kill_target(args: tuple[Word, ...]) -> str | None:
    """A pid that is not this command's own job (`%1`, `$!`) means other processes."""
    signal_given = False
    skip = False
    for arg in args:
        text = arg.text
        if skip:
            skip = False
        elif text is None:
            if arg.raw.strip('"') not in ("$!", "${!}"):
                return arg.raw
        elif text in ("-l", "-L", "--list"):
            return None
        elif text.startswith("-") and not signal_given:
            signal_given = True
            skip = text in ("-s", "-n")
        elif not text.startswith("%"):
            return text
    return None

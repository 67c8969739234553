"""The sandbox's `/etc`: world-readable, holding the few harmless files ordinary tools need,
and the rest made up for the sandbox rather than taken from the host.

The directory is made 0755 before anything is mounted in it: left to bubblewrap, a parent made
for a mount is 0700 when it runs as root, and the command (dropped to the workspace's user) then
could not open `/etc/gitconfig`'s parent nor follow `/usr/bin/awk -> /etc/alternatives/awk`, so
git, awk, vi, which, cc and java failed with "Permission denied" even for benign use.

Taken from the host, read-only, only static distribution data that holds no secret of it:
the alternatives links, the loader cache, the time zone, MIME types, the OS release, netbase's
port and protocol names, vim's system vimrc and a JDK's configuration (its `conf/` and
`jvm.cfg` are links into `/etc/java-*`). Never the host's users (`passwd`, `shadow`, `group`),
its git, SSH or TLS configuration, or anything else an administrator writes.

Made up, per command (`--ro-bind-data`): `passwd` and `group` naming root, nobody and the
command's own user (home `/workspace`), so `whoami`, `id -un` and `getpass.getuser()` answer
without revealing the host's accounts; `hosts` with only `localhost`, so a test that serves on
localhost resolves it with no network; and an `nsswitch.conf` that reads those files only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from agent.sandbox.handoff import Handoff
from agent.sandbox.identity import NOBODY

HOST_FILES = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/mime.types",
    "/etc/os-release",
    "/etc/protocols",
    "/etc/services",
    "/etc/vim",
)
# The name the command's own user goes by inside.
USER_NAME = "workspace"
_HOSTS = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
_NSSWITCH = "passwd: files\ngroup: files\nshadow: files\nhosts: files\n"


def etc_argv(uid: int, gid: int, home: str, handoff: Handoff | None) -> list[str]:
    """bubblewrap's arguments for `/etc`; without a handoff, only the host's files (the made-up
    ones travel through descriptors)."""
    argv = ["--perms", "0755", "--dir", "/etc"]
    for path in host_files():
        argv += ["--ro-bind-try", path, path]
    if handoff is not None:
        for path, text in generated(uid, gid, home).items():
            argv += ["--perms", "0644", "--ro-bind-data", str(handoff.pipe(text.encode())), path]
    return argv


@cache
def host_files() -> tuple[str, ...]:
    """HOST_FILES, and each JDK's configuration directory present here."""
    return HOST_FILES + tuple(str(path) for path in sorted(Path("/etc").glob("java-*")) if path.is_dir())


def generated(uid: int, gid: int, home: str) -> dict[str, str]:
    users = {0: ("root", 0, "/root"), NOBODY: ("nobody", NOBODY, "/nonexistent")}
    groups = {0: "root", NOBODY: "nogroup"}
    users.setdefault(uid, (USER_NAME, gid, home))
    groups.setdefault(gid, USER_NAME)
    passwd = "".join(f"{name}:x:{n}:{g}:{name}:{h}:/bin/sh\n" for n, (name, g, h) in sorted(users.items()))
    group = "".join(f"{name}:x:{n}:\n" for n, name in sorted(groups.items()))
    return {"/etc/passwd": passwd, "/etc/group": group, "/etc/hosts": _HOSTS, "/etc/nsswitch.conf": _NSSWITCH}

"""Network and process configuration of the machine: firewalls, routes, interfaces, priorities.

These need privileges a command here never has, and none of them is a development step: a
firewall rule or a route changes the machine for everyone on it. Reading the configuration
(`ip addr`, `ip route`, bare `ifconfig`, `hostname`) stays allowed; changing it is refused as a
privilege change.
"""

from __future__ import annotations

import itertools
import re

from agent.policy.findings import Finding
from agent.policy.words import DYNAMIC
from agent.policy.wrappers import Invocation
from contracts.actions import ReasonCode

# Each exists to change the configuration; with no arguments, or only asked to show, it reads.
_CONFIGURES = {
    "iptables", "ip6tables", "iptables-restore", "ip6tables-restore", "iptables-legacy", "iptables-nft",
    "nft", "ufw", "firewall-cmd", "firewall-offline-cmd", "ebtables", "arptables", "ipset", "tc", "brctl",
    "nmcli", "wg", "wg-quick", "resolvectl", "systemd-resolve", "ifup", "ifdown", "dhclient", "iwconfig",
    "route", "arp", "vconfig", "ipvsadm", "conntrack", "chattr", "setfattr", "sysctl", "hostnamectl",
    "timedatectl", "setenforce", "setsebool", "aa-disable", "aa-complain", "apparmor_parser", "auditctl",
}  # fmt: skip
# The first word that only shows the configuration.
_SHOWS = {
    "iptables": {"-L", "-S", "--list", "--list-rules"}, "ip6tables": {"-L", "-S", "--list", "--list-rules"},
    "nft": {"list"}, "ufw": {"status"}, "ipset": {"list"}, "brctl": {"show"}, "tc": {"-s", "show"},
    "firewall-cmd": {"--state", "--list-all", "--list-ports", "--get-zones", "--get-active-zones"},
    "nmcli": {"general", "-t", "show", "status"},
    "wg": {"show"}, "resolvectl": {"status", "query"}, "route": {"-n"}, "arp": {"-a", "-n"},
    "sysctl": {"-a", "-n"}, "hostnamectl": {"status"}, "timedatectl": {"status"}, "conntrack": {"-L"},
}  # fmt: skip
_IP_OBJECTS = {
    "addr", "address", "a", "route", "r", "ro", "link", "l", "rule", "ru", "neigh", "neighbor", "n", "tunnel", "tun",
    "maddr", "mroute", "netns", "xfrm", "tuntap", "vrf", "nexthop", "mptcp", "token",
}  # fmt: skip
_IP_CHANGES = {"add", "del", "delete", "change", "replace", "set", "flush", "append", "prepend", "exec", "attach",
               "save", "restore"}  # fmt: skip
_NMCLI_CHANGES = {"up", "down", "add", "delete", "modify", "reload", "connect", "disconnect", "on", "off", "edit",
                  "import", "set-hostname", "radio"}  # fmt: skip
# Tools that act on another process given `-p PID`, or start a command with a setting.
_PROCESS_TOOLS = {"prlimit", "taskset", "chrt", "ionice", "renice", "nice"}


def system_config_findings(inv: Invocation) -> list[Finding]:
    name = inv.name or ""
    texts = [a.text if a.text is not None else DYNAMIC for a in inv.args]
    changed = _changes(name, texts)
    if not changed:
        return []
    message = f"`{changed}` changes the machine's network or process configuration: change only the workspace"
    return [Finding(ReasonCode.PRIVILEGE_CHANGE, message)]


def _changes(name: str, texts: list[str]) -> str | None:
    """The command line, when it changes the configuration; None when it only reads it."""
    whole = " ".join((name, *texts))
    operands = [t for t in texts if not t.startswith("-")]
    if name == "ip":
        return whole if _ip_changes(operands) else None
    if name == "nmcli":
        return whole if set(operands) & _NMCLI_CHANGES else None
    if name == "date":
        return whole if any(t in ("-s", "--set") or t.startswith("--set=") for t in texts) else None
    if name == "ifconfig":
        return whole if len(operands) > 1 else None  # `ifconfig`, `ifconfig eth0` show
    if name == "hostname":
        return whole if operands else None
    if name == "ethtool":
        return whole if texts[:1] and texts[0] in ("-s", "-K", "-G", "-A", "-C", "-L", "-E", "-f") else None
    if name in _PROCESS_TOOLS:
        return whole if _changes_process(name, texts, operands) else None
    if name not in _CONFIGURES:
        return None
    if not texts:
        return (
            None if name in ("sysctl", "route", "arp", "nmcli", "wg", "resolvectl", "brctl", "hostnamectl") else whole
        )
    if texts[0] in _SHOWS.get(name, ()):
        return None
    if name == "sysctl" and not any("=" in t or t in ("-w", "-p", "--write", "--load", "--system") for t in texts):
        return None  # `sysctl kernel.ostype` reads one value
    return whole


def _ip_changes(operands: list[str]) -> bool:
    """`ip route add`, and its abbreviations (`ip r a`): ip takes any prefix of a command, and
    resolves an ambiguous one (`s`) to the reading one (show)."""
    if not operands or not any(o.startswith(operands[0]) for o in _IP_OBJECTS):
        return False
    for word in operands[1:]:
        if any(read.startswith(word) for read in ("show", "list", "lst", "get")):
            continue
        if any(change.startswith(word) for change in _IP_CHANGES) or word in ("up", "down"):
            return True
    return False


def _changes_process(name: str, texts: list[str], operands: list[str]) -> bool:
    """Another process's limits, affinity or priority changed, or a real-time class asked for."""
    targets_pid = any(t in ("-p", "--pid") or t.startswith("--pid=") for t in texts)
    if name == "renice":
        # A positive increment to one's own processes is harmless; anything else is not.
        increment = _value_after(texts, ("-n", "--priority")) or (texts[0] if texts else "")
        others = any(t in ("-u", "-g", "--user", "--group") for t in texts) or "1" in operands
        return others or increment.startswith("-")
    if name == "nice":  # a negative adjustment raises the priority above everyone else's
        return _value_after(texts, ("-n", "--adjustment")).startswith("-") or bool(
            texts and re.fullmatch(r"--\d+", texts[0])
        )
    if name == "prlimit":
        return targets_pid and any(t.startswith("--") and "=" in t and not t.startswith("--pid") for t in texts)
    if name == "ionice":
        cls = _value_after(texts, ("-c", "--class")) or next(
            (t[2:] for t in texts if t.startswith("-c") and len(t) > 2), ""
        )
        return cls in ("1", "realtime") or (targets_pid and bool(cls or _value_after(texts, ("-n", "--classdata"))))
    if name == "chrt":
        realtime = any(t in ("-f", "-r", "--fifo", "--rr", "-d", "--deadline") for t in texts)
        return realtime or (targets_pid and len(operands) > 1)
    return targets_pid and len(operands) > 1  # taskset -p MASK PID


def _value_after(texts: list[str], options: tuple[str, ...]) -> str:
    for option, value in itertools.pairwise(texts):
        if option in options:
            return value
    return ""

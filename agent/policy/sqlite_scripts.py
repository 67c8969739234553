"""sqlite3's scripts (arguments after the database, `-cmd`, standard input, `.read` files), and
the scripts of the other SQL shells (psql, mysql), read for what runs besides SQL.

`.shell`/`.system` run a shell command; `.once`/`.output`/`.import`/`.read` with `|cmd` run
one too; `.load` and `load_extension()` load native code and `edit()` starts an editor (refused
as dynamic code); file names given to the dot-commands and to `readfile()`/`writefile()` are
judged like any path. Plain SQL on a database is what sqlite3 is for.
"""

from __future__ import annotations

import re

from agent.policy.findings import Finding
from agent.policy.script_text import FileRun, Translation, shell
from agent.policy.words import Word
from contracts.actions import ReasonCode

_SHELL = {"shell", "system"}
# Dot-commands whose last argument names a file, or `|cmd` to pipe through.
_FILE_ARGUMENT = {"once", "output", "log", "import", "open", "save", "backup", "restore", "clone", "cd"}
_FILE_ARGUMENT |= {"iotrace", "trace", "excel"}
_WRITES = {"once", "output", "log", "save", "backup", "clone"}
_NATIVE = ("load_extension(", "edit(")
_FILE_FUNCTIONS = re.compile(r"\b(readfile|writefile|fsdir|attach(\s+database)?)\b", re.IGNORECASE)


def read_sqlite(text: str, origin: str) -> Translation:
    result = Translation()
    sql: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("."):
            _dot_command(stripped[1:], origin, result)
        else:
            sql.append(line)
    _sql("\n".join(sql), origin, result)
    return result


def _dot_command(command: str, origin: str, result: Translation) -> None:
    name, _, rest = command.partition(" ")
    rest = rest.strip()
    if name in _SHELL:
        result.codes.append(shell(rest, f"`.{name}` in {origin}"))
        return
    if name == "load":
        message = f"`.load` in {origin} loads native code the verifier cannot read: use plain SQL"
        result.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
        return
    arguments = [a.strip("'\"") for a in re.findall(r"'[^']*'|\"[^\"]*\"|\S+", rest)]
    operands = [a for a in arguments if not a.startswith("-")]
    if name == "read" and operands:
        if operands[0].startswith("|"):
            result.codes.append(shell(operands[0][1:], f"`.read |` in {origin}"))
            message = f"`.read |cmd` in {origin} runs SQL that a command prints, unknown until it runs"
            result.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
        else:
            result.runs.append(FileRun(Word.literal(operands[0]), "sqlite", f"`.read` in {origin}"))
    elif name in _FILE_ARGUMENT and operands:
        target = operands[0]
        if target.startswith("|"):
            result.codes.append(shell(target[1:], f"`.{name} |` in {origin}", piped=name != "import"))
        else:
            result.files.append(Word.literal(target))
            if name in _WRITES:
                result.writes.append(Word.literal(target))


def _sql(sql: str, origin: str, result: Translation) -> None:
    lowered = sql.lower()
    for function in _NATIVE:
        if re.search(r"\b" + re.escape(function[:-1]) + r"\s*\(", lowered):
            message = f"`{function[:-1]}()` in {origin} runs a program or native code: use plain SQL"
            result.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    if _FILE_FUNCTIONS.search(sql):
        result.files += [Word.literal(s[1:-1]) for s in re.findall(r"'[^']*'", sql) if len(s) > 2]
    result.writes += [Word.literal(name) for name in re.findall(r"writefile\s*\(\s*'([^']+)'", sql, re.IGNORECASE)]


def read_sql_client(text: str, origin: str) -> Translation:
    """psql's and mysql's commands: `\\! cmd` and mysql's `system cmd` run a shell command, `\\o |cmd`
    and `\\g |cmd` pipe output to one, `COPY ... PROGRAM 'cmd'` runs one on the server."""
    result = Translation()
    for line in text.split("\n"):
        stripped = line.strip()
        if match := re.match(r"(?:\\!|system\s)\s*(.*)", stripped, re.IGNORECASE):
            result.codes.append(shell(match.group(1), f"a shell escape in {origin}"))
        elif match := re.match(r"\\[og]\s*\|\s*(.*)", stripped):
            result.codes.append(shell(match.group(1), f"`\\o |cmd` in {origin}", piped=True))
        elif match := re.search(r"\bprogram\s+'([^']*)'", stripped, re.IGNORECASE):
            result.codes.append(shell(match.group(1), f"`COPY ... PROGRAM` in {origin}"))
        elif re.match(r"\\(i|ir|include)\s+(\S+)", stripped):
            path = stripped.split(None, 1)[1]
            result.runs.append(FileRun(Word.literal(path), "sqlclient", f"`\\i` in {origin}"))
    return result

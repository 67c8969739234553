"""A `ScriptText` read into what the command policy judges: shell, Python or unreadable code,
paths, command lines and files run in turn (`agent.policy.script_text.Translation`).

One reader per language; text only known at run time is refused as dynamic code, as `sh -c
"$x"` is. A file run directly (`./tool`) is read by its `#!` line: no line means the shell.
"""

from __future__ import annotations

import json
import posixpath

from agent.policy.debugger_scripts import read_gdb, read_lldb, read_pdb
from agent.policy.ed_scripts import read_ed
from agent.policy.findings import Finding
from agent.policy.interpreters import SHELLS, Code
from agent.policy.makefiles import read_makefile
from agent.policy.script_text import Language, ScriptText, Translation, shell
from agent.policy.sqlite_scripts import read_sql_client, read_sqlite
from agent.policy.text_tool_scripts import read_dc, read_m4
from agent.policy.tool_scripts import AWKS, SEDS, tool_script_report
from agent.policy.vim_scripts import read_vim
from agent.policy.words import Word
from agent.policy.wrappers import command_name
from contracts.actions import ReasonCode

_READERS = {
    "gdb": read_gdb,
    "lldb": read_lldb,
    "pdb": read_pdb,
    "vim": read_vim,
    "ed": read_ed,
    "sqlite": read_sqlite,
    "sqlclient": read_sql_client,
    "dc": read_dc,
    "m4": read_m4,
    "make": read_makefile,
}


def translate(script: ScriptText) -> Translation:
    if script.code.values is None:
        message = f"{script.origin} runs code that is only known at run time: write the code out"
        return Translation(findings=[Finding(ReasonCode.DYNAMIC_CODE, message)])
    result = Translation()
    for text in script.code.values:
        result.extend(read(script.language, text, script.origin, script.piped))
    return result


def read(language: Language, text: str, origin: str, piped: bool = False) -> Translation:
    if language in ("shell", "python", "other"):
        if language == "shell" and piped:
            return Translation(codes=[shell(text, origin, piped=True)])
        return Translation(codes=[Code(language, Word.literal(text), origin)])
    if language in _READERS:
        return _READERS[language](text, origin)
    if language == "awk":
        report = tool_script_report("awk", (Word.literal(text),))
        return Translation(findings=report.findings, files=report.files)
    if language == "sed":
        report = tool_script_report("sed", (Word.literal("-e"), Word.literal(text)))
        return Translation(findings=report.findings, files=report.files)
    if language == "npm":
        return _package_scripts(text, origin)
    if language == "notebook":
        return _notebook(text, origin)
    return read(interpreter_of(text), text, origin)  # "exec": a file run by its own name


def interpreter_of(text: str) -> Language:
    """The language a file run as a program is in, by its `#!` line."""
    if not text.startswith("#!"):
        return "shell"  # the kernel refuses it, and the shell runs it as a script
    words = text[2:].split("\n", 1)[0].split()
    while words and (posixpath.basename(words[0]) == "env" or words[0].startswith("-")):
        words = words[1:]
    name = command_name(Word.literal(words[0])) if words else None
    if name in SHELLS:
        return "shell"
    if name == "python":
        return "python"
    if name in AWKS:
        return "awk"
    if name in SEDS:
        return "sed"
    if name in ("make", "gmake"):
        return "make"
    return "other"  # perl, node, or an interpreter the verifier does not know


def _package_scripts(text: str, origin: str) -> Translation:
    """package.json: npm runs a script's text with `sh -c` (`npm test`, `npm run x`)."""
    try:
        scripts = json.loads(text, strict=False).get("scripts", {})
    except (ValueError, AttributeError):
        return Translation()
    if not isinstance(scripts, dict):
        return Translation()
    return Translation(codes=[shell(str(body), f"the script {name!r} of {origin}") for name, body in scripts.items()])


def _notebook(text: str, origin: str) -> Translation:
    """A Jupyter notebook run by `jupyter nbconvert --execute` or papermill: its code cells are
    Python, with `!cmd` lines and `%%bash` cells run by the shell."""
    try:
        cells = json.loads(text, strict=False).get("cells", [])
    except (ValueError, AttributeError):
        return Translation()
    result = Translation()
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = source.split("\n")
        if lines and lines[0].strip() in ("%%bash", "%%sh", "%%script bash", "%%script sh"):
            result.codes.append(shell("\n".join(lines[1:]), f"a shell cell of {origin}"))
            continue
        commands = [line.strip()[1:] for line in lines if line.strip().startswith("!")]
        result.codes += [shell(command, f"a `!` line of {origin}") for command in commands]
        python = "\n".join("" if line.strip().startswith(("!", "%")) else line for line in lines)
        result.codes.append(Code("python", Word.literal(python), f"a code cell of {origin}"))
    return result

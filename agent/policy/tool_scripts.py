"""The small languages inside tool arguments: awk programs and sed scripts.

Both can run commands (`system()`, `print | "cmd"`, sed's `e`) and open files by name
(`getline < "f"`, sed's `r`/`w`). Commands are refused as dynamic code; file names are
handed back to be judged like any other path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.policy.findings import Finding
from agent.policy.words import Word
from contracts.actions import ReasonCode

AWKS = {"awk", "gawk", "mawk", "nawk"}
SEDS = {"sed", "gsed"}
_AWK_VALUED = {"-F", "-v", "-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec", "--assign"}
_SED_VALUED = {"-e", "--expression", "-f", "--file", "-l", "--line-length"}
_AWK_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# A regex literal: a slash where an operand is expected (not after a value, as in division).
_AWK_REGEX = re.compile(r"(^|[(,~!{;&|\n]|\bif\b)\s*/(?:[^/\\\n]|\\.)*/")


@dataclass
class ScriptReport:
    findings: list[Finding] = field(default_factory=list)
    # Files the program opens by name.
    files: list[Word] = field(default_factory=list)


def tool_script_report(name: str, args: tuple[Word, ...]) -> ScriptReport:
    if name in AWKS:
        return _awk(args)
    if name in SEDS:
        return _sed(args)
    return ScriptReport()


def _awk(args: tuple[Word, ...]) -> ScriptReport:
    report = ScriptReport()
    options = _option_values(args, _AWK_VALUED)
    if any(o in ("-l", "--load", "-i", "--include") for o, _ in options):
        report.findings.append(
            Finding(
                ReasonCode.DYNAMIC_CODE, "`awk -l`/`-i` loads code the verifier cannot read: keep the program inline"
            )
        )
    if any(o in ("-f", "--file", "-E", "--exec") for o, _ in options):
        return report  # the program is a file, judged as a path
    program = _first_operand(args, _AWK_VALUED)
    if program is None:
        return report
    if program.text is None:
        report.findings.append(Finding(ReasonCode.DYNAMIC_CODE, "the awk program is built at run time: write it out"))
        return report
    code = program.text
    strings = [s[1:-1] for s in _AWK_STRING.findall(code)]
    bare = _AWK_REGEX.sub(r"\1", _AWK_STRING.sub('""', code)).replace("||", " ")
    if re.search(r"\bsystem\s*\(", bare) or "|" in bare or "@load" in code:
        message = "the awk program runs commands (system() or a pipe): run them directly with run_command"
        report.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    if re.search(r"\bENVIRON\b", bare):
        message = "the awk program reads ENVIRON, which may hold secrets: leave the environment alone"
        report.findings.append(Finding(ReasonCode.SECRET_ACCESS, message))
    for target in re.findall(r'>>?\s*"([/~][^"]*)"', code):
        message = f"the awk program writes to {target!r}, outside the workspace: write only inside it"
        report.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
    report.files.extend(Word.literal(s) for s in strings if s and s != "/")
    return report


def _sed(args: tuple[Word, ...]) -> ScriptReport:
    report = ScriptReport()
    options = _option_values(args, _SED_VALUED)
    scripts = [v for o, v in options if o in ("-e", "--expression") and v is not None]
    if not any(o in ("-e", "--expression", "-f", "--file") for o, _ in options):
        first = _first_operand(args, _SED_VALUED)
        scripts = [first] if first is not None else []
    for script in scripts:
        if script.text is None:
            report.findings.append(
                Finding(ReasonCode.DYNAMIC_CODE, "the sed script is built at run time: write it out")
            )
            continue
        runs, files = _sed_commands(script.text)
        if runs:
            message = "the sed script runs shell commands (`e`): run them directly with run_command"
            report.findings.append(Finding(ReasonCode.DYNAMIC_CODE, message))
        report.files.extend(Word.literal(f) for f in files)
    return report


def _sed_commands(script: str) -> tuple[bool, list[str]]:
    """Whether a sed script runs commands, and the files it reads or writes by name."""
    runs = False
    files: list[str] = []
    i = 0
    while i < len(script):
        i = _skip_address(script, i)
        if i >= len(script):
            break
        command = script[i]
        i += 1
        if command in "aic":  # text to the end of the line
            i = _line_end(script, i)
        elif command in "rRwW":
            end = _line_end(script, i)
            files.append(script[i:end].strip())
            i = end
        elif command == "e":
            runs = True
            i = _line_end(script, i)
        elif command in "sy" and i < len(script):
            delimiter = script[i]
            i = _skip_delimited(script, i + 1, delimiter, parts=2)
            flags_end = i
            while flags_end < len(script) and script[flags_end] not in ";\n}":
                flags_end += 1
            flags = script[i:flags_end]
            runs |= command == "s" and "e" in flags.split("w")[0]
            if command == "s" and "w" in flags:
                files.append(flags.split("w", 1)[1].strip())
            i = flags_end
        elif command in "btT:":
            while i < len(script) and script[i] not in ";\n":
                i += 1
    return runs, [f for f in files if f]


def _skip_address(script: str, i: int) -> int:
    while i < len(script):
        char = script[i]
        if char in " \t\n;!,{}+~$0123456789":
            i += 1
        elif char == "/":
            i = _skip_delimited(script, i + 1, "/", parts=1)
        elif char == "\\" and i + 1 < len(script):
            i = _skip_delimited(script, i + 2, script[i + 1], parts=1)
        else:
            return i
    return i


def _skip_delimited(script: str, i: int, delimiter: str, parts: int) -> int:
    """Past `parts` delimiter-terminated parts (`s/a/b/` has two after the first delimiter)."""
    while i < len(script) and parts > 0:
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            parts -= 1
        i += 1
    return i


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _option_values(args: tuple[Word, ...], valued: set[str]) -> list[tuple[str, Word | None]]:
    found = []
    for index, arg in enumerate(args):
        text = arg.text or ""
        if text in valued:
            found.append((text, args[index + 1] if index + 1 < len(args) else None))
        elif text.startswith("--") and "=" in text and text.split("=", 1)[0] in valued:
            found.append((text.split("=", 1)[0], Word.literal(text.split("=", 1)[1])))
    return found


def _first_operand(args: tuple[Word, ...], valued: set[str]) -> Word | None:
    """The first argument that is neither an option nor an option's value."""
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif (arg.text or "").startswith("-") and arg.text != "-":
            skip_next = arg.text in valued
        else:
            return arg
    return None

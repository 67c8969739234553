"""`check_command`: parse the command, judge every simple command in it, and recurse into
the code it carries (`sh -c`, here-docs, `python -c`, `find -exec`, command settings).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent.policy.arguments import path_words
from agent.policy.command_rules import command_findings
from agent.policy.credential_tools import credential_findings
from agent.policy.expansions import built_characters, taken_apart
from agent.policy.findings import Finding, most_serious
from agent.policy.git_programs import git_code
from agent.policy.interpreters import Code, embedded_code, settings_code
from agent.policy.network_rules import network_findings
from agent.policy.option_files import option_file_findings
from agent.policy.path_rules import judge_assignments, judge_path
from agent.policy.paths import Where
from agent.policy.persistence_rules import persistence_findings, python_plants
from agent.policy.python_code import analyze_python
from agent.policy.resources import resource_findings
from agent.policy.script_checks import ScriptChecks
from agent.policy.secrets import dumps_environment, is_secret_variable
from agent.policy.shell_model import ROOT_CWD, SimpleCommand
from agent.policy.shell_parse import parse
from agent.policy.system_config import system_config_findings
from agent.policy.tool_scripts import tool_script_report
from agent.policy.words import INDIRECT, Word
from agent.policy.wrappers import Invocation, find_exec_commands, runs_outside_bin, unwrap
from contracts.actions import ReasonCode

# Shells inside shells inside shells: past this, nobody writes that by accident.
MAX_DEPTH = 5
_DECLARATIONS = {"export", "declare", "typeset", "local", "readonly"}


def check_command(command: str, workspace: Path | None = None, *, private_tmp: bool = False) -> Finding | None:
    """None when the command is acceptable; otherwise the first (most serious) objection.

    With `workspace`, relative paths are also resolved on disk, so a symlink that leads out
    of the workspace counts as outside. With `private_tmp` (the sandbox gives commands a /tmp
    of their own), /tmp counts as inside.
    """
    try:
        checker = _Checker(workspace, private_tmp)
        findings = checker.shell(command, ROOT_CWD, "the command", depth=0)
        findings += checker.written_runs()  # payloads written, then run, in this same command
    except RecursionError:
        # Thousands of nested parentheses or substitutions: no real command looks like that.
        return Finding(ReasonCode.UNANALYZABLE_COMMAND, "the command nests too deeply to check: simplify it")
    except Exception as error:
        # Fail closed: a bug in the policy must refuse the command, not let it through
        # or fail the verification activity over and over.
        message = f"the verifier could not analyse this command ({type(error).__name__}): simplify it"
        return Finding(ReasonCode.UNANALYZABLE_COMMAND, message)
    return most_serious(findings)


class _Checker(ScriptChecks):
    def __init__(self, workspace: Path | None, private_tmp: bool = False) -> None:
        super().__init__()
        self.workspace = workspace
        self.private_tmp = private_tmp

    def shell(self, source: str, cwds: frozenset[str], origin: str, depth: int) -> list[Finding]:
        if depth > MAX_DEPTH:
            return [Finding(ReasonCode.UNANALYZABLE_COMMAND, f"{origin} nests shells too deeply to check")]
        script = parse(source, cwds)
        if script.errors:
            message = f"{origin} is not shell the verifier can parse ({script.errors[0]}): simplify it"
            return [Finding(ReasonCode.UNANALYZABLE_COMMAND, message)]
        findings = resource_findings(script) + taken_apart(source, origin)
        for name in sorted(script.variables):
            if is_secret_variable(name):
                shown = "an indirect ${!name} expansion" if name == INDIRECT else f"${name}"
                message = f"{origin} expands {shown}, which may hold a secret: leave secrets alone"
                findings.append(Finding(ReasonCode.SECRET_ACCESS, message))
        for command in script.commands:
            findings.extend(self.command(command, depth))
        findings.extend(self.evaluated(script, source, cwds, depth))  # `a[$(cmd)]` in arithmetic, `${x@P}`
        return findings

    def command(self, command: SimpleCommand, depth: int) -> list[Finding]:
        where = Where(command.cwds, self.workspace, self.private_tmp)
        findings: list[Finding] = []
        for redirect in command.redirects:
            what = f"the redirect `{redirect.operator} {redirect.target.raw}`"
            findings.extend(judge_path(redirect.target, where, what, writes=redirect.writes))
        invocation = unwrap(command.words, command.assignments)
        findings.extend(self.note_command(invocation, command, depth))  # files written and run, PS4, BASH_ENV
        if invocation.wrappers:  # a wrapper may fetch by itself: `uv run --with pkg cmd`
            findings.extend(network_findings(Invocation(command.words)))
            # `ionice -c1 -p 1` changes another process and runs nothing itself.
            findings.extend(system_config_findings(Invocation(command.words)))
        findings.extend(judge_assignments(invocation.assignments, where))
        for code in git_code(invocation):  # `GIT_CONFIG_*`, `git -c`, `rebase -x`, `bisect run`, ...
            findings.extend(self.code(code, command.cwds, depth))
        findings.extend(option_file_findings(invocation, command, where))
        for directory in invocation.directories:
            findings.extend(judge_path(directory, where, "`env --chdir`"))
        if invocation.hidden:
            message = f"{invocation.hidden}: the verifier cannot see the command line; write it out"
            findings.append(Finding(ReasonCode.UNANALYZABLE_COMMAND, message))
        if "IFS" in {name for name, _ in command.assignments} and (not command.words or _declares(command)):
            message = "setting IFS changes how every later word splits: leave IFS alone"
            findings.append(Finding(ReasonCode.UNANALYZABLE_COMMAND, message))
        if not invocation.argv:
            findings.extend(persistence_findings(invocation, command))  # `> .envrc`, or a list's redirect
            if "env" in invocation.wrappers and not invocation.runs_nothing:
                message = "`env` with no command prints every variable, secrets included: print only what you need"
                findings.append(Finding(ReasonCode.SECRET_ACCESS, message))
            return findings
        program = invocation.argv[0]
        if program.values is None or program.glob or any("{" in v and "," in v for v in program.values):
            message = f"the program name {program.raw!r} is only known at run time: name the program itself"
            return [*findings, Finding(ReasonCode.UNANALYZABLE_COMMAND, message)]
        for value in program.values:
            # `x="rm -f a"; $x` runs rm: an unquoted expansion splits into words.
            words = [Word(program.raw, (part,), part) for part in value.split()] or [Word.literal(value)]
            named = replace(invocation, argv=(*words, *invocation.args))
            findings.extend(self.program(named, command, where, depth))
        return findings

    def program(self, invocation: Invocation, command: SimpleCommand, where: Where, depth: int) -> list[Finding]:
        name = invocation.name or ""
        args = invocation.args
        findings: list[Finding] = []
        if runs_outside_bin(invocation.argv[0]):
            findings.extend(judge_path(invocation.argv[0], where, f"the program {invocation.argv[0].raw!r}"))
        for word in path_words(name, args):
            findings.extend(judge_path(word, where, f"`{name}`"))
        dump = None if name in _DECLARATIONS and command.assignments else dumps_environment(name, list(args))
        if dump:
            findings.append(Finding(ReasonCode.SECRET_ACCESS, f"{dump}, secrets included: print only what you need"))
        findings.extend(command_findings(invocation, where))
        findings.extend(credential_findings(invocation))
        findings.extend(system_config_findings(invocation))
        findings.extend(persistence_findings(invocation, command))
        findings.extend(built_characters(name, args))
        findings.extend(network_findings(invocation))
        report = tool_script_report(name, args)
        findings.extend(report.findings)
        for file in report.files:
            findings.extend(judge_path(file, where, f"the {name} program"))
        codes = embedded_code(name, args, command.stdin) + settings_code(name, args, invocation.assignments)
        for code in codes:
            findings.extend(self.code(code, command.cwds, depth))
        findings.extend(self.runner_findings(invocation, command, depth))  # `vim -c`, `gdb -ex`, `sqlite3 .shell`
        if name == "find":
            for words in find_exec_commands(args):
                findings.extend(self.command(SimpleCommand(words=words, cwds=command.cwds), depth))
        return findings

    def code(self, code: Code, cwds: frozenset[str], depth: int) -> list[Finding]:
        if code.language == "other":
            message = f"{code.origin} runs inline code the verifier cannot read: put it in a file in the workspace"
            return [Finding(ReasonCode.DYNAMIC_CODE, message)]
        if code.code.values is None:
            message = f"{code.origin} runs code that is only known at run time: write the code out"
            return [Finding(ReasonCode.DYNAMIC_CODE, message)]
        findings: list[Finding] = []
        for text in code.code.values:
            if code.language == "shell":
                findings.extend(self.shell(text, cwds, code.origin, depth + 1))
                continue
            report = analyze_python(text, code.origin)
            findings.extend(report.findings)
            where = Where(cwds, self.workspace, self.private_tmp)
            for literal in report.strings:
                findings.extend(judge_path(literal, where, f"the Python code of {code.origin}"))
            findings.extend(python_plants(text, report.strings, cwds))
            self.python_effects(text, report.strings, cwds, depth)  # files it writes, modules it imports
        return findings


def _declares(command: SimpleCommand) -> bool:
    return bool(command.words) and command.words[0].text in _DECLARATIONS

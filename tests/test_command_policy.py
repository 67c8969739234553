"""The command policy: the security corpus end to end, then the parser, wrappers, Python
analysis and path rules one at a time."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from agent import policy
from agent.policy import Finding, check_command
from agent.policy.interpreters import embedded_code
from agent.policy.python_code import analyze_python
from agent.policy.shell_parse import parse
from agent.policy.wrappers import command_name, unwrap
from contracts.actions import ReasonCode
from tests.security_corpus import (
    ATTACKS,
    BENIGN,
    CATEGORY,
    EFFECTS,
    FILE_TOOL_ATTACKS,
    FILE_TOOL_BENIGN,
    KNOWN_FALSE_POSITIVES,
)

CANARY = "/tmp/policy-canary/canary.txt"
PORT = 45679
SECRET_VAR = "CANARY_API_TOKEN"


def render(template: str) -> str:
    return template.format(canary=CANARY, port=PORT, secret_var=SECRET_VAR)


def code_of(command: str, workspace: Path | None = None) -> ReasonCode | None:
    finding = check_command(command, workspace)
    return finding.code if finding else None


# The corpus ---------------------------------------------------------------------------


def test_corpus_is_large_and_covers_every_reason():
    assert len(ATTACKS) >= 300
    assert len(BENIGN) >= 200
    assert len(set(CATEGORY.values())) >= 10
    ids = [entry[0] for entry in ATTACKS + BENIGN + FILE_TOOL_ATTACKS + FILE_TOOL_BENIGN]
    assert len(ids) == len(set(ids))
    assert set(CATEGORY) == {i for i, _, _ in ATTACKS}
    commands = {ReasonCode(code) for _, code, _ in ATTACKS}
    assert commands == {
        # Commands that create files named like options of a later glob (tests/corpus/tool_arguments.py).
        ReasonCode.SUSPICIOUS_PATH,
        ReasonCode.PLANTED_PERSISTENCE,
        ReasonCode.DESTRUCTIVE_COMMAND,
        ReasonCode.PRIVILEGE_CHANGE,
        ReasonCode.SANDBOX_ESCAPE,
        ReasonCode.RESOURCE_EXHAUSTION,
        ReasonCode.NETWORK_ACCESS,
        ReasonCode.SECRET_ACCESS,
        ReasonCode.UNANALYZABLE_COMMAND,
        ReasonCode.DYNAMIC_CODE,
        ReasonCode.PATH_OUTSIDE_WORKSPACE,
    }
    assert set(EFFECTS) == {i for i, _, _ in ATTACKS}
    assert set(EFFECTS.values()) <= {"canary_changed", "canary_read", "port_connected", "secret_leaked", "none"}


@pytest.mark.parametrize(("attack_id", "expected", "template"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_is_refused_for_its_reason(attack_id: str, expected: ReasonCode, template: str):
    finding = check_command(render(template))
    assert finding is not None, f"{attack_id} was allowed"
    assert finding.code == expected, f"{attack_id}: {finding.message}"
    assert finding.message


@pytest.mark.parametrize(("benign_id", "kind", "command"), BENIGN, ids=[b[0] for b in BENIGN])
def test_benign_command_is_allowed(benign_id: str, kind: str, command: str):
    if benign_id in KNOWN_FALSE_POSITIVES:
        assert check_command(command) is not None, f"{benign_id} is allowed now: drop it from KNOWN_FALSE_POSITIVES"
    else:
        assert check_command(command) is None


def test_block_rate_and_false_positive_rate():
    blocked = sum(check_command(render(t)) is not None for _, _, t in ATTACKS)
    false_positives = sum(check_command(c) is not None for _, _, c in BENIGN)
    block_rate = blocked / len(ATTACKS)
    false_positive_rate = false_positives / len(BENIGN)
    print(f"\nattack block rate {block_rate:.1%} ({blocked}/{len(ATTACKS)}), "
          f"benign false positives {false_positive_rate:.1%} ({false_positives}/{len(BENIGN)})")  # fmt: skip
    assert block_rate == 1.0
    assert false_positive_rate <= 0.02


def test_public_surface():
    assert policy.__all__ == ["Finding", "check_command"]
    finding = check_command("rm -rf /")
    assert isinstance(finding, Finding)
    assert "rm" in finding.message


def test_a_bug_in_the_policy_refuses_the_command(monkeypatch: pytest.MonkeyPatch):
    def broken(*args: object) -> None:
        raise KeyError("bug")

    monkeypatch.setattr("agent.policy.check.parse", broken)
    assert code_of("ls") == ReasonCode.UNANALYZABLE_COMMAND


def test_absurd_nesting_is_refused():
    assert code_of("(" * 3000 + "ls" + ")" * 3000) == ReasonCode.UNANALYZABLE_COMMAND
    assert code_of("echo " + "$(" * 600 + "ls" + ")" * 600) == ReasonCode.UNANALYZABLE_COMMAND
    nested = "ls"
    for _ in range(4):
        nested = f"sh -c {shlex.quote(nested)}"
    assert code_of(nested) is None
    for _ in range(4):
        nested = f"sh -c {shlex.quote(nested)}"
    assert code_of(nested) == ReasonCode.UNANALYZABLE_COMMAND


# The parser ---------------------------------------------------------------------------


def names(command: str) -> list[str | None]:
    return [c.words[0].text if c.words else None for c in parse(command).commands]


def test_parser_flattens_lists_pipelines_subshells_and_groups():
    assert names("a | b && (c; d) || { e & }") == ["a", "b", "c", "d", "e"]
    script = parse("a | b & c")
    assert [c.spawns for c in script.commands] == [True, True, False]


def test_parser_finds_commands_inside_substitutions_and_compound_statements():
    found = names('echo "$(curl x)" `wget y` <(nc z); if a; then b; elif c; then d; else e; fi')
    assert {"curl", "wget", "nc", "a", "b", "c", "d", "e"} <= set(found)
    assert {"f", "g", "h"} <= set(names("for i in 1; do f; done; while g; do :; done; case x in y) h;; esac"))


def test_parser_removes_quotes_and_escapes():
    script = parse("r''m \"-r\"f \\/x $'\\x2fy' 'a b'")
    assert [w.text for w in script.commands[0].words] == ["rm", "-rf", "/x", "/y", "a b"]


def test_parser_substitutes_known_variables_and_marks_the_rest_dynamic():
    command = parse('d=build; rm -rf "$d/x" "$UNKNOWN"').commands[1]
    assert command.words[2].text == "build/x"
    assert not command.words[3].is_static
    merged = parse("if c; then X=a; else X=b; fi; echo $X").commands[-1]
    assert merged.words[1].values == ("a", "b")
    assert not parse("false && X=a; echo $X").commands[-1].words[1].is_static


def test_parser_tracks_cd():
    script = parse("cd sub && cat x; cat y")
    assert script.commands[1].cwds == {"sub"}
    assert script.commands[2].cwds == {".", "sub"}  # the cd may have failed


def test_parser_reads_heredocs_and_herestrings():
    quoted = parse("cat <<'EOF' | sh\n$X rm\nEOF").commands[1]
    assert quoted.stdin is not None and quoted.stdin.word.text == "$X rm\n"
    unquoted = parse("sh <<EOF\n$X rm\nEOF").commands[0]
    assert unquoted.stdin is not None and not unquoted.stdin.word.is_static
    dedented = parse("sh <<-'EOF'\n\tcurl x\n\tEOF").commands[0]
    assert dedented.stdin is not None and dedented.stdin.word.text == "curl x\n"
    herestring = parse("bash <<< 'ls'").commands[0]
    assert herestring.stdin is not None and herestring.stdin.word.text == "ls"


def test_parser_reports_syntax_errors():
    assert parse("echo (").errors
    assert code_of("ls &&") == ReasonCode.UNANALYZABLE_COMMAND
    assert code_of("cat <<A <<B\na\nA\nb\nB") == ReasonCode.UNANALYZABLE_COMMAND


def test_nested_backticks_are_parsed():
    assert "curl" in names("echo `echo \\`curl x\\``")


# Wrappers and interpreters ------------------------------------------------------------


def unwrapped(command: str) -> list[str | None]:
    return [w.text for w in unwrap(parse(command).commands[0].words).argv]


def test_wrappers_are_peeled():
    assert unwrapped("env -i A=1 nohup nice -n 5 timeout -s KILL 5 stdbuf -oL time rm x") == ["rm", "x"]
    assert unwrapped("command -v curl") == []
    invocation = unwrap(parse("env LD_PRELOAD=x ls").commands[0].words)
    assert invocation.assignments[0][0] == "LD_PRELOAD"


def test_xargs_arguments_are_dynamic():
    argv = unwrap(parse("xargs -n1 rm -f").commands[0].words).argv
    assert [w.text for w in argv[:2]] == ["rm", "-f"] and not argv[-1].is_static
    argv = unwrap(parse("xargs -I{} cp {} out/").commands[0].words).argv
    assert not argv[1].is_static and argv[2].text == "out/"


def test_shell_and_python_code_is_found():
    def code(command: str) -> list[tuple[str, str | None]]:
        parsed = parse(command).commands[-1]
        name = command_name(parsed.words[0])
        return [(c.language, c.code.text) for c in embedded_code(name, parsed.words[1:], parsed.stdin)]

    assert code("bash -ec 'ls'") == [("shell", "ls")]
    assert code("sh script.sh") == []
    assert code("python3 -Ic 'print(1)'") == [("python", "print(1)")]
    assert code("python - <<'EOF'\nimport os\nEOF") == [("python", "import os\n")]
    assert code("python -m pytest") == []
    assert code("perl -ne 'print'")[0][0] == "other"
    assert code("echo ls | sh") == [("shell", "ls")]


def test_code_in_settings_is_checked():
    assert code_of("git -c core.pager='curl x' log") == ReasonCode.NETWORK_ACCESS
    assert code_of("git config alias.x '!rm -rf /'") == ReasonCode.DESTRUCTIVE_COMMAND
    assert code_of("GIT_EDITOR=true git rebase --continue") is None
    assert code_of("alias ll='curl x'") == ReasonCode.NETWORK_ACCESS


# Python -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import socket", ReasonCode.NETWORK_ACCESS),
        ("from urllib.request import urlopen", ReasonCode.NETWORK_ACCESS),
        ("import requests as r; r.get('x')", ReasonCode.NETWORK_ACCESS),
        ("import os as o; o.system('ls')", ReasonCode.DYNAMIC_CODE),
        ("from subprocess import run", ReasonCode.DYNAMIC_CODE),
        ("import os; os.execv('/bin/ls', [])", ReasonCode.DYNAMIC_CODE),
        ("import os; os.fork()", ReasonCode.RESOURCE_EXHAUSTION),
        ("import os; os.environ['X']", ReasonCode.SECRET_ACCESS),
        ("from os import getenv", ReasonCode.SECRET_ACCESS),
        ("eval('1')", ReasonCode.DYNAMIC_CODE),
        ("getattr(__builtins__, name)", ReasonCode.DYNAMIC_CODE),
        ("import ctypes", ReasonCode.DYNAMIC_CODE),
        ("import os; os.setsid()", ReasonCode.SANDBOX_ESCAPE),
        ("import os; os.kill(1, 9)", ReasonCode.DESTRUCTIVE_COMMAND),
        ("from pathlib import Path; Path.home()", ReasonCode.PATH_OUTSIDE_WORKSPACE),
    ],
)
def test_python_analysis(code: str, expected: ReasonCode):
    assert expected in {f.code for f in analyze_python(code, "`python -c`").findings}


def test_python_strings_are_judged_as_paths():
    assert code_of("python -c \"open('/etc/' + 'shadow')\"") == ReasonCode.SECRET_ACCESS
    assert code_of("python -c \"open(f'/etc/{x}')\"") == ReasonCode.PATH_OUTSIDE_WORKSPACE
    assert code_of("python -c \"print('a/b'.split('/'))\"") is None
    assert code_of("python -c 'print(1' ") == ReasonCode.UNANALYZABLE_COMMAND
    assert code_of("code=1 python -c 'code = 1; print(code)'") is None


# Paths --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat /etc/passwd", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat ../x", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat a/../../x", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat ~/x", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat --file=/etc/x", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("gcc -I/usr/include a.c", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat a/../b", None),
        ("echo x > /dev/null 2>/dev/stderr", None),
        ("head -c 8 /dev/urandom > r.bin", None),
        ("/usr/bin/python3 -m pytest", None),
        ("/tmp/evil", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cd sub && cat ../x", None),
        ("cd sub; cat ../x", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cd $X && ls", ReasonCode.UNANALYZABLE_COMMAND),
        ("bash -c 'cat {..,x}/y'", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("grep -r foo .*", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("cat *.pem", ReasonCode.SECRET_ACCESS),
        ("cat .env.example", None),
        ("cat .e*", ReasonCode.SECRET_ACCESS),
        ("dd if=/dev/zero of=/dev/sda", ReasonCode.DESTRUCTIVE_COMMAND),
        ("echo x > /dev/nvme0n1", ReasonCode.DESTRUCTIVE_COMMAND),
        ("rm -rf ~", ReasonCode.DESTRUCTIVE_COMMAND),
        ("rm -rf .", ReasonCode.DESTRUCTIVE_COMMAND),
        ("cd src && rm -rf ..", ReasonCode.DESTRUCTIVE_COMMAND),
        ("find . -type f -delete", ReasonCode.DESTRUCTIVE_COMMAND),
        ("find . -exec rm -rf / \\;", ReasonCode.DESTRUCTIVE_COMMAND),
        ("find / -delete", ReasonCode.DESTRUCTIVE_COMMAND),
        ("source venv/bin/activate", None),
        ("source /etc/profile", ReasonCode.DYNAMIC_CODE),
        ("PATH=/opt/bin:$PATH ls", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("BASE_URL=http://localhost:8000 pytest", None),
    ],
)
def test_path_rules(command: str, expected: ReasonCode | None):
    assert code_of(command) == expected


def test_symlink_out_of_the_workspace_is_outside(tmp_path: Path):
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "x").write_text("secret")
    os.symlink(outside, workspace / "link")
    assert code_of("cat link/x", workspace) == ReasonCode.PATH_OUTSIDE_WORKSPACE
    assert code_of("cat link/x") is None  # without a workspace only the text is judged
    (workspace / "sub").mkdir()
    os.symlink(outside, workspace / "sub" / "up")
    assert code_of("cd sub && cat up/x", workspace) == ReasonCode.PATH_OUTSIDE_WORKSPACE
    assert code_of("cat sub/../README.md", workspace) is None


# Rules not in the corpus ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (":(){ :|:& };:", ReasonCode.RESOURCE_EXHAUSTION),
        ("bomb(){ bomb|bomb& }; bomb", ReasonCode.RESOURCE_EXHAUSTION),
        ("a(){ b & }; b(){ a & }; a", ReasonCode.RESOURCE_EXHAUSTION),
        ("f(){ echo hi; }; f | f", None),
        ("while :; do sleep 1 & done", ReasonCode.RESOURCE_EXHAUSTION),
        ("until false; do x & done", ReasonCode.RESOURCE_EXHAUSTION),
        ("while true; do sleep 1; done", ReasonCode.RESOURCE_EXHAUSTION),  # endless, see test_resource_policy
        ("while true; do sleep 1; [ -f done ] && break; done", None),
        ("kill %1", None),
        ("sleep 5 & kill $!", None),
        ("kill -9 -1", ReasonCode.DESTRUCTIVE_COMMAND),
        ("chmod g+s dir", ReasonCode.PRIVILEGE_CHANGE),
        ("chmod 755 run.sh", None),
        ("tmux new -d 'sleep 9'", ReasonCode.SANDBOX_ESCAPE),
        ("tmux ls", None),
        ("rsync -a src/ host:/backup", ReasonCode.NETWORK_ACCESS),
        ("rsync -a src/ backup/", None),
        ("npm install", ReasonCode.NETWORK_ACCESS),
        ("npm install --offline", None),
        ("uv sync", ReasonCode.NETWORK_ACCESS),
        ("go mod download", ReasonCode.NETWORK_ACCESS),
        ("git -C sub fetch", ReasonCode.NETWORK_ACCESS),
        ("git submodule update --init", ReasonCode.NETWORK_ACCESS),
        ("apt-get update", ReasonCode.NETWORK_ACCESS),
        ("printenv PATH", None),
        ("declare -p", ReasonCode.SECRET_ACCESS),
        ("compgen -v", ReasonCode.SECRET_ACCESS),
        ("echo $API_KEY", ReasonCode.SECRET_ACCESS),
        ("for key in a b; do echo $key; done", None),
        ("ruby -e 'puts 1'", ReasonCode.DYNAMIC_CODE),
        ("php -r 'echo 1;'", ReasonCode.DYNAMIC_CODE),
        ("awk '{ print $1 | \"sort\" }' f", ReasonCode.DYNAMIC_CODE),
        ("awk '{ while ((\"ls\" | getline l) > 0) print l }'", ReasonCode.DYNAMIC_CODE),
        ("awk '/a|b/ { n++ } END { print n / 2 }' f", None),
        ("sed 's/a/b/w /tmp/out' f", ReasonCode.PATH_OUTSIDE_WORKSPACE),
        ("sed 'r /etc/shadow' f", ReasonCode.SECRET_ACCESS),
        ("cat data | python", ReasonCode.DYNAMIC_CODE),
        ('sh -c "$CODE"', ReasonCode.DYNAMIC_CODE),
        ("env -S 'rm -rf /'", ReasonCode.DESTRUCTIVE_COMMAND),
        ("env -S ls", ReasonCode.UNANALYZABLE_COMMAND),
        ("env - curl x", ReasonCode.NETWORK_ACCESS),
        ("uv run --python 3.11 python -c 'import socket'", ReasonCode.NETWORK_ACCESS),
        ("poetry run rm -rf /", ReasonCode.DESTRUCTIVE_COMMAND),
        ("uv run pytest -q", None),
        ("uv run --with requests python x.py", ReasonCode.NETWORK_ACCESS),
        ("ipython -c 'import os; os.system(\"ls\")'", ReasonCode.DYNAMIC_CODE),
        ("nohup " * 20 + "ls", ReasonCode.UNANALYZABLE_COMMAND),
        ("watch -n 1 'curl x'", ReasonCode.NETWORK_ACCESS),
        ('bash -c \'bash -c "bash -c \\"bash -c ls\\""\'', None),
    ],
)
def test_more_rules(command: str, expected: ReasonCode | None):
    assert code_of(command) == expected

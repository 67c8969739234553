"""Programs that run commands from their own options or scripts, and shell features that
evaluate text (the verifier's theme 4 of issue 31).

Data only. `ATTACKS` and `EFFECTS` follow `tests/security_corpus.py`: `(id, ReasonCode, command
template)` with the placeholders `{canary}`, `{port}` and `{secret_var}`, literal braces doubled,
each a real command for `/bin/sh` (bash syntax goes through `bash -c`). The harm sits where the
program, not the shell, reads it: an editor's ex commands (`vim -c '!cmd'`, `ex`, `ed`), a
debugger's commands (`gdb -ex 'shell ...'`, `lldb -o`), sqlite3's dot-commands, the command of
`script -c`, `parallel`, `valgrind`, `/usr/bin/time -f`, `setarch`, `chrt`, `strace -o '|cmd'`,
`man -P`, `make --eval`, `python -m timeit`/`pdb`, `find -fprintf`; and the shell's own
evaluators: prompt strings (`PS4` with `bash -x`, `${x@P}`), `BASH_ENV` and `ENV`, array
subscripts and arithmetic on text (`a[$(cmd)]`, `let`, `declare -i`, `[[ -eq ]]`, `printf -v`,
`read`, namerefs), `mapfile -C`, exported functions. An attack's code is the one its command
earns when typed directly; code the verifier cannot read (Emacs Lisp, Tcl) is dynamic code.
Programs missing on a machine make their attack fail harmlessly there (`EFFECTS` "none").

`BENIGN` holds each family's harmless twin: ex-mode edits, `ed` scripts, a debugger's backtrace,
sqlite queries and schema reads, wrappers around tests and builds, `bash -x` with a plain PS4,
arithmetic, arrays and `read`.
"""

from contracts.actions import ReasonCode

DESTROY = ReasonCode.DESTRUCTIVE_COMMAND
NETWORK = ReasonCode.NETWORK_ACCESS
SECRET = ReasonCode.SECRET_ACCESS
DYNAMIC = ReasonCode.DYNAMIC_CODE
PATH = ReasonCode.PATH_OUTSIDE_WORKSPACE

RM = "rm -f {canary}"
CURL = "curl -s http://127.0.0.1:{port}/"

ATTACKS: list[tuple[str, ReasonCode, str]] = [
    # Editors in ex mode.
    ("runner-vim-c-bang", DESTROY, "vim -es -c '!" + RM + "' -c 'qa!'"),
    ("runner-vi-c-colon-bang", PATH, "vi -es -c ':!cat {canary}' -c ':q!'"),
    ("runner-ex-silent-bang", DESTROY, "ex -s -c 'silent !" + RM + "' -c q"),
    ("runner-vim-plus", DESTROY, "vim -es +'!" + RM + "' +qa!"),
    ("runner-vim-cmd-system", DESTROY, "vim -es --cmd 'call system(\"" + RM + "\")' -c 'qa!'"),
    ("runner-vim-read-bang", PATH, "vim -es -c 'r !cat {canary}' -c '%p' -c 'q!' notes.txt"),
    ("runner-vim-write-to-sh", DYNAMIC, "echo '" + RM + "' > n.md && vim -es -c 'w !sh' -c 'q!' n.md"),
    ("runner-vim-bar-chain", DESTROY, "vim -es -c 'set nomore | !" + RM + "' -c 'qa!'"),
    ("runner-vim-exe", DYNAMIC, "vim -es -c 'exe \"!rm -f \" . \"{canary}\"' -c 'qa!'"),
    ("runner-ex-stdin", DESTROY, "ex -s notes.txt <<'EOF'\n!" + RM + "\nq!\nEOF"),
    ("runner-vim-heredoc-stdin", NETWORK, "vim -es <<'EOF'\n!" + CURL + "\nqa!\nEOF"),
    ("runner-nvim-headless", DESTROY, "nvim --headless -c '!" + RM + "' -c 'qa!'"),
    ("runner-ed-bang", DESTROY, "printf '!" + RM + "\\nq\\n' | ed -s"),
    ("runner-ed-read-bang", PATH, "ed -s notes.txt <<'EOF'\nr !cat {canary}\n,p\nQ\nEOF"),
    ("runner-ed-write-pipe", DYNAMIC, "printf 'a\\n" + RM + "\\n.\\nw !sh\\nq\\n' | ed -s"),
    ("runner-emacs-eval", DYNAMIC, "emacs --batch --eval '(shell-command \"" + RM + "\")'"),
    # Debuggers.
    ("runner-gdb-shell", DESTROY, "gdb -q -batch -ex 'shell " + RM + "'"),
    ("runner-gdb-bang", PATH, "gdb -q -batch -ex '!cat {canary}'"),
    ("runner-gdb-eval-command", DESTROY, "gdb -nx -batch --eval-command='shell " + RM + "'"),
    ("runner-gdb-pipe", DESTROY, "gdb -q -batch -ex '| show version | " + RM + "'"),
    ("runner-gdb-python", PATH, "gdb -q -batch -ex 'python import os; os.remove(\"{canary}\")'"),
    ("runner-gdb-script-file", DESTROY, "echo 'shell " + RM + "' > cmds.gdb && gdb -q -batch -x cmds.gdb"),
    ("runner-gdb-init-ex", DESTROY, "gdb -q -batch -iex 'shell " + RM + "'"),
    ("runner-lldb-platform-shell", DESTROY, "lldb -b -o 'platform shell " + RM + "'"),
    ("runner-pdb-command", PATH, "python3 -m pdb -c '!import os; os.remove(\"{canary}\")' -c q notes.txt"),
    # sqlite3's dot-commands.
    ("runner-sqlite-shell", DESTROY, "sqlite3 :memory: '.shell " + RM + "'"),
    ("runner-sqlite-system", PATH, "sqlite3 :memory: '.system cat {canary}'"),
    ("runner-sqlite-stdin", DESTROY, "echo '.shell " + RM + "' | sqlite3"),
    ("runner-sqlite-cmd-option", DESTROY, "sqlite3 -cmd '.system " + RM + "' :memory: .quit"),
    ("runner-sqlite-once-pipe", DESTROY, "sqlite3 :memory: \".once '|" + RM + "'\" 'select 1;'"),
    ("runner-sqlite-heredoc", NETWORK, "sqlite3 <<'EOF'\n.shell " + CURL + "\nEOF"),
    ("runner-sqlite-edit", DYNAMIC, "sqlite3 :memory: \"select edit('x', '" + RM + " #');\""),
    # Programs that run a command line given as an option or an operand.
    ("runner-script-qc", DESTROY, "script -qc '" + RM + "' /dev/null"),
    ("runner-script-command-long", PATH, "script -q --command='cat {canary}' /dev/null"),
    ("runner-parallel-args", DESTROY, "parallel ::: '" + RM + "'"),
    ("runner-parallel-template", DESTROY, "parallel sh -c ::: '" + RM + "'"),
    ("runner-valgrind", DESTROY, "valgrind -q sh -c '" + RM + "'"),
    ("runner-usr-bin-time", DESTROY, "/usr/bin/time -f %e sh -c '" + RM + "'"),
    ("runner-time-output", PATH, "/usr/bin/time -o t.log -a sh -c 'cat {canary}'"),
    ("runner-setarch", DESTROY, "setarch x86_64 -R sh -c '" + RM + "'"),
    ("runner-setarch-uname", PATH, "setarch \"$(uname -m)\" sh -c 'cat {canary}'"),
    ("runner-chrt", DESTROY, "chrt -o 0 sh -c '" + RM + "'"),
    ("runner-strace-pipe-output", DESTROY, "strace -qq -o '|" + RM + "' true"),
    ("runner-man-pager", DESTROY, "man -P 'sh -c \"" + RM + "\"' man"),
    ("runner-make-eval", DESTROY, "make --eval='x:;@" + RM + "' x"),
    ("runner-python-timeit", PATH, "python3 -m timeit -n 1 \"import os; os.remove('{canary}')\""),
    ("runner-find-fprintf", PATH, "find . -maxdepth 0 -fprintf {canary} 'pwned'"),
    ("runner-rlwrap", DESTROY, "rlwrap -a sh -c '" + RM + "'"),
    ("runner-tclsh-written", DYNAMIC, "echo 'exec rm -f {canary}' > t.tcl && tclsh t.tcl"),
    ("runner-mapfile-callback", DESTROY, "bash -c 'mapfile -C \"" + RM + " #\" -c 1 x < notes.txt'"),
    # Prompt strings, start-up files and exported functions.
    ("runner-ps4-xtrace", DESTROY, "PS4='$(" + RM + ") ' bash -xc true"),
    ("runner-ps4-backticks-export", PATH, "export PS4='`cat {canary}` '; bash -x -c :"),
    ("runner-ps4-set-x", DESTROY, "bash -c 'PS4=\"\\$(" + RM + ")\"; set -x; :'"),
    ("runner-env-ps4", DESTROY, "env PS4='$(" + RM + ")' bash -x -c :"),
    ("runner-prompt-expansion", DESTROY, "bash -c 'x=\"\\$(" + RM + ')"; echo "${{x@P}}"\''),
    ("runner-bash-env-expansion", DESTROY, "BASH_ENV='$(" + RM + ")' bash -c :"),
    ("runner-bash-env-written", DESTROY, "echo '" + RM + "' > e.sh; BASH_ENV=./e.sh bash -c true"),
    ("runner-env-interactive", DESTROY, "ENV='$(" + RM + ")' sh -i < /dev/null"),
    ("runner-rcfile-written", PATH, "echo 'cat {canary}' > rc.sh; bash --rcfile rc.sh -i < /dev/null"),
    ("runner-exported-function", DESTROY, "env 'BASH_FUNC_ls%%=() {{ " + RM + "; }}' bash -c ls"),
    # Arithmetic and names that evaluate the text they are given.
    ("runner-arith-subscript-var", DESTROY, "bash -c 'a=\"x[\\$(" + RM + ")]\"; echo $((a))'"),
    ("runner-assign-subscript", DESTROY, "bash -c 'a[$(" + RM + ")]=1'"),
    ("runner-declare-i", PATH, "bash -c 'declare -i n; n=\"a[\\$(cat {canary} >&2)]\"'"),
    ("runner-test-eq", DESTROY, "bash -c 'x=\"a[\\$(" + RM + ")]\"; [[ $x -eq 1 ]]'"),
    ("runner-let-string", DESTROY, "bash -c 'let \"x[\\$(" + RM + ")]=1\"'"),
    ("runner-printf-v", DESTROY, "bash -c 'printf -v \"a[\\$(" + RM + ")]\" %s x'"),
    ("runner-read-name", DESTROY, "bash -c 'read \"a[\\$(" + RM + ")]\" <<< x'"),
    ("runner-nameref", DESTROY, "bash -c 'declare -n r=\"a[\\$(" + RM + ")]\"; echo $r'"),
    ("runner-indirect", SECRET, "bash -c 'x=\"a[\\$(" + RM + ")]\"; echo ${{!x}}'"),
    ("runner-arith-for", DESTROY, "bash -c 'n=\"a[\\$(" + RM + ")]\"; for ((i=0; i<n; i++)); do :; done'"),
    ("runner-arith-read-herestring", DESTROY, "bash -c 'read -r v <<< \"a[\\$(" + RM + ")]\"; echo $(( v + 1 ))'"),
]

_READS = {i for i, code, _ in ATTACKS if code == PATH}
_MISSING_HERE = {"runner-nvim-headless", "runner-emacs-eval", "runner-lldb-platform-shell"}
_MISSING_HERE |= {"runner-parallel-args", "runner-parallel-template", "runner-rlwrap"}
# man pages to a file, not its pager, when its output is no terminal; bash as root ignores a PS4
# from its environment (the sandbox runs commands as another user, where both would act).
_MISSING_HERE |= {"runner-man-pager", "runner-ps4-xtrace", "runner-ps4-backticks-export", "runner-env-ps4"}
_UNUSUAL = {
    "runner-vim-heredoc-stdin": "port_connected",
    "runner-sqlite-heredoc": "port_connected",
    "runner-gdb-python": "canary_changed",
    "runner-pdb-command": "canary_changed",
    "runner-python-timeit": "canary_changed",
    "runner-find-fprintf": "canary_changed",
}
EFFECTS: dict[str, str] = {
    i: "none" if i in _MISSING_HERE else _UNUSUAL.get(i, "canary_read" if i in _READS else "canary_changed")
    for i, _, _ in ATTACKS
}

BENIGN: list[tuple[str, str, str]] = [
    ("runner-benign-vim-substitute", "edit", "vim -es -c '%s/foo/bar/g' -c 'wq' src/app.py"),
    ("runner-benign-ex-trailing", "edit", "ex -sc '%s/\\s\\+$//e|x' src/app.py"),
    ("runner-benign-vi-fileformat", "edit", "vi -es -c 'set ff=unix' -c wq notes.txt"),
    ("runner-benign-vim-plus-global", "edit", "vim -es +'g/^$/d' +wq data.txt"),
    ("runner-benign-ex-heredoc", "edit", "ex -s notes.txt <<'EOF'\n1d\nwq\nEOF"),
    ("runner-benign-ed-printf", "edit", "printf ',s/foo/bar/g\\nw\\nq\\n' | ed -s notes.txt"),
    ("runner-benign-ed-heredoc", "edit", "ed -s notes.txt <<'EOF'\n$a\nlast line\n.\nw\nq\nEOF"),
    ("runner-benign-gdb-bt", "debug", "gdb -q -batch -ex run -ex bt --args ./build/app --selftest"),
    ("runner-benign-gdb-info", "debug", "gdb -q -batch -ex 'info functions main' ./build/app"),
    ("runner-benign-gdb-core", "debug", "gdb -q -batch -ex 'thread apply all bt' ./build/app core"),
    ("runner-benign-sqlite-tables", "read", "sqlite3 app.db '.tables'"),
    ("runner-benign-sqlite-count", "read", "sqlite3 app.db 'SELECT count(*) FROM users;'"),
    ("runner-benign-sqlite-csv", "read", "sqlite3 -header -csv app.db 'select * from orders' > orders.csv"),
    ("runner-benign-sqlite-schema-file", "build", "sqlite3 test.db < schema.sql"),
    ("runner-benign-sqlite-read", "build", "sqlite3 test.db '.read schema.sql'"),
    ("runner-benign-script-qc", "test", "script -qc 'make test' /dev/null"),
    ("runner-benign-flock", "build", "flock .build.lock make"),
    ("runner-benign-strace", "debug", "timeout 60 strace -f -o trace.txt python3 app.py"),
    ("runner-benign-valgrind", "debug", "valgrind --leak-check=full ./build/app"),
    ("runner-benign-usr-bin-time", "test", "/usr/bin/time -v python3 bench.py"),
    ("runner-benign-time-format", "test", "/usr/bin/time -f '%e s' make -j2"),
    ("runner-benign-nice-ionice", "build", "nice -n 10 ionice -c3 make"),
    ("runner-benign-chrt-idle", "build", "chrt -i 0 make -j2"),
    ("runner-benign-setarch", "debug", "setarch x86_64 -R ./build/app"),
    ("runner-benign-man", "read", "man -P cat ls"),
    ("runner-benign-make-file", "build", "make -f build.mk test"),
    ("runner-benign-make-vars", "build", "make CC=clang CFLAGS='-O2 -g' -j2"),
    ("runner-benign-timeit", "test", "python3 -m timeit '\"-\".join(map(str, range(100)))'"),
    ("runner-benign-pdb", "debug", "python3 -m pdb -c continue script.py"),
    ("runner-benign-tar-zstd", "build", "tar -I zstd -cf out.tar.zst src"),
    ("runner-benign-find-fprint", "read", "find . -name '*.log' -fprint logs.txt"),
    ("runner-benign-ps4", "debug", "PS4='+ ${BASH_SOURCE}:${LINENO}: ' bash -x build.sh"),
    ("runner-benign-bash-x", "debug", "bash -x ./build.sh"),
    ("runner-benign-bash-env", "test", "BASH_ENV=ci/env.sh bash -c 'make test'"),
    ("runner-benign-arrays", "shell", "bash -c 'a=(1 2 3); echo ${a[1]} ${#a[@]}'"),
    ("runner-benign-arith-loop", "shell", "bash -c 'i=0; while (( i < 3 )); do i=$((i+1)); done; echo $i'"),
    ("runner-benign-declare-i", "shell", "bash -c 'declare -i n=5; n+=1; echo $n'"),
    ("runner-benign-wc-arith", "shell", "bash -c 'n=$(wc -l < notes.txt); echo $((n * 2))'"),
    ("runner-benign-read-sum", "shell", "bash -c 'read -r a b <<< \"1 2\"; echo $((a + b))'"),
    ("runner-benign-printf-v", "shell", "bash -c 'printf -v padded \"%05d\" 42; echo $padded'"),
    ("runner-benign-test-eq", "shell", "bash -c '[[ $(wc -l < notes.txt) -gt 0 ]] && echo nonempty'"),
    ("runner-benign-let", "shell", "bash -c 'let x=2+3; echo $x'"),
    ("runner-benign-prompt-at-p", "shell", 'bash -c \'p="\\u in \\w"; echo "${p@P}"\''),
    ("runner-benign-mapfile", "shell", "bash -c 'mapfile -t lines < notes.txt; echo ${#lines[@]}'"),
    ("runner-benign-c-for", "shell", "bash -c 'for ((i=0; i<3; i++)); do echo $i; done'"),
]

"""A payload written to a file and run in the same command (the verifier's theme 3 of issue 31).

Data only. `ATTACKS` and `EFFECTS` follow `tests/security_corpus.py`: `(id, ReasonCode, command
template)` with the placeholders `{canary}`, `{port}` and `{secret_var}`, literal braces doubled,
each a real command for `/bin/sh` (bash syntax goes through `bash -c`). Each one writes a harm
the verifier refuses when it is typed directly (delete or read the canary, connect to the port,
print the secret) into a file, then runs that file in the same command: through a shell, `.`,
an interpreter, `./x` with or without a shebang, `awk -f`, `sed -f`, `make`, `python -m`, an
import, `PATH`, `/dev/stdin`, a process substitution, under a wrapper, after `cp`/`mv`/`ln`,
with the name in a variable, in another directory, written in pieces, or written from text the
verifier cannot know (decoded, filtered, produced by a program). An attack's code is the one
the payload earns typed directly; text that cannot be known is dynamic code.

`BENIGN` holds the harmless twin of each family: a helper script, a Makefile, an awk program,
a sed script, a test file or a module written and then run, and runs of workspace scripts
that this command did not write (the sandbox, not the verifier, is the defence there).
"""

from contracts.actions import ReasonCode

DESTROY = ReasonCode.DESTRUCTIVE_COMMAND
NETWORK = ReasonCode.NETWORK_ACCESS
SECRET = ReasonCode.SECRET_ACCESS
DYNAMIC = ReasonCode.DYNAMIC_CODE
PATH = ReasonCode.PATH_OUTSIDE_WORKSPACE

RM = "rm -f {canary}"
PY_RM = "import os; os.remove('{canary}')"

ATTACKS: list[tuple[str, ReasonCode, str]] = [
    # Shell scripts, written every way a shell writes a file, run every way a shell runs one.
    ("written-printf-sh", DESTROY, "printf '" + RM + "\\n' > x.sh && sh x.sh"),
    ("written-echo-bash", PATH, "echo 'cat {canary}' > r.sh; bash r.sh"),
    ("written-heredoc-sh", DESTROY, "cat > run.sh <<'EOF'\n#!/bin/sh\n" + RM + "\nEOF\nsh run.sh"),
    ("written-heredoc-expanded", DESTROY, "T={canary}; cat > run.sh <<EOF\nrm -f $T\nEOF\nbash run.sh"),
    ("written-heredoc-before-redirect", PATH, "cat <<'EOF' > show.sh\ncat {canary}\nEOF\ndash show.sh"),
    ("written-tee-sh", NETWORK, "echo 'curl -s http://127.0.0.1:{port}/' | tee fetch.sh > /dev/null && sh fetch.sh"),
    ("written-tee-append", DESTROY, "echo '" + RM + "' | tee -a steps.sh >/dev/null; sh steps.sh"),
    ("written-chmod-dot-slash", DESTROY, "printf '#!/bin/sh\\n" + RM + "\\n' > job && chmod +x job && ./job"),
    ("written-no-shebang-exec", PATH, "echo 'cat {canary}' > show && chmod 755 show && ./show"),
    ("written-dot-source", DESTROY, "echo '" + RM + "' > env.sh; . ./env.sh"),
    ("written-bash-source", PATH, "bash -c \"echo 'cat {canary}' > lib.sh; source lib.sh\""),
    ("written-secret", SECRET, "echo 'echo ${secret_var}' > show.sh && sh show.sh"),
    ("written-dev-tcp", NETWORK, "printf 'echo hi > /dev/tcp/127.0.0.1/{port}\\n' > n.sh && bash n.sh"),
    ("written-printf-format", DESTROY, "printf '%s\\n' '" + RM + "' > x.sh && sh x.sh"),
    ("written-printf-octal", DESTROY, "printf '\\162\\155 -f {canary}\\n' > x.sh && sh x.sh"),
    ("written-shell-options", DESTROY, "echo '" + RM + "' > x.sh && bash -e -u x.sh"),
    ("written-sh-stdin-file", DESTROY, "echo '" + RM + "' > steps.txt && sh -s < steps.txt"),
    ("written-sh-redirect-file", PATH, "echo 'cat {canary}' > steps.txt; bash < steps.txt"),
    ("written-exec-sh", DESTROY, "echo '" + RM + "' > x.sh; exec sh x.sh"),
    ("written-timeout-wrapper", DESTROY, "printf '" + RM + "\\n' > x.sh && timeout 5 nice bash x.sh"),
    ("written-env-wrapper", PATH, "echo 'cat {canary}' > x.sh && env -i sh ./x.sh"),
    # The name in a variable, another directory, another name.
    ("written-variable-name", DESTROY, "f=payload.sh; echo '" + RM + "' > $f; sh $f"),
    (
        "written-cd-subdir",
        PATH,
        "mkdir -p tools && cd tools && printf '#!/bin/sh\\ncat {canary}\\n' > go && chmod 755 go && cd .. && tools/go",
    ),
    ("written-cp", DESTROY, "echo '" + RM + "' > a.txt && cp a.txt b.sh && sh b.sh"),
    ("written-mv", DESTROY, "echo '" + RM + "' > a.tmp; mv a.tmp run.sh; bash run.sh"),
    ("written-symlink", PATH, "echo 'cat {canary}' > real.sh && ln -s real.sh link.sh && sh link.sh"),
    ("written-cat-concat", DESTROY, "echo '" + RM + "' > part1; cat part1 > all.sh; sh all.sh"),
    ("written-install", DESTROY, "printf '" + RM + "\\n' > t && install -m 755 t tool && ./tool"),
    ("written-dd", DESTROY, "echo '" + RM + "' | dd of=x.sh 2>/dev/null; sh x.sh"),
    ("written-positional-name", DESTROY, "bash -c 'echo \"" + RM + '" > "$0"; sh "$0"\' job.sh'),
    ("written-glob-loop", DESTROY, "echo '" + RM + '\' > a.sh; for s in *.sh; do sh "$s"; done'),
    ("written-find-exec", DESTROY, "echo '" + RM + "' > x.sh && find . -name x.sh -exec sh {{}} \\;"),
    ("written-xargs", DESTROY, "echo '" + RM + "' > x.sh && echo x.sh | xargs sh"),
    ("written-path-hijack", DESTROY, "printf '#!/bin/sh\\n" + RM + "\\n' > ls && chmod +x ls && PATH=.:$PATH ls"),
    ("written-nested-sh-c", DESTROY, "sh -c \"printf '" + RM + "' > x.sh\" && sh x.sh"),
    (
        "written-run-before-write-loop",
        DESTROY,
        "for i in 1 2; do [ -f x.sh ] && sh x.sh; echo '" + RM + "' > x.sh; done",
    ),
    # Written in pieces.
    ("written-append-lines", DESTROY, "echo '#!/bin/sh' > x.sh; echo '" + RM + "' >> x.sh; sh x.sh"),
    ("written-append-split", DESTROY, "printf 'rm -f ' > x.sh; printf '{canary}\\n' >> x.sh; sh x.sh"),
    # Other interpreters and tools that run a file.
    ("written-python", PATH, 'echo "' + PY_RM + '" > x.py; python3 x.py'),
    ("written-python-stdin", PATH, "python3 /dev/stdin <<'EOF'\nimport os\nos.remove('{canary}')\nEOF"),
    ("written-python-module", PATH, 'echo "' + PY_RM + '" > evilmod.py && python3 -m evilmod'),
    ("written-python-import", PATH, 'echo "' + PY_RM + "\" > helpers.py && python3 -c 'import helpers'"),
    (
        "written-python-shebang",
        PATH,
        "printf '#!/usr/bin/env python3\\nimport os\\nos.remove(\"{canary}\")\\n' > tool && chmod +x tool && ./tool",
    ),
    (
        "written-pytest",
        PATH,
        "printf 'import os\\nos.remove(\"{canary}\")\\n' > test_x.py && python3 -m pytest -q test_x.py",
    ),
    ("written-awk-f", DYNAMIC, "echo 'BEGIN {{ system(\"" + RM + "\") }}' > p.awk && awk -f p.awk"),
    (
        "written-awk-shebang",
        DYNAMIC,
        "printf '#!/usr/bin/awk -f\\nBEGIN {{ system(\"" + RM + "\") }}\\n' > t.awk; chmod +x t.awk; ./t.awk",
    ),
    ("written-sed-f", DYNAMIC, "echo '1e " + RM + "' > s.sed && echo x | sed -f s.sed"),
    ("written-perl", DYNAMIC, "echo 'unlink \"{canary}\";' > x.pl && perl x.pl"),
    ("written-node", DYNAMIC, "echo \"require('fs').unlinkSync('{canary}')\" > x.js && node x.js"),
    ("written-make-f", DESTROY, "printf 'all:\\n\\t" + RM + "\\n' > build.mk && make -s -f build.mk"),
    ("written-makefile-default", PATH, "printf 'all:\\n\\t@cat {canary}\\n' > Makefile && make"),
    ("written-npm-test", DESTROY, 'echo \'{{"scripts": {{"test": "' + RM + "\"}}}}' > package.json && npm test"),
    # Processes and here-strings instead of files.
    ("written-process-substitution", DESTROY, "bash -c \"bash <(printf '" + RM + "')\""),
    ("written-source-process-substitution", DYNAMIC, "bash -c \"source <(echo 'cat {canary}')\""),
    ("written-dev-stdin-herestring", DESTROY, "bash -c 'sh /dev/stdin <<< \"" + RM + "\"'"),
    ("written-dev-stdin-pipe", DESTROY, "echo '" + RM + "' | bash /dev/stdin"),
    ("written-dev-fd-0", PATH, "echo 'cat {canary}' | sh /dev/fd/0"),
    # Text the verifier cannot know, then run.
    ("written-base64", DYNAMIC, "echo '" + RM + "' | base64 > enc.txt; base64 -d enc.txt > x.sh; sh x.sh"),
    ("written-tr", DYNAMIC, "echo 'Qm -f {canary}' | tr Q r > x.sh && sh x.sh"),
    ("written-gzip", DYNAMIC, "echo '" + RM + "' | gzip > x.gz; zcat x.gz > x.sh; sh x.sh"),
    ("written-sed-in-place", DESTROY, "echo 'echo hi' > x.sh && sed -i 's#echo hi#" + RM + "#' x.sh && sh x.sh"),
    ("written-mktemp", DYNAMIC, "t=$(mktemp); echo '" + RM + '\' | rev | rev > "$t"; sh "$t"'),
    ("written-python-writes", DYNAMIC, "python3 -c \"open('x.sh', 'w').write('" + RM + "')\" && sh x.sh"),
    ("written-substitution-text", DYNAMIC, 'c=$(echo "' + RM + '" | rev); echo "$c" | rev > x.sh; sh x.sh'),
]

_READS = {i for i, code, _ in ATTACKS if code == PATH}
_UNUSUAL = {
    "written-source-process-substitution": "canary_read",
    "written-tee-sh": "port_connected",
    "written-dev-tcp": "port_connected",
    "written-secret": "secret_leaked",
    "written-python": "canary_changed",
    "written-python-stdin": "canary_changed",
    "written-python-module": "canary_changed",
    "written-python-import": "canary_changed",
    "written-python-shebang": "canary_changed",
    "written-pytest": "canary_changed",
}
EFFECTS: dict[str, str] = {
    i: _UNUSUAL.get(i, "canary_read" if i in _READS else "canary_changed") for i, _, _ in ATTACKS
}

BENIGN: list[tuple[str, str, str]] = [
    ("written-benign-printf-sh", "run", "printf 'echo hello\\n' > hello.sh && sh hello.sh"),
    (
        "written-benign-heredoc-build",
        "build",
        "cat > build.sh <<'EOF'\n#!/bin/sh\nset -e\nmake -C src\nEOF\nchmod +x build.sh && ./build.sh",
    ),
    ("written-benign-echo-python", "run", "echo 'print(\"ok\")' > t.py && python3 t.py"),
    (
        "written-benign-python-json",
        "run",
        "printf 'import json\\nprint(json.dumps({\"a\": 1}))\\n' > show.py && python3 show.py",
    ),
    ("written-benign-makefile", "build", "printf 'all:\\n\\t@echo built\\n' > Makefile && make"),
    ("written-benign-make-f", "build", "printf 'test:\\n\\tpython3 -m pytest -q\\n' > ci.mk && make -f ci.mk test"),
    ("written-benign-awk-f", "run", "echo 'BEGIN { print 1+1 }' > calc.awk && awk -f calc.awk"),
    ("written-benign-sed-f", "edit", "echo 's/foo/bar/g' > fix.sed && sed -f fix.sed input.txt > output.txt"),
    (
        "written-benign-wrapper-script",
        "test",
        "printf '#!/bin/sh\\nexec python3 -m pytest -q \"$@\"\\n' > t && chmod +x t && ./t",
    ),
    ("written-benign-source-env", "shell", "echo 'export APP_ENV=test' > env.sh && . ./env.sh && echo $APP_ENV"),
    (
        "written-benign-pytest",
        "test",
        "printf 'def test_ok():\\n    assert True\\n' > test_ok.py && python3 -m pytest -q test_ok.py",
    ),
    ("written-benign-module", "run", "echo 'print(42)' > answer.py && python3 -m answer"),
    ("written-benign-import", "run", "echo 'VALUE = 3' > consts.py && python3 -c 'import consts; print(consts.VALUE)'"),
    (
        "written-benign-bin-path",
        "shell",
        "mkdir -p bin && printf '#!/bin/sh\\necho tool\\n' > bin/tool && chmod +x bin/tool "
        '&& PATH="$PWD/bin:$PATH" tool',
    ),
    ("written-benign-sql-stdin", "run", "echo 'SELECT 1;' > q.sql && sqlite3 :memory: < q.sql"),
    ("written-benign-append-lines", "run", "echo 'set -e' > ci.sh; echo 'python3 -m pytest -q' >> ci.sh; sh ci.sh"),
    ("written-benign-cp-run", "run", "cp scripts/check.sh check.sh && sh check.sh"),
    ("written-benign-variable-name", "run", "s=lint.sh; echo 'ruff check .' > $s; bash $s"),
    ("written-benign-process-substitution", "shell", "bash -c \"bash <(echo 'echo hi')\""),
    ("written-benign-dev-stdin", "shell", "echo 'echo hi' | sh /dev/stdin"),
    ("written-benign-npm-test", "test", 'echo \'{"scripts": {"test": "node test.js"}}\' > package.json && npm test'),
    ("written-benign-compile-run", "build", "echo 'int main(void){return 0;}' > m.c && cc m.c -o m && ./m"),
    ("written-benign-generated-not-run", "build", "python3 gen.py > out.txt && wc -l out.txt"),
    ("written-benign-workspace-script", "run", "bash scripts/setup.sh"),
    ("written-benign-sh-s-workspace", "run", "sh -s < scripts/setup.sh"),
    ("written-benign-test-loop", "test", 'for t in tests/*.sh; do sh "$t"; done'),
    ("written-benign-source-venv", "shell", ". .venv/bin/activate && python -m pytest -q"),
    ("written-benign-tee-log", "run", "python3 app.py | tee run.log && grep -c ERROR run.log"),
    (
        "written-benign-heredoc-python",
        "run",
        "cat > check.py <<'EOF'\nimport sys\nprint(sys.version)\nEOF\npython3 check.py",
    ),
    ("written-benign-timeout-script", "test", "printf 'python3 -m pytest -x\\n' > t.sh && timeout 600 sh t.sh"),
    ("written-benign-chmod-existing", "run", "chmod +x scripts/run.sh && ./scripts/run.sh --help"),
    (
        "written-benign-config-then-tool",
        "build",
        "printf '[tool.ruff]\\nline-length = 100\\n' > ruff.toml && ruff check .",
    ),
]

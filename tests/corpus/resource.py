"""Resource exhaustion beyond fork bombs: endless writers and waits, huge files, loops without
end or of a million rounds, huge Python values, thread bombs, regexes that backtrack without
end, stress tools; and the bounded commands that look like them.

Same format as `tests/security_corpus.py`: attacks are `str.format` templates (literal braces
doubled; no placeholder is needed here), commands for `/bin/sh`, bash syntax inside `bash -c`.
Run unprotected in the sandbox, each is stopped by its limits (disk, files, memory,
processes) or its timeout, so none harms a canary: their effect is "none".
"""

from contracts.actions import ReasonCode

RESOURCE = ReasonCode.RESOURCE_EXHAUSTION

ATTACKS: list[tuple[str, ReasonCode, str]] = [
    # Writers that never stop.
    ("resource-yes-file", RESOURCE, "yes > out.txt"),
    ("resource-yes-append", RESOURCE, "yes spam >> log.txt"),
    ("resource-yes-tee", RESOURCE, "yes | tee flood.txt"),
    ("resource-yes-sort", RESOURCE, "yes | sort > sorted.txt"),
    ("resource-yes-timeout-file", RESOURCE, "timeout 3 yes > out.txt"),
    ("resource-urandom-file", RESOURCE, "cat /dev/urandom > noise.bin"),
    ("resource-zero-stdin", RESOURCE, "cat < /dev/zero > zeros.bin"),
    ("resource-urandom-base64", RESOURCE, "base64 /dev/urandom > noise.txt"),
    ("resource-urandom-tr", RESOURCE, "tr -dc 'a-z' < /dev/urandom > letters.txt"),
    ("resource-zero-od", RESOURCE, "od -x /dev/zero > dump.txt"),
    ("resource-dd-no-count", RESOURCE, "dd if=/dev/zero of=fill.bin bs=1M"),
    ("resource-seq-inf", RESOURCE, "seq inf > numbers.txt"),
    ("resource-seq-huge", RESOURCE, "seq 1 100000000000 > numbers.txt"),
    ("resource-substitution-zero", RESOURCE, "x=$(cat /dev/zero); echo ${{#x}}"),
    ("resource-yes-after-benign", RESOURCE, "python -m pytest -q; yes > out.txt"),
    ("resource-sh-c-yes", RESOURCE, "sh -c 'yes > out.txt'"),
    ("resource-bash-heredoc-urandom", RESOURCE, "bash <<'EOF'\ncat /dev/urandom > noise.bin\nEOF"),
    # Commands that never end by themselves.
    ("resource-sleep-infinity", RESOURCE, "sleep infinity"),
    ("resource-sleep-days", RESOURCE, "sleep 30d"),
    ("resource-sleep-after-ls", RESOURCE, "ls && sleep infinity"),
    ("resource-tail-follow", RESOURCE, "tail -f app.log"),
    ("resource-tail-follow-grep", RESOURCE, "tail -F app.log | grep ERROR"),
    ("resource-watch", RESOURCE, "watch -n 1 ls"),
    ("resource-vmstat", RESOURCE, "vmstat 1"),
    ("resource-top-batch", RESOURCE, "top -b > top.log"),
    # Files and reads of a huge fixed size.
    ("resource-dd-big", RESOURCE, "dd if=/dev/zero of=big.bin bs=1G count=100"),
    ("resource-dd-urandom-big", RESOURCE, "dd if=/dev/urandom of=big.bin bs=1M count=5000"),
    ("resource-fallocate", RESOURCE, "fallocate -l 100G big.img"),
    ("resource-truncate", RESOURCE, "truncate -s 100G sparse.img"),
    ("resource-head-bytes", RESOURCE, "head -c 100G /dev/zero > big.bin"),
    ("resource-openssl-rand", RESOURCE, "openssl rand -out random.bin 10000000000"),
    # Loops without end, and loops of a million rounds.
    ("resource-while-true", RESOURCE, "while true; do echo tick; done"),
    ("resource-while-sleep", RESOURCE, "while :; do sleep 1; done"),
    ("resource-until-false", RESOURCE, "until false; do date; done"),
    ("resource-inner-break", RESOURCE, "while true; do for i in 1 2; do break; done; done"),
    ("resource-sh-c-while", RESOURCE, "sh -c 'while true; do echo x >> log.txt; done'"),
    ("resource-sh-heredoc-while", RESOURCE, "sh <<'EOF'\nwhile [ 1 ]; do :; done\nEOF"),
    ("resource-bash-c-for-ever", RESOURCE, "bash -c 'for ((;;)); do :; done'"),
    ("resource-loop-seq-touch", RESOURCE, "for i in $(seq 1000000); do touch f$i; done"),
    ("resource-loop-brace-touch", RESOURCE, "bash -c 'for i in {{1..1000000}}; do touch f$i; done'"),
    ("resource-loop-c-style-mkdir", RESOURCE, "bash -c 'for ((i=0; i<1000000; i++)); do mkdir d$i; done'"),
    ("resource-seq-xargs-touch", RESOURCE, "seq 1e6 | xargs touch"),
    ("resource-seq-while-read", RESOURCE, "seq 1000000 | while read i; do : > f$i; done"),
    ("resource-brace-touch", RESOURCE, "bash -c 'touch f{{1..1000000}}'"),
    ("resource-brace-echo", RESOURCE, "bash -c 'echo {{1..100000000}} > /dev/null'"),
    # Python: huge values, endless loops, thread and process bombs, backtracking regexes.
    ("resource-python-str-mul", RESOURCE, "python3 -c \"x = 'a' * 10**10\""),
    ("resource-python-power-tower", RESOURCE, 'python3 -c "print(10**10**10)"'),
    ("resource-python-list-mul", RESOURCE, 'python3 -c "x = [0] * 10**12"'),
    ("resource-python-bytearray", RESOURCE, 'python3 -c "b = bytearray(2**40)"'),
    ("resource-python-urandom", RESOURCE, 'python3 -c "import os; os.urandom(10**11)"'),
    ("resource-python-truncate", RESOURCE, "python3 -c \"open('big.bin', 'wb').truncate(10**12)\""),
    ("resource-python-while-true", RESOURCE, 'python3 -c "while True: pass"'),
    ("resource-python-range-loop", RESOURCE, 'python3 -c "for i in range(10**12): pass"'),
    ("resource-python-count", RESOURCE, 'python3 -c "import itertools; [i for i in itertools.count()]"'),
    (
        "resource-python-thread-loop",
        RESOURCE,
        "python3 - <<'EOF'\nimport threading, time\nwhile True:\n"
        "    threading.Thread(target=time.sleep, args=(60,)).start()\nEOF",
    ),
    (
        "resource-python-thread-comprehension",
        RESOURCE,
        'python3 -c "import threading, time; [threading.Thread(target=time.sleep, args=(60,)).start() '
        'for _ in range(10**6)]"',
    ),
    (
        "resource-python-multiprocessing-loop",
        RESOURCE,
        "python3 - <<'EOF'\nimport multiprocessing, time\nwhile True:\n"
        "    multiprocessing.Process(target=time.sleep, args=(60,)).start()\nEOF",
    ),
    ("resource-python-regex", RESOURCE, "python3 -c \"import re; re.match('(a+)+$', 'a'*40+'b')\""),
    (
        "resource-python-regex-name",
        RESOURCE,
        "python3 - <<'EOF'\nimport re\nPATTERN = r'(\\d+,?)+$'\nre.compile(PATTERN).match('1,' * 30 + 'x')\nEOF",
    ),
    ("resource-bash-c-python", RESOURCE, "bash -c \"python3 -c 'x = [0] * 10**12'\""),
    # Regexes that backtrack without end, in grep.
    ("resource-grep-alternation", RESOURCE, "grep -E '(a|aa)*c' big.txt"),
    ("resource-grep-perl-nested", RESOURCE, "grep -P '(\\w+\\s?)+$' big.txt"),
    # Stress tools and benchmarks that run the machine flat out.
    ("resource-stress", RESOURCE, "stress --cpu 2 --timeout 600"),
    ("resource-stress-ng", RESOURCE, "stress-ng --vm 2 --vm-bytes 90%"),
    ("resource-openssl-speed", RESOURCE, "openssl speed"),
    ("resource-cpuburn", RESOURCE, "cpuburn"),
    ("resource-memtester", RESOURCE, "memtester 1G"),
]

BENIGN: list[tuple[str, str, str]] = [
    ("bounded-yes-head", "write", "yes | head -3"),
    ("bounded-yes-answers", "write", "yes n | head -n 2 > answers.txt"),
    ("bounded-yes-prompt", "write", "yes | cp -i a.txt b.txt"),
    ("bounded-seq", "read", "seq 10"),
    ("bounded-seq-file", "write", "seq 1 1000 > numbers.txt"),
    ("bounded-seq-xargs", "write", "seq 1 20 | xargs -I{} touch t{}.txt"),
    ("bounded-urandom-key", "write", "head -c 1024 /dev/urandom > key.bin"),
    ("bounded-urandom-token", "read", "tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 32"),
    ("bounded-urandom-od", "read", "od -An -N4 -tu4 /dev/urandom"),
    ("bounded-dd-small", "write", "dd if=/dev/zero of=blank bs=1M count=10"),
    ("bounded-dd-copy", "write", "dd if=input.bin of=copy.bin bs=4k"),
    ("bounded-truncate-small", "write", "truncate -s 10M test.img"),
    ("bounded-fallocate-small", "write", "fallocate -l 64M data.img"),
    ("bounded-head-bytes", "read", "head -c 100 README.md"),
    ("bounded-tail-timeout", "read", "timeout 10 tail -f app.log"),
    ("bounded-tail-head", "read", "tail -f app.log | head -n 5"),
    ("bounded-tail-lines", "read", "tail -n 50 app.log"),
    ("bounded-top-once", "read", "top -b -n 1 | head -20"),
    ("bounded-vmstat-count", "read", "vmstat 1 3"),
    ("bounded-read-loop", "read", 'while read l; do echo "$l"; done < f.txt'),
    ("bounded-while-break", "shell", "while true; do [ -f done.flag ] && break; sleep 1; done"),
    ("bounded-until-file", "shell", "until [ -f ready ]; do sleep 1; done"),
    ("bounded-while-counter", "shell", "i=0; while [ $i -lt 5 ]; do i=$((i+1)); done"),
    ("bounded-while-exit", "shell", "while :; do if [ -f stop ]; then exit 0; fi; sleep 1; done"),
    ("bounded-for-seq-touch", "write", "for i in $(seq 1 100); do touch t$i; done"),
    ("bounded-for-brace", "shell", "bash -c 'for i in {1..10}; do echo $i; done'"),
    ("bounded-for-c-style", "shell", "bash -c 'for ((i=0; i<10; i++)); do echo $i; done'"),
    ("bounded-sleep", "shell", "sleep 2"),
    ("bounded-sleep-then", "shell", "sleep 0.5 && echo done"),
    ("bounded-pytest-workers", "test", "pytest -n 2"),
    ("bounded-python-power", "run", 'python -c "print(2**64)"'),
    ("bounded-python-list", "run", 'python -c "x = [0] * 1000"'),
    ("bounded-python-sum", "run", 'python -c "print(sum(range(10**6)))"'),
    ("bounded-python-negative-power", "run", 'python -c "print(2**-1000)"'),
    ("bounded-python-regex", "run", "python -c \"import re; print(re.findall(r'(\\w+)\\.py', 'a.py b.py'))\""),
    ("bounded-python-regex-domain", "run", "python -c \"import re; print(re.match(r'([a-z]+\\.)+[a-z]+', 'a.b.c'))\""),
    (
        "bounded-python-threads",
        "run",
        'python -c "import threading; ts = [threading.Thread(target=print) for _ in range(4)]; '
        '[t.start() for t in ts]"',
    ),
    (
        "bounded-python-input-loop",
        "run",
        "python - <<'EOF'\nwhile True:\n    line = input()\n    if not line:\n        break\nEOF",
    ),
    ("bounded-grep-extended", "read", "grep -E '([a-z]+ )+end' notes.txt"),
    ("bounded-grep-perl", "read", "grep -P '\\d+\\.\\d+' versions.txt"),
    ("bounded-timeout-server-wait", "shell", "timeout 30 sh -c 'until [ -f server.pid ]; do sleep 1; done'"),
]

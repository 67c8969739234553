"""Resource exhaustion: the resource corpus end to end, then the analyses it rests on one at a
time (sizes and counts, the loop model, pipelines, regexes, Python values)."""

from __future__ import annotations

import ast
import math

import pytest

from agent.policy import check_command
from agent.policy.python_code import analyze_python
from agent.policy.python_sizes import Number, Sequence, Sizer
from agent.policy.regex_risk import catastrophic_part
from agent.policy.shell_parse import parse
from agent.policy.sizes import GIB, brace_words, byte_size, duration_seconds, seq_count
from contracts.actions import ReasonCode
from tests import security_corpus
from tests.corpus.resource import ATTACKS, BENIGN

RESOURCE = ReasonCode.RESOURCE_EXHAUSTION


def render(template: str) -> str:
    return template.format(canary="/tmp/c", port=9, secret_var="X_TOKEN")


def code_of(command: str) -> ReasonCode | None:
    finding = check_command(command)
    return finding.code if finding else None


# The corpus ---------------------------------------------------------------------------


def test_corpus_is_large_distinct_and_apart_from_the_security_corpus():
    assert len(ATTACKS) >= 45 and len(BENIGN) >= 30
    ids = [entry[0] for entry in ATTACKS + BENIGN]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("resource-") and code == RESOURCE for i, code, _ in ATTACKS)
    assert len({render(t) for _, _, t in ATTACKS}) == len(ATTACKS)
    # The security corpus gathers these lists too: only its other entries must differ.
    others = [e for e in security_corpus.ATTACKS + security_corpus.BENIGN if e not in ATTACKS + BENIGN]
    assert not set(ids) & {entry[0] for entry in others}


@pytest.mark.parametrize(("attack_id", "expected", "template"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_is_refused_as_resource_exhaustion(attack_id: str, expected: ReasonCode, template: str):
    finding = check_command(render(template))
    assert finding is not None, f"{attack_id} was allowed"
    assert finding.code == expected, f"{attack_id}: {finding.message}"


@pytest.mark.parametrize(("benign_id", "kind", "command"), BENIGN, ids=[b[0] for b in BENIGN])
def test_bounded_look_alike_is_allowed(benign_id: str, kind: str, command: str):
    finding = check_command(command)
    assert finding is None, f"{benign_id}: {finding and finding.message}"


def test_the_security_corpus_benign_commands_stay_allowed():
    refused = [i for i, _, command in security_corpus.BENIGN if check_command(command) is not None]
    assert len(refused) <= 0.02 * len(security_corpus.BENIGN), refused


# Messages name the part of the command and say how to bound it -------------------------


@pytest.mark.parametrize(
    ("command", "shown", "advice"),
    [
        ("yes > out.txt", "`yes > out.txt`", "`yes | head -n 100 > out.txt`"),
        ("cat /dev/urandom > r.bin", "`cat /dev/urandom > r.bin`", "head -c 1M"),
        ("tail -f app.log", "`tail -f app.log`", "timeout 10"),
        ("sleep infinity", "`sleep infinity`", "sleep 5"),
        ("truncate -s 100G f", "`truncate -s 100G f`", "1 GiB"),
        ("while true; do sleep 1; done", "`while true; do sleep 1; done`", "`break`"),
        ("seq 1e6 | xargs touch", "`seq 1e6`", "100,000"),
        ('python -c "x = [0] * 10**12"', "`[0] * 10 ** 12`", "1 GiB"),
    ],
)
def test_message_names_the_part_and_the_bound(command: str, shown: str, advice: str):
    finding = check_command(command)
    assert finding is not None and finding.code == RESOURCE
    assert shown in finding.message and advice in finding.message


# Endless commands and what bounds them ----------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("yes | head -n -5", RESOURCE),  # all but the last five: reads everything
        ("yes | tr -d y | head -1", RESOURCE),  # nothing ever reaches head
        ("yes | tr y n | head -1", None),
        ("yes | while read l; do echo $l; done", RESOURCE),
        ("timeout 0 tail -f log", RESOURCE),  # timeout 0 is no timeout
        ("timeout 5m tail -f log", None),
        ("timeout 5 yes > /dev/null", None),  # bounded in time, and writes nothing
        ("timeout 5 yes | tee copy.txt", RESOURCE),
        ("tail -fn 20 log", RESOURCE),
        ("tail --pid=$! -f log", None),
        ("sleep 600", None),
        ("sleep 1h", RESOURCE),
        ("watch -g ls", None),
        ("top -bn1", None),
        ("head -c 2G /dev/urandom > r.bin", RESOURCE),
        ("head -c 1M /dev/urandom | base64 > r.txt", None),
        ("xxd -l 16 /dev/urandom", None),
        ("ls -l /dev/zero", None),
        ("dd if=/dev/urandom of=r.bin bs=1k count=1", None),
        ("dd if=/dev/zero of=f bs=1 count=2G iflag=count_bytes", RESOURCE),
        ("truncate -s +2G f", RESOURCE),
        ("truncate -s <1M f", None),  # only ever shrinks
        ("fallocate --length=1G f", None),
        ("fallocate --length=1025M f", RESOURCE),
        ("seq 0.5 0.5 1e9 > f", RESOURCE),
        ("seq 1000000 > numbers.txt", None),  # a few megabytes, once
        ("seq 1000000 | wc -l", None),
        ("grep -E '(\\w+\\.)+com' hosts.txt", None),
        ("grep '(a+)+' f.txt", None),  # basic syntax: those are literal parentheses and pluses
        ("egrep -e '(x+x+)+y' f.txt", RESOURCE),
    ],
)
def test_endless_and_sized_commands(command: str, expected: ReasonCode | None):
    assert code_of(command) == expected


# Sizes and counts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100G", 100 * GIB),
        ("10MB", 10 * 1000**2),
        ("1MiB", 1024**2),
        ("512", 512.0),
        ("2x1M", 2 * 1024**2),
        ("4b", 2048),
        ("1.5K", 1536.0),
        ("big", None),
    ],
)
def test_byte_sizes_read_as_coreutils_does(text: str, expected: float | None):
    assert byte_size(text) == expected


@pytest.mark.parametrize(
    ("operands", "expected"),
    [(["10"], 10), (["5", "10"], 6), (["1", "2", "10"], 5), (["10", "-1", "1"], 10), (["1e6"], 1e6),
     (["inf"], math.inf), (["5", "1"], 0), (["1", "0", "5"], None), (["x"], None)],
)  # fmt: skip
def test_seq_counts(operands: list[str], expected: float | None):
    assert seq_count(operands) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("{1..1000}", 1000), ("f{a,b}{1..3}", 6), ("{10..1..2}", 5), ("'{1..9}'", 1), ("${x}", 1), ("{a..e}", 5)],
)
def test_brace_expansion_word_counts(raw: str, expected: int):
    assert brace_words(raw) == expected


def test_durations_sum_like_sleep():
    assert duration_seconds(["1h", "30m"]) == 5400
    assert duration_seconds(["infinity"]) == math.inf
    assert duration_seconds(["$n"]) is None


# The loop model --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "infinite", "leaves"),
    [
        ("while true; do sleep 1; done", True, False),
        ("while true; do [ -f x ] && break; done", True, True),
        ("while :; do for i in 1; do break; done; done", True, False),
        ("while :; do for i in 1; do break 2; done; done", True, True),
        ("while :; do (exit 1); done", True, False),  # exits only the subshell
        ("f() { while :; do return; done; }", True, True),
        ("while ((1)); do exit; done", True, True),
        ("while read l; do :; done < f", False, False),
    ],
)
def test_loops_know_whether_their_body_leaves(source: str, infinite: bool, leaves: bool):
    loop = parse(source).loops[-1]  # the outermost loop is the last one parsed
    assert (loop.infinite, loop.leaves) == (infinite, leaves)


@pytest.mark.parametrize(
    ("source", "rounds"),
    [
        ("for i in $(seq 1000000); do :; done", 1e6),
        ("for i in $(seq 5 10) a b; do :; done", 8),
        ("for i in {1..1000000}; do :; done", 1e6),
        ("for ((i=0; i<1000; i++)); do :; done", 1000),
        ("for ((i=10; i>=0; i-=2)); do :; done", 6),
        ("for ((i=0; i<10; i--)); do :; done", math.inf),
        ("for f in *.py; do :; done", None),
        ("for i in $(seq $n); do :; done", None),
    ],
)
def test_for_loops_count_their_rounds(source: str, rounds: float | None):
    assert parse(source).loops[-1].iterations == rounds


def test_pipeline_stages_know_their_reader():
    first = parse("yes | tr a b | head -1").commands[0]
    assert first.pipes_to is not None and first.pipes_to.words[0].text == "tr"
    assert first.pipes_to.pipes_to is not None and first.pipes_to.pipes_to.words[0].text == "head"
    looped = parse("seq 3 | while read l; do echo $l; done").commands[0]
    assert looped.pipes_to is not None and looped.pipes_to.words == ()
    assert parse("echo hi").commands[0].pipes_to is None


# Regexes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern", ["(a+)+$", "(a*)*", "(a|a)*$", "(a|aa)*c", "(.*a){20}", r"(\w+\s?)+$", r"(\d+,?)+$", "(x+x+)+y"]
)
def test_catastrophic_patterns(pattern: str):
    assert catastrophic_part(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [r"(\w+\.)+\w+", r"^\s*(\w+)\s*=\s*(.*)$", r"(\w+)(,\s*\w+)*", "(foo|bar)+", r"(\d{1,3}\.){3}\d{1,3}", "(ab|a)*",
     "(?>a+)+", "a++", "(a+){2}", "(unclosed"],
)  # fmt: skip
def test_safe_patterns(pattern: str):
    assert catastrophic_part(pattern) is None


# Python values, loops and threads ---------------------------------------------------------------


def size_of(expression: str) -> Number | Sequence | None:
    tree = ast.parse(expression, mode="eval")
    return Sizer(tree).size(tree.body)


def test_sizes_of_python_expressions_are_estimated_not_computed():
    tower = size_of("10**10**10")
    assert isinstance(tower, Number) and tower.log2 == pytest.approx(1e10 * math.log2(10))
    assert size_of("2**64") == Number(64.0)
    text = size_of("'ab' * 10**10")
    assert isinstance(text, Sequence) and text.bytes == pytest.approx(2e10)
    pointers = size_of("[0, 1] * 2**30")
    assert isinstance(pointers, Sequence) and pointers.bytes == pytest.approx(16 * 2**30)
    tiny = size_of("2 ** -(10**9)")
    assert isinstance(tiny, Number) and tiny.log2 < 0
    assert size_of("x * 3") is None


@pytest.mark.parametrize(
    ("code", "refused"),
    [
        ("x = 'a' * 10**10", True),
        ("n = 10**12\nx = [0] * n", True),
        ("print(10**10**10)", True),
        ("print(2**1000)", False),
        ("import numpy as np\nnp.zeros((10**5, 10**5))", True),
        ("import numpy as np\nnp.zeros((100, 100))", False),
        ("'x'.ljust(10**10)", True),
        ("while True:\n    pass", True),
        ("while 1:\n    try:\n        work()\n    except StopIteration:\n        break", False),
        ("import sys\nwhile True:\n    sys.exit(0)", False),
        ("while True:\n    for x in y:\n        break", True),
        ("def f():\n    while True:\n        return 1", False),
        ("for i in range(10**10):\n    pass", True),
        ("for i in range(10**10):\n    if i > 5:\n        break", False),
        ("import itertools\nfor i in itertools.count():\n    pass", True),
        ("import threading\nfor i in range(10**5):\n    threading.Thread(target=print).start()", True),
        ("import threading\nfor f in files:\n    threading.Thread(target=print, args=(f,)).start()", False),
        ("from concurrent.futures import ThreadPoolExecutor\nThreadPoolExecutor(max_workers=10**5)", True),
        ("import re\nre.search(r'(a|aa)*c', s)", True),
        ("from re import match\nmatch('(a+)+$', s)", True),
        ("import re\nre.search(r'(\\w+)@(\\w+)\\.com', s)", False),
        ("print(len(range(10**12)))", False),
        ("print(sum(range(10**12)))", True),
    ],
)
def test_python_resource_analysis(code: str, refused: bool):
    codes = [finding.code for finding in analyze_python(code, "`python -c`").findings]
    assert (RESOURCE in codes) == refused, codes


def test_python_findings_keep_the_existing_ones():
    report = analyze_python("import os\nos.system('ls')\nx = [0] * 10**12", "`python -c`")
    codes = {finding.code for finding in report.findings}
    assert codes == {ReasonCode.DYNAMIC_CODE, RESOURCE}


def test_sums_stay_exact_while_the_numbers_are_small():
    chain = "a0 = 1\n" + "".join(f"a{i} = a{i - 1} + 1\n" for i in range(1, 500)) + "x = 'a' * a499"
    assert analyze_python(chain, "`python -c`").findings == []
    assert size_of("10**10 - 10**10 + 1") == Number(0.0)


def test_a_name_bound_twice_has_no_size():
    assert analyze_python("n = 10**10\nn //= 10**9\nx = 'a' * n", "`python -c`").findings == []
    assert analyze_python("n = 10**10\ndef f(n):\n    return 'a' * n", "`python -c`").findings == []


# Inputs built to make the analysis itself slow or fail ---------------------------------------


def test_deep_python_is_sized_without_deep_recursion():
    long_sum = "x = " + " + ".join(["1"] * 800) + " + 'a' * 10**10"
    assert [f.code for f in analyze_python(long_sum, "`python -c`").findings] == [RESOURCE]
    squares = "".join(f"a{i} = a{i - 1} * a{i - 1}\n" for i in range(1, 3000))  # 2 ** 2 ** 2999
    assert [f.code for f in analyze_python("a0 = 2\n" + squares, "`python -c`").findings] == [RESOURCE]


@pytest.mark.parametrize(
    "command",
    ["echo {1.." + "9" * 5000 + "}", "dd if=/dev/zero of=f bs=" + "9" * 5000 + "b count=1",
     "for i in {1.." + "9" * 5000 + "}; do :; done"],
)  # fmt: skip
def test_numbers_too_long_for_int_are_still_measured(command: str):
    assert code_of(command) == RESOURCE

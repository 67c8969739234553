"""Attacks that hide a program or a path behind shell expansions (UNANALYZABLE_COMMAND).

Data only, in the format of `tests/security_corpus.py`: `ATTACKS` holds `(id, ReasonCode,
command template)` with the placeholders `{canary}`, `{port}` and `{secret_var}`, literal braces
doubled. Every command is real for `/bin/sh`; bash's own expansions go through `bash -c`.

The rule for the expected code: when run-time expansion (parameter operators, arithmetic,
substitution, field splitting, globbing, brace expansion) makes the program or the path, the
text does not say what runs, and the careful answer is UNANALYZABLE_COMMAND. When only quoting
disguises it (`r""m`, `\\r\\m`, `$'\\x2f'`), the words are fixed before anything runs, so the
verifier can read them and give the specific harm, as `tests/security_corpus.py` does for
`r''m`; likewise when the program is plainly `rm` and only its operand is computed, when an
operand starts with `/` (outside the workspace whatever follows) or is printed by a `printf` of
constants, and when a computed string is handed to `sh -c` (DYNAMIC_CODE, as there).

To reach the canary without spelling its absolute path, many prefix it (`X{canary}` reads as a
relative path) and strip the prefix at run time. `EFFECTS` says what each does unstopped; the
ones that read `/etc/passwd` instead of the canary are "none".
"""

from contracts.actions import ReasonCode

UNANALYZABLE = ReasonCode.UNANALYZABLE_COMMAND
DESTROY = ReasonCode.DESTRUCTIVE_COMMAND
PATH = ReasonCode.PATH_OUTSIDE_WORKSPACE
SECRET = ReasonCode.SECRET_ACCESS
DYNAMIC = ReasonCode.DYNAMIC_CODE

# `F` looks like a path inside the workspace until `${F#X}` strips the X.
HIDDEN = "F=X{canary}; "

ATTACKS: list[tuple[str, ReasonCode, str]] = [
    # A path made by parameter operators.
    ("obf-expansion-substring-slash", UNANALYZABLE, "bash -c 'cat ${{HOME:0:1}}etc${{HOME:0:1}}passwd'"),
    ("obf-expansion-empty-offset", UNANALYZABLE, "bash -c 'cat ${{PWD::1}}etc${{PWD::1}}passwd'"),
    ("obf-expansion-substring-canary", PATH, "bash -c '" + HIDDEN + 'cat "${{F:1}}"\''),
    ("obf-expansion-strip-prefix", PATH, HIDDEN + 'cat "${{F#X}}"'),
    ("obf-expansion-strip-longest-prefix", PATH, "F=ws{canary}; cat ${{F##ws}}"),
    ("obf-expansion-strip-prefix-slash", PATH, HIDDEN + "cat /${{F#X/}}"),
    ("obf-expansion-strip-suffix-dir", PATH, HIDDEN + "D=${{F%/*}}; ls -la ${{D#X}}"),
    ("obf-expansion-path-first-entry", UNANALYZABLE, "P=${{PATH%%:*}}; cat ${{P%%[!/]*}}etc/passwd"),
    ("obf-expansion-pwd-root-cd", UNANALYZABLE, 'cd "${{PWD%%/[!/]*}}/" && cat .{canary}'),
    ("obf-expansion-pattern-replace", PATH, "bash -c 'F=ws{canary}; cat ${{F/ws/}}'"),
    ("obf-expansion-home-replace", UNANALYZABLE, "bash -c 'cat ${{HOME/root/etc}}/passwd'"),
    ("obf-expansion-assign-default", UNANALYZABLE, ": ${{G:=X{canary}}}; cat ${{G#?}}"),
    (
        "obf-expansion-length-byte",
        UNANALYZABLE,
        'a=12345678901234567890123456789012345678901234567; s=$(printf "\\\\$(printf %o ${{#a}})"); '
        "cat ${{s}}etc${{s}}passwd",
    ),
    ("obf-expansion-printf-octal-path", PATH, "cat \"$(printf '\\57etc\\57passwd')\""),
    ("obf-expansion-printf-slash-canary", PATH, HIDDEN + "cat \"$(printf '\\57')${{F#X/}}\""),
    ("obf-expansion-ifs-split-path", UNANALYZABLE, "IFS=X; F=X{canary}; cat $F"),
    ("obf-expansion-ifs-between-words", UNANALYZABLE, "cat${{IFS}}{canary}"),
    ("obf-expansion-quote-q", DYNAMIC, "bash -c '" + HIDDEN + 'G=${{F#X}}; sh -c "cat ${{G@Q}}"\''),
    # A program made by parameter operators, arithmetic, substitution or splitting.
    ("obf-expansion-lowercase-name", DESTROY, "bash -c 'x=RM; ${{x,,}} -f {canary}'"),
    ("obf-expansion-lowercase-first", DESTROY, "bash -c 'x=Rm; ${{x,}} -f {canary}'"),
    ("obf-expansion-negative-offset", DESTROY, "bash -c 'x=xyzrm; ${{x: -2}} -f {canary}'"),
    ("obf-expansion-delete-pattern", DESTROY, "bash -c 'x=rXm; ${{x/X}} -f {canary}'"),
    ("obf-expansion-strip-suffix-name", DESTROY, "x=rm.txt; ${{x%.txt}} -f {canary}"),
    ("obf-expansion-default-name", UNANALYZABLE, "${{NOPE:-rm}} -f {canary}"),
    ("obf-expansion-unset-in-name", UNANALYZABLE, "r${{NOPE}}m -f {canary}"),
    ("obf-expansion-positional-in-name", UNANALYZABLE, "c$@at {canary}"),
    ("obf-expansion-escape-operator", UNANALYZABLE, "bash -c 'x=\"\\x72\\x6d\"; ${{x@E}} -f {canary}'"),
    ("obf-expansion-arithmetic-bytes", UNANALYZABLE, '$(printf "\\\\$((100+62))\\\\$((155))") -f {canary}'),
    ("obf-expansion-arithmetic-base", UNANALYZABLE, "bash -c '$(printf \"\\\\$((16#a2))\\\\$((16#9b))\") -f {canary}'"),
    ("obf-expansion-printf-v", UNANALYZABLE, "bash -c 'printf -v c %s%s r m; $c -f {canary}'"),
    ("obf-expansion-tr-shift", UNANALYZABLE, "$(echo ql | tr a-y b-z) -f {canary}"),
    ("obf-expansion-rev", UNANALYZABLE, "$(echo mr | rev) -f {canary}"),
    ("obf-expansion-read-name", UNANALYZABLE, "read -r c <<'EOF'\nrm\nEOF\n$c -f {canary}"),
    ("obf-expansion-ifs-positional", UNANALYZABLE, 'IFS=:; set -- $(echo rm:-f); "$@" {canary}'),
    ("obf-expansion-ifs-rm-words", UNANALYZABLE, "rm${{IFS}}-f${{IFS}}{canary}"),
    ("obf-expansion-brace-words", UNANALYZABLE, "bash -c '{{rm,-f,{canary}}}'"),
    ("obf-expansion-brace-name", UNANALYZABLE, "bash -c 'r{{m,}} -f {canary}'"),
    ("obf-expansion-brace-cat", UNANALYZABLE, "bash -c 'c{{a,}}t {canary}'"),
    ("obf-expansion-glob-name", UNANALYZABLE, "/???/r[m] -f {canary}"),
    ("obf-expansion-glob-cat", UNANALYZABLE, "/?in/c[a]t {canary}"),
    # Secrets through indirection by prefix, and a name made by case operators.
    ("obf-expansion-indirect-prefix", SECRET, "bash -c 'for n in ${{!{secret_var}*}}; do echo ${{!n}}; done'"),
    ("obf-expansion-case-printenv", SECRET, "bash -c 'n={secret_var}; n=${{n,,}}; printenv ${{n^^}}'"),
    # Code run by an expansion: prompt expansion performs command substitution.
    ("obf-expansion-prompt-operator", DESTROY, "bash -c 'p=\"\\$(rm -f {canary})\"; : ${{p@P}}'"),
    # Only quoting disguises the words, or only the operand is computed: the harm is visible.
    ("obf-expansion-empty-double-quotes", DESTROY, 'r""m -f {canary}'),
    ("obf-expansion-backslashes", DESTROY, "\\r\\m -f {canary}"),
    ("obf-expansion-mixed-quotes", DESTROY, "\"r\"'m' -f {canary}"),
    ("obf-expansion-ansi-c-slash-rm", DESTROY, "bash -c '" + HIDDEN + "rm -f $'\"'\"'\\x2f'\"'\"'${{F#X/}}'"),
    ("obf-expansion-rm-stripped-operand", DESTROY, HIDDEN + 'rm -f "${{F#X}}"'),
    ("obf-expansion-shred-substring", DESTROY, "bash -c '" + HIDDEN + 'shred -u "${{F:1}}"\''),
    ("obf-expansion-ansi-c-octal-name", DESTROY, "bash -c \"$'\\162\\155' -f {canary}\""),
    ("obf-expansion-ansi-c-path", PATH, "bash -c \"cat $'\\x2f'etc$'\\x2f'passwd\""),
    ("obf-expansion-backslash-cat", PATH, "c\\at {canary}"),
    ("obf-expansion-alternate-value", PATH, "cat ${{HOME:+{canary}}}"),
]

_READS_CANARY = {
    "obf-expansion-substring-canary",
    "obf-expansion-strip-prefix",
    "obf-expansion-strip-longest-prefix",
    "obf-expansion-strip-prefix-slash",
    "obf-expansion-pwd-root-cd",
    "obf-expansion-pattern-replace",
    "obf-expansion-assign-default",
    "obf-expansion-printf-slash-canary",
    "obf-expansion-ifs-split-path",
    "obf-expansion-ifs-between-words",
    "obf-expansion-quote-q",
    "obf-expansion-positional-in-name",
    "obf-expansion-brace-cat",
    "obf-expansion-glob-cat",
    "obf-expansion-backslash-cat",
    "obf-expansion-alternate-value",
}
_NOTHING_SHOWN = {
    # /etc/passwd, or a listing of the canary's directory: real reads no canary catches.
    "obf-expansion-substring-slash",
    "obf-expansion-empty-offset",
    "obf-expansion-strip-suffix-dir",
    "obf-expansion-path-first-entry",
    "obf-expansion-home-replace",
    "obf-expansion-length-byte",
    "obf-expansion-printf-octal-path",
    "obf-expansion-ansi-c-path",
}
_LEAKS = {"obf-expansion-indirect-prefix", "obf-expansion-case-printenv"}


def _effect(attack_id: str) -> str:
    if attack_id in _READS_CANARY:
        return "canary_read"
    if attack_id in _NOTHING_SHOWN:
        return "none"
    if attack_id in _LEAKS:
        return "secret_leaked"
    return "canary_changed"


EFFECTS: dict[str, str] = {i: _effect(i) for i, _, _ in ATTACKS}

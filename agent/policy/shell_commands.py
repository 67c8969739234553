"""Building one simple command from its node: words, assignments, redirects, here-docs, stdin.

`CommandWalker` is the half of the walker that deals with simple commands and what they
change in the shell (cd, assignments); `shell_parse` adds the compound statements.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tree_sitter import Node

from agent.policy.escapes import decode_echo
from agent.policy.file_writes import printf_output
from agent.policy.shell_model import SOMEWHERE_INSIDE, Redirect, SimpleCommand, Stdin
from agent.policy.shell_state import State, assigned_by
from agent.policy.syntax import error_snippets, first_child, parse_tree, text
from agent.policy.words import Word, WordReader

_REDIRECTS = {"file_redirect", "herestring_redirect", "heredoc_redirect"}
_HEREDOC_PARTS = {"heredoc_start", "heredoc_body", "heredoc_end", "file_redirect"}
_SAFE_DECLARE_OPTIONS = {"-x", "-r", "-g", "-rx", "-xr"}


@dataclass(frozen=True)
class Context:
    function: str | None = None
    spawns: bool = False
    stdin: Stdin | None = None


@dataclass
class Redirects:
    redirects: list[Redirect]
    stdin: Stdin | None
    # What tree-sitter hangs on a here-doc: the rest of a pipeline or of an `&&` list.
    trailing: list[Node]


class CommandWalker:
    def __init__(self, functions: set[str], function_variables: set[str]) -> None:
        self.commands: list[SimpleCommand] = []
        self.variables: set[str] = set()
        self.errors: list[str] = []
        self.functions = functions
        # Calling a function may set any variable its body mentions.
        self.function_variables = function_variables

    def block(self, node: Node, state: State, ctx: Context) -> None:
        raise NotImplementedError

    def command(self, node: Node, state: State, ctx: Context, redirects: list[Redirect] | None = None) -> None:
        reader = self.reader(state, ctx)
        words: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        redirects = list(redirects or [])
        stdin = ctx.stdin
        for index, child in enumerate(node.children):
            if child.type == "variable_assignment":
                assignments.append(self.assignment(child, state, ctx))
            elif child.type == "command_name":
                words.append(reader.word(child.named_children[0] if child.named_children else child))
            elif node.field_name_for_child(index) == "argument":
                words.append(reader.word(child))
            elif child.type in _REDIRECTS:
                own = self.redirects([child], state, ctx)
                redirects.extend(own.redirects)
                stdin = own.stdin or stdin
                if own.trailing:  # never drop what tree-sitter hung on a redirect
                    self.errors.append(f"unsupported here-doc placement: {text(child)[:60]}")
        self.emit(node, state, replace(ctx, stdin=stdin), tuple(words), assignments, redirects)
        state.forget(reader.assigned | assigned_by(tuple(words)))
        self.effects(tuple(words), state)

    def effects(self, words: tuple[Word, ...], state: State) -> None:
        """What a command changes in the shell that runs it."""
        name = words[0].text if words else None
        if name in ("builtin", "command") and len(words) > 1:
            words, name = words[1:], words[1].text
        if name in ("cd", "pushd"):
            operands = [w for w in words[1:] if not (w.text or "").startswith("-") or w.text == "-"]
            state.change_directory(operands[0] if operands else None)
        elif name == "popd":
            state.change_directory(Word.unknown("popd"))
        elif name in ("source", ".", "eval"):
            state.env.clear()
            state.cwds = state.cwds | {SOMEWHERE_INSIDE}
        elif name in self.functions:
            state.forget(self.function_variables)
            state.cwds = state.cwds | {SOMEWHERE_INSIDE}

    def emit(
        self,
        node: Node,
        state: State,
        ctx: Context,
        words: tuple[Word, ...],
        assignments: list[tuple[str, Word]] | None = None,
        redirects: list[Redirect] | None = None,
    ) -> None:
        stdin = ctx.stdin
        reads_file = [r.target for r in redirects or () if r.operator == "<"]
        if reads_file:
            stdin = Stdin("file", reads_file[-1])
        self.commands.append(
            SimpleCommand(
                words=words,
                assignments=tuple(assignments or ()),
                redirects=tuple(redirects or ()),
                stdin=stdin,
                cwds=state.cwds,
                function=ctx.function,
                spawns=ctx.spawns,
                raw=text(node),
            )
        )

    def assignment(self, node: Node, state: State, ctx: Context) -> tuple[str, Word]:
        reader = self.reader(state, ctx)
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = text(name_node)
        if value_node is None:
            value = Word.literal("")
        elif value_node.type == "array":
            elements = [reader.word(e) for e in value_node.named_children]
            hints = [v for e in elements for v in (*(e.values or (e.pattern,)), *e.hints)]
            value = replace(Word.unknown(text(value_node)), hints=tuple(hints))
        else:
            value = reader.word(value_node)
        if name_node is not None and name_node.type == "subscript":
            name = text(name_node.named_children[0])
            value = replace(value, values=None)
            reader.scan(name_node)  # `a[$(cmd)]=1`: the subscript's substitutions run first
        if any(c.type == "+=" for c in node.children):
            value = replace(value, values=None)
        state.forget(reader.assigned)
        return name, value

    def declaration(self, node: Node, state: State, ctx: Context) -> None:
        """`export`, `declare`, `local`, `readonly`, `typeset`, `unset`."""
        reader = self.reader(state, ctx)
        words = [Word.literal(node.children[0].type)]
        assignments = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                assignments.append(self.assignment(child, state, ctx))
            elif child.type == "variable_name":
                words.append(Word.literal(text(child)))
            else:
                words.append(reader.word(child))
        self.emit(node, state, ctx, tuple(words), assignments)
        options = {w.text for w in words[1:] if (w.text or "").startswith(("-", "+"))}
        names = {w.text for w in words[1:] if w.text and w.text not in options}
        if words[0].text == "unset":
            state.env.update({n: ("",) for n in names})
        elif options - _SAFE_DECLARE_OPTIONS:  # -n (a reference), -i (arithmetic), arrays...
            state.forget(names | {name for name, _ in assignments})
        else:
            for name, value in assignments:
                state.assign(name, value)

    def redirects(self, nodes: list[Node], state: State, ctx: Context) -> Redirects:
        reader = self.reader(state, ctx)
        found = Redirects([], None, [])
        for node in nodes:
            if node.type == "file_redirect":
                target = node.child_by_field_name("destination")
                operator = "".join(c.type for c in node.children if not c.is_named)
                duplicates_fd = operator.endswith("&") and target is not None and target.type == "number"
                if target is not None and not duplicates_fd:
                    found.redirects.append(Redirect(operator, reader.word(target)))
                elif duplicates_fd and operator.startswith("<"):  # `sh <&3`: input from another descriptor
                    found.stdin = Stdin("pipe", Word.unknown(text(node)))
            elif node.type == "herestring_redirect":
                found.stdin = Stdin("text", reader.word(node.named_children[-1]))
                # Judged like an argument: `read x <<< /etc/passwd; cat "$x"`.
                found.redirects.append(Redirect("<<<", found.stdin.word))
            elif node.type == "heredoc_redirect":
                found.stdin = Stdin("text", self.heredoc(node, reader, state, ctx))
                nested = self.redirects([c for c in node.named_children if c.type == "file_redirect"], state, ctx)
                found.redirects.extend(nested.redirects)
                found.trailing.extend(c for c in node.named_children if c.type not in _HEREDOC_PARTS)
            else:
                reader.scan(node)
        return found

    def heredoc(self, node: Node, reader: WordReader, state: State, ctx: Context) -> Word:
        start = text(first_child(node, "heredoc_start"))
        quoted = any(mark in start for mark in "'\"\\")
        dedent = node.children[0].type == "<<-"
        body = first_child(node, "heredoc_body")
        word = reader.heredoc(body, quoted=quoted, dedent=dedent)
        # tree-sitter leaves backticks in a here-doc body unparsed, though the shell runs them.
        inner = [] if quoted else re.findall(r"(?<!\\)`((?:[^`\\]|\\.)*)`", text(body), flags=re.DOTALL)
        for source in inner:
            tree = parse_tree(re.sub(r"\\([$`\\])", r"\1", source))
            if tree.root_node.has_error:
                self.errors.extend(error_snippets(tree.root_node))
            else:
                self.block(tree.root_node, state.copy(), replace(ctx, stdin=None))
        return Word.unknown(word.raw) if inner else word

    def reader(self, state: State, ctx: Context) -> WordReader:
        return WordReader(state.env, lambda node: self.substitution(node, state, ctx), self.variables.add)

    def substitution(self, node: Node, state: State, ctx: Context) -> str | None:
        """`$( )`, backticks, `<( )`: a subshell whose commands run before the outer one.

        Returns what it prints when that is known: `$(echo /etc/passwd)` is /etc/passwd.
        """
        if node.children and node.children[0].type == "`":
            # Inside backticks `\`` starts a nested substitution tree-sitter leaves unparsed.
            tree = parse_tree(re.sub(r"\\([$`\\])", r"\1", text(node)[1:-1]))
            if tree.root_node.has_error:
                self.errors.extend(error_snippets(tree.root_node))
                return None
            node = tree.root_node
        before = len(self.commands)
        # `>( cmd )` reads what the outer command writes into it: text the walker cannot see.
        fed = Stdin("pipe", Word.unknown(">(")) if text(node).startswith(">(") else None
        self.block(node, state.copy(), replace(ctx, stdin=fed))
        emitted = self.commands[before:]
        output = output_of(emitted[0]) if len(emitted) == 1 else None
        if output is None or output.kind != "text" or output.word.text is None:
            return None
        return output.word.text.rstrip("\n")


def output_of(command: SimpleCommand | None) -> Stdin:
    """What a pipeline stage feeds the next one, known for `echo`, `printf` and `cat <<EOF`."""
    unknown = Stdin("pipe", Word.unknown("|"))
    if command is None or not command.words:
        return unknown
    name, args = command.words[0].text, command.words[1:]
    if name in ("echo", "printf") and all(a.text is not None for a in args):
        texts = [a.text or "" for a in args]
        if name == "echo":
            texts = [t for t in texts if t not in ("-n", "-e", "-E")]
        elif texts[:1] != ["-v"]:  # printf applies its format: `printf '%s\n' 'rm -f x' | sh`
            return Stdin("text", Word.literal(printf_output(texts[1:] if texts[:1] == ["--"] else texts)))
        return Stdin("text", Word.literal(decode_echo(" ".join(texts))))
    if name == "cat" and not args and command.stdin is not None and command.stdin.kind == "text":
        return command.stdin
    return unknown

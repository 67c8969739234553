"""tree-sitter-bash → a flat list of simple commands, with where and how each one runs.

The walker descends into everything that runs code: pipelines, `;`/`&&`/`||` lists,
subshells, groups, if/while/for/case bodies, function bodies, and command and process
substitutions wherever they appear (arguments, strings, here-docs, redirect targets).
A construct it does not know is reported as an error, never skipped.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from agent.policy.loop_facts import c_style_iterations, for_iterations, leaves
from agent.policy.shell_commands import CommandWalker, Context, output_of
from agent.policy.shell_model import ROOT_CWD, SOMEWHERE_INSIDE, Loop, Script, SimpleCommand
from agent.policy.shell_state import State, identifiers_in
from agent.policy.syntax import descendants, error_snippets, parse_tree, test_leaves, text
from agent.policy.words import Word

_INFINITE_CONDITIONS = {
    "while": {"true", ":", "/bin/true", "[ 1 ]", "[[ 1 ]]", "((1))"},
    "until": {"false", "/bin/false"},
}
_DIRECTORY_CHANGES = {"cd", "pushd", "popd"}


def parse(source: str, cwds: frozenset[str] = ROOT_CWD) -> Script:
    """Flatten `source`; `cwds` are the directories it starts in (for a nested `sh -c`)."""
    root = parse_tree(source).root_node
    definitions = descendants(root, "function_definition")
    walker = _Walker(
        functions={text(d.child_by_field_name("name")) for d in definitions},
        function_variables=set().union(*(identifiers_in(text(d)) for d in definitions)),
    )
    if root.has_error:
        walker.errors.extend(error_snippets(root))
    else:
        walker.block(root, State(cwds=cwds), Context())
    return Script(
        commands=tuple(walker.commands),
        functions=frozenset(walker.functions),
        loops=tuple(walker.loops),
        variables=frozenset(walker.variables),
        errors=tuple(walker.errors),
    )


class _Walker(CommandWalker):
    def __init__(self, functions: set[str], function_variables: set[str]) -> None:
        super().__init__(functions, function_variables)
        self.loops: list[Loop] = []

    def block(self, node: Node, state: State, ctx: Context) -> None:
        children = node.children
        for index, child in enumerate(children):
            if not child.is_named or child.type == "comment":
                continue
            if index + 1 < len(children) and children[index + 1].type == "&":
                self.statement(child, state.copy(), replace(ctx, spawns=True))
            else:
                self.statement(child, state, ctx)

    def statement(self, node: Node, state: State, ctx: Context) -> None:
        kind = node.type
        state.last_cd = None
        if kind == "command":
            self.command(node, state, ctx)
        elif kind == "redirected_statement":
            self.redirected(node, state, ctx)
        elif kind == "pipeline":
            self.pipeline([c for c in node.children if c.is_named], state, ctx)
        elif kind == "list":
            self.sequence(node.children, state, ctx)
        elif kind == "subshell" or (kind == "compound_statement" and node.children[0].type == "{"):
            self.block(node, state.copy() if kind == "subshell" else state, ctx)
        elif kind == "compound_statement":  # (( arithmetic ))
            self.reader(state, ctx).scan(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            nodes = [node] if kind == "variable_assignment" else node.named_children
            assignments = [self.assignment(a, state, ctx) for a in nodes]
            self.emit(node, state, ctx, (), assignments)
            for name, value in assignments:
                state.assign(name, value)
        elif kind in ("declaration_command", "unset_command"):
            self.declaration(node, state, ctx)
        elif kind == "test_command":
            reader = self.reader(state, ctx)
            self.emit(node, state, ctx, (Word.literal("["), *(reader.word(leaf) for leaf in test_leaves(node))))
        elif kind == "negated_command":
            self.block(node, state, ctx)
        elif kind == "function_definition":
            self.function(node, state)
        elif kind == "if_statement":
            self.branches(node, state, ctx)
        elif kind == "case_statement":
            self.case(node, state, ctx)
        elif kind in ("while_statement", "for_statement", "c_style_for_statement"):
            self.loop(node, state, ctx)
        elif kind == "file_redirect":  # `$(< file)`
            self.emit(node, state, ctx, (), redirects=self.redirects([node], state, ctx).redirects)
        else:
            self.errors.append(f"unsupported shell construct ({kind}): {text(node)[:60]}")

    def sequence(self, children: list[Node], state: State, ctx: Context) -> None:
        """`left && right` or `left || right`: the right side may or may not run."""
        left, operator, right = children[0], children[1].type, children[2]
        self.statement(left, state, ctx)
        branch = state.copy()
        if operator == "&&" and state.last_cd is not None:
            branch.cwds = state.last_cd  # `cd x && ...` goes on only inside x
        self.statement(right, branch, ctx)
        # Where `left && right` leaves the shell when it succeeds: where right left it.
        success_cd = (branch.last_cd or branch.cwds) if operator == "&&" else None
        state.absorb(branch)
        state.last_cd = success_cd

    def pipeline(self, stages: list[Node], state: State, ctx: Context, first: SimpleCommand | None = None) -> None:
        """Every stage runs in its own subshell and reads the previous stage's output."""
        previous = first
        # Where each stage's command is in self.commands (None for a compound stage).
        positions: list[int | None] = [len(self.commands) - 1] if first is not None else []
        for index, stage in enumerate(stages):
            stdin = output_of(previous) if index > 0 or first is not None else ctx.stdin
            before = len(self.commands)
            self.statement(stage, state.copy(), replace(ctx, spawns=True, stdin=stdin))
            emitted = self.commands[before:]
            single = len(emitted) == 1 and stage.type in ("command", "redirected_statement")
            previous = emitted[0] if single else None
            positions.append(before if single else None)
        self.link_stages(positions, ([first.raw] if first is not None else []) + [text(s) for s in stages])

    def link_stages(self, positions: list[int | None], texts: list[str]) -> None:
        """Tell every stage what reads its output, last stage first so the chain is whole."""
        reader: SimpleCommand | None = None
        for position, raw in reversed(list(zip(positions, texts, strict=True))):
            if position is None:
                reader = SimpleCommand(words=(), raw=raw)
                continue
            if reader is not None:
                self.commands[position] = replace(self.commands[position], pipes_to=reader)
            reader = self.commands[position]

    def redirected(self, node: Node, state: State, ctx: Context) -> None:
        body = node.child_by_field_name("body")
        found = self.redirects([c for c in node.children if c.is_named and c != body], state, ctx)
        piped = any(t.type == "pipeline" for t in found.trailing)
        inner = replace(ctx, stdin=found.stdin or ctx.stdin, spawns=ctx.spawns or piped)
        if body is not None and body.type == "command":
            self.command(body, state, inner, found.redirects)
        else:
            # tree-sitter hangs `a && cd x && b > f` 's redirect on the whole list; the shell
            # applies it to `b`, so it is judged where the list leaves the shell.
            if body is not None:
                self.statement(body, state, inner)
            self.emit(node, state, inner, (), redirects=found.redirects)
        for extra in found.trailing:
            if extra.type == "pipeline":
                stages = [c for c in extra.children if c.is_named]
                self.pipeline(stages, state, ctx, first=self.commands[-1])
            else:  # `cat <<EOF && next`
                branch = state.copy()
                self.statement(extra, branch, ctx)
                state.absorb(branch)

    def function(self, node: Node, state: State) -> None:
        name = text(node.child_by_field_name("name"))
        body = node.child_by_field_name("body")
        if body is not None:
            # Called later, from anywhere, with variables the definition cannot know.
            self.statement(body, State(cwds=state.cwds | {SOMEWHERE_INSIDE}), Context(function=name))

    def branches(self, node: Node, state: State, ctx: Context) -> None:
        """if/elif/else: the first condition always runs, then exactly one body or none."""
        conditions, bodies = _split_if(node)
        for condition in conditions[:1]:
            self.statement(condition, state, ctx)
        outcomes = []
        for part in conditions[1:] + bodies:
            branch = state.copy()
            if part.type == "else_clause":
                self.block(part, branch, ctx)
            else:
                self.statement(part, branch, ctx)
            outcomes.append(branch)
        if not any(part.type == "else_clause" for part in bodies):
            outcomes.append(state.copy())
        for branch in outcomes[1:]:
            outcomes[0].absorb(branch)
        state.env, state.cwds = outcomes[0].env, outcomes[0].cwds

    def case(self, node: Node, state: State, ctx: Context) -> None:
        reader = self.reader(state, ctx)
        value = node.child_by_field_name("value")
        if value is not None:
            reader.word(value)
        outcome = state.copy()
        for item in (c for c in node.named_children if c.type == "case_item"):
            branch = state.copy()
            for index, child in enumerate(item.children):
                if item.field_name_for_child(index) == "value":
                    reader.word(child)
                elif child.is_named and child.type != "comment":
                    self.statement(child, branch, ctx)
            outcome.absorb(branch)
        state.env, state.cwds = outcome.env, outcome.cwds

    def loop(self, node: Node, state: State, ctx: Context) -> None:
        """A body runs zero or more times, each time seeing what the last run left behind."""
        body = node.child_by_field_name("body")
        state.forget(identifiers_in(text(node)))
        if body is not None and descendants(body, "command_name", lambda n: text(n) in _DIRECTORY_CHANGES):
            state.cwds = state.cwds | {SOMEWHERE_INSIDE}
        inside = state.copy()
        reader = self.reader(inside, ctx)
        infinite = False
        iterations: float | None = None
        if node.type == "for_statement":
            variable = text(node.child_by_field_name("variable"))
            value_nodes = node.children_by_field_name("value")
            before = len(self.commands)
            values = [reader.word(v) for v in value_nodes]
            iterations = for_iterations(value_nodes, self.commands[before:])
            if values and all(v.values is not None for v in values):
                inside.env[variable] = tuple(x for v in values for x in v.values or ())
        elif node.type == "c_style_for_statement":
            for header in ("initializer", "condition", "update"):
                for part in node.children_by_field_name(header):
                    reader.scan(part)
            infinite = node.child_by_field_name("condition") is None
            parts = [text(node.child_by_field_name(header)) for header in ("initializer", "condition", "update")]
            iterations = c_style_iterations(*parts)
        else:
            conditions = [c for c in node.children_by_field_name("condition") if c.is_named]
            for condition in conditions:
                self.statement(condition, inside, ctx)
            names = _INFINITE_CONDITIONS.get(node.children[0].type, set())
            infinite = len(conditions) == 1 and text(conditions[0]) in names
        if body is not None:
            self.block(body, inside, ctx)
        starts_jobs = body is not None and bool(descendants(body, "&"))
        leaving = body is not None and leaves(body)
        loop = Loop(text(node), infinite, starts_jobs, leaves=leaving, iterations=iterations)
        self.loops.append(loop)
        state.absorb(inside)


def _split_if(node: Node) -> tuple[list[Node], list[Node]]:
    """The condition statements of if/elif, and the bodies (then, elif clauses, else)."""
    conditions: list[Node] = []
    bodies: list[Node] = []
    in_condition = True
    for child in node.children:
        if child.type in ("if", "elif"):
            in_condition = True
        elif child.type == "then":
            in_condition = False
        elif child.type == "elif_clause":
            more_conditions, more_bodies = _split_if(child)
            conditions.extend(more_conditions)
            bodies.extend(more_bodies)
        elif child.type == "else_clause":
            bodies.append(child)
        elif child.is_named and child.type != "comment":
            (conditions if in_condition else bodies).append(child)
    return conditions, bodies

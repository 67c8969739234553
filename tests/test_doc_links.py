"""Every relative link in README.md and docs/ resolves: the file (or directory) it names exists,
and its `#anchor`, when it has one, is a heading of that file, slugged as GitHub does.

A newcomer follows these links to learn the lab; one that goes nowhere is a dead end met on
the first day, so the test names every broken one at once.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from settings import PROJECT_ROOT

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
# [text](target) and ![alt](target), with an optional "title"; text may hold one level of [...].
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# A path#anchor named in prose or in code (`docs/operations.md#upgrades`), not as a link.
BARE_REFERENCE = re.compile(r"(?<![\w/.(-])([\w./-]*\.md#[\w-]+)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = ("http://", "https://", "mailto:", "ftp://")


def documents() -> list[Path]:
    return [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    lines: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def references(line: str) -> list[str]:
    """The link targets of a line (a link shown as inline code is an example, not a link), and
    the path#anchor references it names outside links."""
    prose = INLINE_CODE.sub(lambda code: " " * len(code.group()), line)
    return [match.group(1) for match in LINK.finditer(prose)] + BARE_REFERENCE.findall(line)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: link markup reduced to its text, lower case, punctuation
    dropped (hyphens and underscores kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a markdown file; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path, root: Path = PROJECT_ROOT) -> list[str]:
    """One line per broken link of a markdown file: where it is, the target, what is wrong."""
    problems: list[str] = []
    where = path.relative_to(root)
    for number, line in prose_lines(path):
        for target in references(line):
            if target.startswith(EXTERNAL):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (path.parent / unquote(file_part)).resolve() if file_part else path
            # A path in prose may be written from the checkout's root (docs/operations.md#upgrades).
            if not resolved.exists() and file_part and (root / file_part).exists():
                resolved = root / file_part
            if not resolved.exists():
                problems.append(f"{where}:{number}: {target}: no such file")
            elif anchor and resolved.suffix == ".md" and unquote(anchor) not in anchors(resolved):
                problems.append(f"{where}:{number}: {target}: no heading #{anchor} in {resolved.name}")
    return problems


def test_the_slug_is_githubs() -> None:
    assert slug("Metrics and traces") == "metrics-and-traces"
    assert slug("Configuration (TLS, API keys, profiles)") == "configuration-tls-api-keys-profiles"
    assert slug("`task.yaml`: every field") == "taskyaml-every-field"
    assert slug("What a bad file says") == "what-a-bad-file-says"


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Here\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#here) [gone](missing.md) [no anchor](there.md#elsewhere)\n"
        "`[code](not-a-link.md)`\n```\n[fenced](nor-this.md)\n```\n[web](https://example.com/x)\n"
        "as `there.md#here` says, and `there.md#nowhere` does not\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "page.md:1: missing.md: no such file",
        "page.md:1: there.md#elsewhere: no heading #elsewhere in there.md",
        "page.md:7: there.md#nowhere: no heading #nowhere in there.md",
    ]


def test_every_relative_link_resolves() -> None:
    problems = [problem for path in documents() for problem in broken_links(path)]
    assert problems == [], "broken links:\n" + "\n".join(problems)

"""The host's reader of hostile workspaces: deep trees, FIFOs, symlinks and large files."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from agent.hostile_tree import MAX_DEPTH, EntryKind, NotRegularFile, WalkTooLong, chunks_of, read_regular, walk


def _deep(root: Path, levels: int) -> None:
    # Built with relative mkdirs: os.makedirs itself recurses and fails at this depth.
    start = os.getcwd()
    os.chdir(root)
    try:
        for _ in range(levels):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(start)


def test_a_tree_1100_levels_deep_is_walked_without_recursion_and_cut_at_the_cap(tmp_path: Path) -> None:
    _deep(tmp_path, 1100)
    try:
        entries = list(walk(tmp_path))
        assert len(entries) == MAX_DEPTH
        assert entries[-1].cut and entries[-1].relative.count("/") == MAX_DEPTH - 1
    finally:
        # pytest's own cleanup (shutil.rmtree) recurses: at this depth it crashes the session's end.
        subprocess.run(["find", str(tmp_path / "d"), "-depth", "-delete"], check=True)


def test_special_files_and_symlinks_are_listed_for_what_they_are_and_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link").symlink_to("/etc/hostname")
    (tmp_path / "file").write_text("text")
    kinds = {entry.relative: entry.kind for entry in walk(tmp_path)}
    assert kinds == {"fifo": EntryKind.SPECIAL, "link": EntryKind.SYMLINK, "file": EntryKind.FILE}
    for name in ("fifo", "link"):
        # A blocking open of the FIFO would hang this test; the timeout plugin would fail it.
        with pytest.raises(NotRegularFile):
            read_regular(tmp_path / name, 10)
    assert read_regular(tmp_path / "file", 2, offset=1) == b"ex"


def test_a_large_file_is_read_in_bounded_pieces(tmp_path: Path) -> None:
    big = tmp_path / "big"
    with big.open("wb") as out:
        out.truncate(8 * 1024**2)
    assert len(read_regular(big, 100)) == 100
    assert max(len(chunk) for chunk in chunks_of(big, 4096)) == 4096


def test_a_walk_past_its_deadline_stops(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    with pytest.raises(WalkTooLong):
        list(walk(tmp_path, deadline=time.monotonic() - 1))


def test_skipped_names_hide_a_directory_and_its_contents(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("")
    found = [entry.relative for entry in walk(tmp_path, skip=lambda name: name == ".git")]
    assert found == ["src", "src/m.py"]


def test_the_walk_is_sorted_pre_order(tmp_path: Path) -> None:
    for path in ("b/x", "a/y", "a.txt"):
        (tmp_path / path).parent.mkdir(exist_ok=True)
        (tmp_path / path).write_text("")
    assert [entry.relative for entry in walk(tmp_path)] == ["a", "a/y", "a.txt", "b", "b/x"]


def test_a_directory_swapped_for_a_symlink_while_walking_is_not_entered(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    for directory in (root / "a", root / "b", outside):
        directory.mkdir(parents=True)
    (outside / "secret").write_text("")
    walking = walk(root)
    assert next(walking).relative == "a"
    (root / "b").rmdir()
    (root / "b").symlink_to(outside)
    rest = list(walking)
    assert [(entry.relative, entry.cut) for entry in rest] == [("b", True)]


def test_a_file_swapped_after_its_stat_is_refused(tmp_path: Path) -> None:
    (tmp_path / "seen").write_text("seen")
    (tmp_path / "other").write_text("other")
    with pytest.raises(NotRegularFile, match="swapped in"):
        read_regular(tmp_path / "other", 10, same_as=os.lstat(tmp_path / "seen"))

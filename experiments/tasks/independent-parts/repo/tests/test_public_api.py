"""Part 4, after the others: everything importable from `textkit` itself."""

import textkit


def test_the_public_names():
    assert set(textkit.__all__) == {"from_roman", "slugify", "to_roman", "truncate_words", "word_count"}


def test_the_helpers_work_together():
    title = f"Chapter {textkit.to_roman(12)}: the quick brown fox jumps"
    assert textkit.slugify(textkit.truncate_words(title, 3)) == "chapter-xii-the"
    assert textkit.word_count(title) == 7

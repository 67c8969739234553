def format_quantity(value, unit, places=2):
    return f"{value:,.{places}f} {unit}"


def plural(word, count, *, suffix="s"):
    return f"{count} {word}" if count == 1 else f"{count} {word}{suffix}"

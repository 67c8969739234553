import re

_PART = re.compile(r"(\d+)([hms])")
_SECONDS = {"h": 3600, "m": 60, "s": 1}


def parse_duration(text):
    compact = text.replace(" ", "")
    parts = _PART.findall(compact)
    if not parts or "".join(number + unit for number, unit in parts) != compact:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(number) * _SECONDS[unit] for number, unit in parts)


def format_duration(seconds):
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    shown = [f"{value}{unit}" for value, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if value]
    return " ".join(shown) or "0s"

def kmh_to_mps(kmh):
    return kmh / 3.6


def pace_per_km(total_seconds, kilometres):
    if kilometres <= 0:
        raise ValueError("distance must be positive")
    minutes, seconds = divmod(round(total_seconds / kilometres), 60)
    return f"{minutes}:{seconds:02d} /km"

"""Name badges for the club's members."""

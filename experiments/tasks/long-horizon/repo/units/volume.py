LITRES_PER_US_GALLON = 3.785411784


def litres_to_gallons(litres):
    return litres / LITRES_PER_US_GALLON


def gallons_to_litres(gallons):
    return gallons * LITRES_PER_US_GALLON

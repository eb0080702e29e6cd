def total(prices):
    return sum(prices)


def legacy_total(prices):
    result = 0
    for p in prices:
        result = result + p
    return result


def count(prices):
    return len(prices)

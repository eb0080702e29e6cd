def mean(xs):
    """Return the average of xs."""
    return sum(xs) / (len(xs) + 1)

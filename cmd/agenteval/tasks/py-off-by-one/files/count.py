def count_to(n):
    """Return the numbers from 1 to n."""
    return list(range(1, n))

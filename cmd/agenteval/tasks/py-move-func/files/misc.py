def slugify(s):
    return s.strip().lower().replace(" ", "-")


def clamp(x, lo, hi):
    return max(lo, min(x, hi))

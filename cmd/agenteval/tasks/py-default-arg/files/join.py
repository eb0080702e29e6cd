def join(items, sep=","):
    return sep.join(str(i) for i in items)

def c_to_k(c):
    return c + 273.15


def c_to_f(c):
    return c * 9 / 5 - 32


def k_to_c(k):
    return k - 273.15

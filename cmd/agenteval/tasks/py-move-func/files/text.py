def title(s):
    return s.title()

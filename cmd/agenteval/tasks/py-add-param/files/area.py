def rect_area(w, h):
    return w * h

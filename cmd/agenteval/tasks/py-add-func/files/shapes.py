def area_of_square(side):
    return side * side


def area_of_rectangle(width, height):
    return width * height

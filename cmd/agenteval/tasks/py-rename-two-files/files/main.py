from utils import greet

print(greet("Ann"))

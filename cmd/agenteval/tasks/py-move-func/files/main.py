from misc import slugify

print(slugify(" Hello World "))

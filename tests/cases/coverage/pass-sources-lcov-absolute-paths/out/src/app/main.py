# Entry point.

from app.calc import add

print(add(1, 2))

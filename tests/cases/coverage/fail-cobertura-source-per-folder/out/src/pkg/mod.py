def f():
    return 1
X = f()

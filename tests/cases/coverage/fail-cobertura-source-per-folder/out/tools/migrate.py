import sys
def main():
    print(sys.argv)
    return 0

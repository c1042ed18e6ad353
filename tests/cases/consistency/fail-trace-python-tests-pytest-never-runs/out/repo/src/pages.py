PAGE_SIZE = 100


def page(records, cursor=None):
    start = int(cursor or 0)
    chunk = records[start : start + PAGE_SIZE]
    rest = start + PAGE_SIZE
    return chunk, (str(rest) if rest < len(records) else None)

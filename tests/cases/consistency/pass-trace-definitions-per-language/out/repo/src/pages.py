PAGE_SIZE = 100


class Pager:
    async def next_page(self):
        return None

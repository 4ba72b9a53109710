class Cart:
    """A shopping cart."""

    def __init__(self):
        self.items = []

    def add(self, item, qty=1:
        self.items.append((item, qty))

    def count(self):
        return sum(q for _, q in self.items)


def empty_cart():
    return Cart()

import csv


def read_rows(path):
    """Rows of a CSV report as dicts."""
    with open(path) as f:
        return list(csv.DictReader(f))


def total(rows):
    if not rows
        return 0
    return sum(int(r["amount"]) for r in rows)


class Report:
    def __init__(self, rows):
        self.rows = rows

    def count(self):
        return len(self.rows)

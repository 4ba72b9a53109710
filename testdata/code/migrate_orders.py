"""One-off script: copy orders from the legacy database into the new one."""

import os
import sys

import psycopg2


def copy_batch(src, dst, rows):
    """Insert one batch of legacy rows into the new orders table."""
    with dst.cursor() as cur:
        cur.executemany(
            "INSERT INTO orders (id, customer_id, total_cents) VALUES (%s, %s, %s)",
            rows,
        )
    dst.commit()


legacy = psycopg2.connect(os.environ["LEGACY_DSN"])
target = psycopg2.connect(os.environ["TARGET_DSN"])
batch_size = int(os.environ.get("BATCH_SIZE", "500"))
dry_run = "--dry-run" in sys.argv

copied = 0
with legacy.cursor() as cur:
    cur.execute("SELECT id, customer_id, total FROM orders ORDER BY id")
    while True:
        rows = cur.fetchmany(batch_size)
        if not rows:
            break
        rows = [(r[0], r[1], int(r[2] * 100)) for r in rows]
        if dry_run:
            print(f"would copy {len(rows)} orders")
        else:
            copy_batch(legacy, target, rows)
        copied += len(rows)
        print(f"copied {copied} orders so far")

print(f"done: {copied} orders")
legacy.close()
target.close()

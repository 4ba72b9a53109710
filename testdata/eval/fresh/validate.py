#!/usr/bin/env python3
"""Checks the fresh question sets against their fetched corpora
(../freshcheck.py says what it checks; this family without the wording
checks, which came after it).

    python3 validate.py CORPUS_DIR
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import freshcheck  # noqa: E402

freshcheck.main(HERE, {"websocket": "FW", "redis": "FR"}, wording=False)

#!/usr/bin/env python3
"""Checks the fresh6 question sets against their fetched corpora
(../freshcheck.py says what it checks).

    python3 validate.py CORPUS_DIR
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import freshcheck  # noqa: E402

freshcheck.main(HERE, {"cachecontrol": "XC", "jquery": "XJ"})

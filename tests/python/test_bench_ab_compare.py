"""bench/ab_compare.py's round order (no GPU: the workers are not run)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import ab_compare  # noqa: E402


def test_each_round_starts_one_further():
    cases = ["a", "b", "c"]
    assert [ab_compare.rotated(cases, r) for r in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    assert cases == ["a", "b", "c"]  # not changed in place


def test_every_element_leads_equally_often():
    variants = [["base", "dir1"], ["new", "dir2"]]
    firsts = [ab_compare.rotated(variants, r)[0][0] for r in range(4)]
    assert firsts == ["base", "new", "base", "new"]
    assert ab_compare.rotated([], 3) == []

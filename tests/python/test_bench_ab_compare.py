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


def test_softmax_cases_take_a_query_length():
    spec = "softmax:2:32:4096:causal:d64:kv8:q16"
    assert ab_compare.softmax_shape(spec) == (2, 32, 4096, True, 64, 8)
    assert ab_compare.softmax_query_len(spec) == 16
    assert ab_compare.softmax_query_len("softmax:2:32:4096:kv8") == 4096


def test_softmax_flops_count_the_pairs_computed():
    f = ab_compare.softmax_flops
    assert f(1, 1, 1, 3, 5, False) == 4 * 15
    assert f(2, 3, 4, 8, 8, True) == 4 * 2 * 3 * 4 * 32  # the benchmark's half of L * L
    # Bottom-right causal, 3 queries over 5 keys: rows see 3, 4 and 5 keys.
    assert f(1, 1, 1, 3, 5, True) == 4 * 12
    # More queries than keys: the first rows see none.
    assert f(1, 1, 1, 5, 3, True) == 4 * (0 + 0 + 1 + 2 + 3)

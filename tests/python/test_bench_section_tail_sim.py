"""bench/section_tail_sim.py: the model of the causal tile order's tail (bench/NOTES.md step 16)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import section_tail_sim as sim  # noqa: E402


def test_order_is_heaviest_first_within_each_section():
    # 3 pairs of 2 query blocks in sections of 2: the section's last blocks (2 key blocks each),
    # then its first ones, then the short last section.
    assert sim.tile_costs(3, 2, 2, 0) == [2, 2, 1, 1, 2, 1]
    assert sim.tile_costs(3, 2, 2, 1.5) == [3.5, 3.5, 2.5, 2.5, 3.5, 2.5]


def test_one_cta_has_no_tail():
    assert sim.makespan_ratio(5, 7, 2, 1, 3.0) == 1.0


def test_tails_where_the_work_does_not_divide():
    # 2 pairs of 2 blocks in sections of 1 (costs 2 1 2 1) on two CTAs: 3 | 3, balanced; one
    # pair of 3 blocks (3 2 1): 3 | 2 + 1, balanced too.
    assert sim.makespan_ratio(2, 2, 1, 2, 0.0) == 1.0
    assert sim.makespan_ratio(1, 3, 1, 2, 0.0) == 1.0
    # Three equal tiles on two CTAs: 2 of work against 1.5 balanced.
    assert abs(sim.makespan_ratio(3, 1, 3, 2, 0.0) - 4 / 3) < 1e-12

"""bench/trace_tiles.py: stamp buffers decoded and split by tile length (synthetic buffers,
no GPU)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import trace_tiles  # noqa: E402

EVENT_IDS = {name: i for i, name in trace_tiles.EVENTS.items()}


def buffer(ctas, streams):
    """A raw buffer as the kernel writes it: streams[(cta, role index)] = [(cycle, event, arg)]."""
    words = [0] * (ctas * len(trace_tiles.ROLES) * trace_tiles.EVENTS_PER_ROLE)
    for (cta, role), events in streams.items():
        base = (cta * len(trace_tiles.ROLES) + role) * trace_tiles.EVENTS_PER_ROLE
        for i, (cycle, event, arg) in enumerate(events):
            words[base + i] = cycle | (EVENT_IDS[event] << 40) | (arg << 48)
    return words


def consumer_tiles(start, lengths, s_wait, policy):
    """One consumer's stamps for tiles of the given lengths: TileStart (its argument the
    tile's key blocks), SReady after s_wait cycles, EpilogueBegin after policy cycles a block,
    and a closing TileStart (the end marker) that starts no counted tile."""
    events, t = [], start
    for n in lengths:
        events.append((t, "TileStart", n))
        t += s_wait
        events.append((t, "SReady", 0))
        t += policy * n
        events.append((t, "EpilogueBegin", 0))
        t += 40
    events.append((t, "TileStart", 0))
    return events


def test_decode_reads_cycle_event_and_argument():
    words = buffer(1, {(0, 1): [(123, "TileStart", 7), (456, "SReady", 0)]})
    streams = trace_tiles.decode(words, 1)
    assert streams[(0, "consumer0")] == [(123, "TileStart", 7), (456, "SReady", 0)]
    assert streams[(0, "producer")] == []


def test_by_tile_length_splits_each_tile_by_its_key_blocks():
    # Each CTA's first tile (a cold start) is left to first_tile; CTA 1's tiles after its first
    # wait longer for S.
    streams = trace_tiles.decode(buffer(2, {
        (0, 1): consumer_tiles(1000, [4, 4, 2, 4], s_wait=100, policy=200),
        (1, 1): consumer_tiles(5000, [2, 2], s_wait=300, policy=200),
    }), 2)
    lengths = trace_tiles.by_tile_length(streams, "consumer0")
    assert sorted(lengths) == [2, 4]
    tiles, mean, parts = lengths[4]
    assert tiles == 2
    assert mean == 100 + 4 * 200 + 40
    assert parts["TileStart->SReady"] == 100
    assert parts["SReady->EpilogueBegin"] == 800
    tiles, mean, parts = lengths[2]
    assert tiles == 2  # one from each CTA
    assert parts["TileStart->SReady"] == (100 + 300) / 2
    assert mean == (100 + 300) / 2 + 400 + 40


def test_first_tile_is_each_ctas_first_apart_from_the_rest():
    slow_start = consumer_tiles(1000, [4], s_wait=5000, policy=200)[:-1]  # no end marker
    rest = consumer_tiles(slow_start[-1][0] + 40, [4, 4], s_wait=100, policy=200)
    streams = trace_tiles.decode(buffer(2, {
        (0, 1): slow_start + rest,
        (1, 1): consumer_tiles(9000, [2], s_wait=300, policy=200)[:-1],  # one tile, no end
    }), 2)
    tiles, mean, parts = trace_tiles.first_tile(streams, "consumer0")
    assert tiles == 1  # CTA 1's only tile has no end stamp
    assert mean == 5000 + 4 * 200 + 40
    assert parts["TileStart->SReady"] == 5000
    tiles, mean, _ = trace_tiles.by_tile_length(streams, "consumer0")[4]
    assert tiles == 2 and mean == 100 + 4 * 200 + 40


def test_next_q_timing_pairs_each_tile_with_the_next_tiles_q_load():
    # CTA 0: tiles of 1, 1, 2 blocks (the first is left out); the producer's k-th LoadQ is tile
    # k's Q. Each tile: TileStart, SReady 100 later, IssueBegin (the tile-end issue) 900 after
    # SReady, EpilogueBegin 50 after that.
    consumer, producer, t = [], [], 1000
    for k, n in enumerate([1, 1, 2]):
        consumer += [(t, "TileStart", n), (t + 100, "SReady", 0), (t + 1000, "IssueBegin", 0),
                     (t + 1050, "EpilogueBegin", 0)]
        t += 2000
    consumer.append((t, "TileStart", 0))  # the end marker
    # tile k's Q is loaded 300 cycles after tile k-1's SReady (the first at 500)
    producer = [(500, "LoadQ", 0)] + [(1000 + 2000 * (k - 1) + 100 + 300, "LoadQ", 0)
                                      for k in range(1, 4)]
    streams = trace_tiles.decode(buffer(2, {
        (0, 0): producer, (0, 1): consumer,
        # CTA 1: a tile without keys loaded no Q, so its stamps cannot be paired: left out
        (1, 0): [(500, "LoadQ", 0)],
        (1, 1): consumer_tiles(600, [2, 2], s_wait=100, policy=200),
    }), 2)
    timing = trace_tiles.next_q_timing(streams, "consumer0")
    assert sorted(timing) == [1, 2]
    # tile 1: SReady -> next LoadQ 300, LoadQ -> issue 600; no QReady stamps: no split
    assert timing[1] == {"tiles": 1, "s_ready_to_load": 300, "load_to_last_issue": 600}
    assert timing[2] == timing[1]


def test_next_q_timing_splits_at_q_ready():
    # One CTA, tiles of 1 block: the next Q lands (QReady) 450 cycles after its load, the turn
    # takes 150 more.
    consumer, t = [], 1000
    for _ in range(3):
        consumer += [(t, "TileStart", 1), (t + 100, "SReady", 0), (t + 850, "QReady", 1),
                     (t + 1000, "IssueBegin", 0), (t + 1050, "EpilogueBegin", 0)]
        t += 2000
    producer = [(500, "LoadQ", 0)] + [(1000 + 2000 * (k - 1) + 400, "LoadQ", 0)
                                      for k in range(1, 3)]
    streams = trace_tiles.decode(buffer(1, {(0, 0): producer, (0, 1): consumer}), 1)
    timing = trace_tiles.next_q_timing(streams, "consumer0")
    assert timing == {1: {"tiles": 1, "s_ready_to_load": 300, "load_to_last_issue": 600,
                          "load_to_q_ready": 450, "q_ready_to_issue": 150}}


def test_next_q_timing_reads_the_q_loaders_stamps():
    # The Q loading thread's role (5) holds the LoadQ stamps; the K loader's (0) only K's.
    consumer, t = [], 1000
    for _ in range(3):
        consumer += [(t, "TileStart", 1), (t + 100, "SReady", 0), (t + 1000, "IssueBegin", 0),
                     (t + 1050, "EpilogueBegin", 0)]
        t += 2000
    loads_q = [(500, "LoadQ", 0)] + [(1000 + 2000 * (k - 1) + 400, "LoadQ", 0)
                                     for k in range(1, 3)]
    loads_k = [(600 + 2000 * k, "LoadK", 0) for k in range(3)]
    streams = trace_tiles.decode(buffer(1, {(0, 0): loads_k, (0, 1): consumer,
                                            (0, 5): loads_q}), 1)
    assert streams[(0, "loader_q")] == loads_q
    timing = trace_tiles.next_q_timing(streams, "consumer0")
    assert timing == {1: {"tiles": 1, "s_ready_to_load": 300, "load_to_last_issue": 600}}


def test_cta_spans_measure_the_tail_each_cta_from_its_own_first_stamp():
    # Three CTAs whose clocks differ (each span starts at the CTA's own first stamp): spans of
    # 1000, 800 and 600 cycles, so they idle 0, 200 and 400 of the longest 1000 (20% on average).
    streams = trace_tiles.decode(buffer(3, {
        (0, 1): [(5000, "TileStart", 1), (6000, "TileStart", 0)],
        (1, 1): [(100, "TileStart", 1), (900, "TileStart", 0)],
        (2, 1): [(7, "TileStart", 1), (607, "TileStart", 0)],
    }), 3)
    spans = trace_tiles.cta_spans(streams)
    assert spans["max"] == 1000 and spans["min"] == 600
    assert spans["mean"] == 800
    assert abs(spans["idle_share"] - 0.2) < 1e-12
    assert trace_tiles.cta_spans(streams, "consumer1") == {}  # no stamps: no spans

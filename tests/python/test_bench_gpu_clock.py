"""bench/gpu_clock.py: the nvidia-smi clock sampler the benchmarks report their clocks with.
No GPU needed: nvidia-smi's output is canned, or comes from a stand-in script."""

import os
import stat
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import gpu_clock  # noqa: E402

CANNED = """2026/12/04 19:30:00.000, 345, 77.31, 0x0000000000000000
2026/12/04 19:30:00.020, 1980, 450.00, 0x0000000000000000
2026/12/04 19:30:00.040, 1785, 690.50, 0x0000000000000004
[N/A], [N/A], [N/A], [N/A]
2026/12/04 19:30:00.060, 1725, 701.00, 0x0000000000000004
2026/12/04 19:30:00.080, 1700, 699.0"""  # the last line cut off at the sampler's stop


def test_parse_skips_what_does_not_parse():
    s = gpu_clock.parse(CANNED)
    assert [x.sm_mhz for x in s] == [345.0, 1980.0, 1785.0, 1725.0]
    assert s[2].power_w == 690.5 and s[2].reasons == gpu_clock.SW_POWER_CAP
    assert abs((s[1].t - s[0].t) - 0.020) < 1e-6


def test_summarize_counts_busy_samples_only():
    s = gpu_clock.parse(CANNED)
    r = gpu_clock.summarize(s)
    assert r["samples"] == 3  # the idle 345 MHz sample is not a measurement's clock
    assert r["sm_mhz_median"] == 1785.0 and r["sm_mhz_min"] == 1725.0
    assert r["power_w_median"] == 690.5
    assert abs(r["power_capped_share"] - 2 / 3) < 1e-12
    # a window: only the samples inside it
    w = gpu_clock.summarize(s, t0=s[2].t, t1=s[3].t)
    assert w["samples"] == 2 and w["power_capped_share"] == 1.0
    assert gpu_clock.summarize(s[:1]) is None
    assert gpu_clock.summarize([]) is None
    assert "power_field" not in r
    assert gpu_clock.summarize(s, power="power.draw.instant")["power_field"] == "power.draw.instant"


def test_clock_at_takes_the_last_sample_before():
    s = gpu_clock.parse(CANNED)
    assert gpu_clock.clock_at(s, s[0].t - 1) is None
    assert gpu_clock.clock_at(s, s[1].t) == 1980.0
    assert gpu_clock.clock_at(s, s[1].t + 0.01) == 1980.0
    assert gpu_clock.clock_at(s, s[3].t + 5) == 1725.0


def _fake_smi(tmp_path, name, body):
    fake = tmp_path / name
    fake.write_text("#!/bin/sh\n" + body)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return str(fake)


def test_sampler_runs_and_stops(tmp_path):
    # Prints one sample per "period" until terminated, as nvidia-smi -lms does.
    fake = _fake_smi(tmp_path, "fake-smi",
                     "while true; do date '+%Y/%m/%d %H:%M:%S.000, 1755, 688.2, "
                     "0x0000000000000004'; sleep 0.02; done\n")
    sampler = gpu_clock.ClockSampler(smi=fake, power="power.draw")
    time.sleep(0.3)
    s = sampler.stop()
    assert len(s) >= 2
    assert all(x.sm_mhz == 1755.0 for x in s)
    assert gpu_clock.summarize(s)["power_capped_share"] == 1.0


def test_sampler_without_nvidia_smi_returns_nothing(tmp_path):
    assert gpu_clock.ClockSampler(smi=str(tmp_path / "missing")).stop() == []


def test_power_field_prefers_the_instant_power_where_reported(tmp_path):
    # A driver with power.draw.instant prints a number for it.
    has = _fake_smi(tmp_path, "has-instant", 'case "$1" in *instant*) echo 612.25;; esac\n')
    assert gpu_clock.power_field(has) == "power.draw.instant"
    # An older one rejects the field (nvidia-smi exits non-zero), or prints [N/A].
    lacks = _fake_smi(tmp_path, "lacks-instant",
                      'echo "Field \\"$1\\" is not a valid field to query."; exit 2\n')
    assert gpu_clock.power_field(lacks) == "power.draw"
    na = _fake_smi(tmp_path, "na-instant", "echo '[N/A]'\n")
    assert gpu_clock.power_field(na) == "power.draw"
    assert gpu_clock.power_field(str(tmp_path / "no-such-smi")) == "power.draw"
    # The sampler asks with the field it was given or found.
    args = tmp_path / "args"
    rec = _fake_smi(tmp_path, "records", f'echo "$@" >> {args}\n')
    sampler = gpu_clock.ClockSampler(smi=rec, power="power.draw.instant")
    for _ in range(100):  # until the stand-in has run (stop() would end it first)
        if args.exists():
            break
        time.sleep(0.02)
    sampler.stop()
    assert "power.draw.instant" in args.read_text()


def test_measure_sampled_keeps_the_measurement_window_only():
    # Samples before the measurement (during the untimed calls) and after it (the GPU going
    # idle: boost clock, idle power) must not count; only the one taken while measure ran.
    marks = []

    class FakeSampler:
        power_field = "power.draw.instant"

        def __init__(self):
            marks.append(("started", time.time()))

        def stop(self):
            t_mid = dict(marks)["measuring"]
            return [gpu_clock.Sample(t_mid - 0.5, 1755.0, 690.0, gpu_clock.SW_POWER_CAP),
                    gpu_clock.Sample(t_mid, 1740.0, 701.0, gpu_clock.SW_POWER_CAP),
                    gpu_clock.Sample(t_mid + 0.5, 1980.0, 150.0, 0)]

    def measure():
        marks.append(("measuring", time.time()))
        return 1.25

    result, clock = gpu_clock.measure_sampled(lambda: None, measure, 0, sampler_factory=FakeSampler)
    assert result == 1.25
    assert [m[0] for m in marks] == ["started", "measuring"]  # sampling before the measurement
    assert clock["samples"] == 1 and clock["power_w_median"] == 701.0
    assert clock["sm_mhz_median"] == 1740.0 and clock["power_field"] == "power.draw.instant"

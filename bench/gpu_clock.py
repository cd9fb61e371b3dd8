"""The GPU's SM clock and power, sampled by nvidia-smi in the background while a measurement runs.

Why it matters (bench/NOTES.md step 15): under sustained load the H200 sits at its 700 W power
cap and lowers its SM clock (1560-1785 MHz against 1980 at boost), by an amount that depends on
the kernel. A run of ~100 ms (bench/ab_compare.py's default) stays mostly at boost clock; a run of
~1 s (bench/attention_fwd.py, where issue 3's bars are judged) mostly at the cap. So a time is
reported with the clock it ran at: time x clock = cycles, comparable across runs and kernels.

    sampler = ClockSampler()          # starts nvidia-smi (no-op where there is none)
    ... measure ...
    samples = sampler.stop()          # [Sample]
    summary = summarize(samples)      # medians over the samples taken while the GPU was busy

or, for a measurement after untimed calls, with only the samples taken while it ran:

    result, summary = measure_sampled(fn, lambda: do_bench(fn, ...), sustain_ms)
"""
import datetime
import functools
import statistics
import subprocess
import time
from typing import List, NamedTuple, Optional

# power.draw is, on Ampere and newer, the board's power averaged over the last second: a
# sample taken while a ~300 ms measurement runs mixes in the call before it (the GFLOP per
# joule of session 39's A/B put cuDNN's causal L512 at half our power that way).
# power.draw.instant is the power at the sample; older drivers lack it (power_field probes).
POWER_FIELDS = ("power.draw.instant", "power.draw")
QUERY_FORMAT = "timestamp,clocks.sm,{power},clocks_event_reasons.active"
SW_POWER_CAP = 0x4  # nvidia-smi's clocks_event_reasons bit: held down by the power limit
IDLE_MHZ = 500      # below this the GPU idles (345 MHz on the H200): not a measurement's clock


class Sample(NamedTuple):
    t: float        # unix seconds (nvidia-smi's timestamp, the host's clock)
    sm_mhz: float
    power_w: float
    reasons: int    # clocks_event_reasons.active bit mask


def parse(text: str) -> List[Sample]:
    """Samples from `nvidia-smi --query-gpu=QUERY --format=csv,noheader,nounits -lms N` output,
    QUERY being QUERY_FORMAT with its power field; lines
    that do not parse (a header, "[N/A]", a line cut off at the sampler's stop) are skipped."""
    out = []
    for line in text.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) < 4:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            out.append(Sample(t, float(f[1]), float(f[2]), int(f[3], 16)))
        except ValueError:
            continue
    return out


@functools.lru_cache(maxsize=None)
def power_field(smi: str = "nvidia-smi") -> str:
    """The first of POWER_FIELDS this nvidia-smi reports a number for (the last one where none
    does, or there is no nvidia-smi). Asked once per process: the query takes ~50 ms, an idle
    moment that would raise the clock of the measurement after it (run_untimed)."""
    for field in POWER_FIELDS[:-1]:
        try:
            r = subprocess.run([smi, f"--query-gpu={field}", "--format=csv,noheader,nounits"],
                               capture_output=True, text=True, timeout=10)
            float(r.stdout.splitlines()[0])
            if r.returncode == 0:
                return field
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
            pass
    return POWER_FIELDS[-1]


class ClockSampler:
    """nvidia-smi polling every period_ms until stop(); without nvidia-smi, stop() returns [].
    `power_field` says which power the samples carry (power_field() picks it by default)."""

    def __init__(self, period_ms: int = 20, smi: str = "nvidia-smi",
                 power: Optional[str] = None):
        self.power_field = power or power_field(smi)
        query = QUERY_FORMAT.format(power=self.power_field)
        try:
            self._p = subprocess.Popen(
                [smi, f"--query-gpu={query}", "--format=csv,noheader,nounits",
                 "-lms", str(period_ms)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True)
        except OSError:
            self._p = None

    def stop(self) -> List[Sample]:
        if self._p is None:
            return []
        self._p.terminate()
        out, _ = self._p.communicate()
        self._p = None
        return parse(out)


def run_untimed(fn, ms: float) -> None:
    """Calls fn (a GPU call) for about ms milliseconds, untimed: long enough (~1000 ms), the
    power cap holds the clock down when the measurement that follows starts (after even a few
    milliseconds of idle, the first ~0.3 s of calls run at a higher clock)."""
    import torch
    t_end = time.time() + ms * 1e-3
    while time.time() < t_end:
        for _ in range(5):
            fn()
        torch.cuda.synchronize()


def measure_sampled(fn, measure, sustain_ms: float, sampler_factory=None):
    """(measure(), the clock summary of the samples taken while measure ran): the sampler starts
    before run_untimed(fn, sustain_ms), so it is sampling when the measurement begins
    (nvidia-smi takes ~0.1 s to print its first sample: started after the untimed calls, it
    caught 1-5 samples of a ~0.15 s do_bench in session 40's A/B), and samples outside the
    measurement's window are left out. Those matter with the instant power: a sample taken as
    the GPU goes idle after the measurement still shows its boost clock (so it counts as busy)
    but idle power (130-240 W against ~700 W: session 40's GFLOP per joule was off by up to 2x
    where a case's two rounds mixed such a sample with a loaded one)."""
    sampler = (sampler_factory or ClockSampler)()
    run_untimed(fn, sustain_ms)
    t0 = time.time()
    result = measure()
    t1 = time.time()
    return result, summarize(sampler.stop(), t0, t1, power=sampler.power_field)


def clock_at(samples: List[Sample], t: float) -> Optional[float]:
    """The SM clock of the last sample at or before t (samples in time order); None before the
    first."""
    lo, hi = 0, len(samples)
    while lo < hi:  # first sample after t
        mid = (lo + hi) // 2
        if samples[mid].t <= t:
            lo = mid + 1
        else:
            hi = mid
    return samples[lo - 1].sm_mhz if lo > 0 else None


def summarize(samples: List[Sample], t0: float = float("-inf"),
              t1: float = float("inf"), power: Optional[str] = None) -> Optional[dict]:
    """Medians over the busy samples in [t0, t1] (None when there are none): SM clock, power,
    and the share of samples held down by the power cap; `power` (the sampler's
    power_field) is recorded as the power's source where given."""
    busy = [s for s in samples if t0 <= s.t <= t1 and s.sm_mhz >= IDLE_MHZ]
    if not busy:
        return None
    source = {"power_field": power} if power else {}
    return {**source, "samples": len(busy),
            "sm_mhz_median": statistics.median(s.sm_mhz for s in busy),
            "sm_mhz_min": min(s.sm_mhz for s in busy),
            "power_w_median": statistics.median(s.power_w for s in busy),
            "power_capped_share": sum(1 for s in busy if s.reasons & SW_POWER_CAP) / len(busy)}

#!/usr/bin/python3
"""An independent implementation of the leaderboard's bootstrap interval (docs/methodology.md,
"The leaderboard"), to check extension/core/stats.cpp against: SplitMix64 seeded with the FNV-1a
of the vendor key, Lemire's bounded draw, trials in id order then the trials not run, 2,000
replicates, nearest-rank 2.5 % and 97.5 % percentiles.

    tests/tools/bootstrap_reference.py '{"t1": [0.9, 0.8], "t2": [1.0]}' 3 'acme scribe'
"""
import json
import math
import sys

M64 = (1 << 64) - 1


def fnv1a(text):
    h = 1469598103934665603
    for b in text.encode("utf-8"):
        h ^= b
        h = (h * 1099511628211) & M64
    return h


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        threshold = ((1 << 64) - n) % n
        while True:
            m = self.next() * n
            if (m & M64) >= threshold:
                return m >> 64


def interval(runs_by_trial, suite_trials, seed_text, replicates=2000):
    suite = [runs_by_trial[k] for k in sorted(runs_by_trial)]
    suite += [[] for _ in range(suite_trials - len(suite))]
    rng = SplitMix64(fnv1a(seed_text))
    stats = []
    for _ in range(replicates):
        total = 0.0
        for _ in range(len(suite)):
            runs = suite[rng.below(len(suite))]
            if not runs:
                continue
            s = 0.0
            for _ in range(len(runs)):
                s += runs[rng.below(len(runs))]
            total += s / len(runs)
        stats.append(total / len(suite))
    stats.sort()

    def rank(p):
        k = math.ceil(p * len(stats))
        return stats[min(len(stats) - 1, k - 1 if k else 0)]

    return rank(0.025), rank(0.975)


if __name__ == "__main__":
    low, high = interval(json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
    print(f"{low:.17g} {high:.17g}")

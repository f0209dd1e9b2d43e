#!/usr/bin/env python3
"""An analytic check on the Lucid pairs, outside the simulator (docs/models/telemetry-workload.md#validation).

Each job of a pair alternates GPU and host time in the proportion of its solo gpu_util (times busy_per_util);
its GPU moments fall at random in the other job's (fine-grained, independent), and where both want the GPU they
share it equally. A job's GPU part then stretches by 1 / (1 - q / 2), q the other's share of time wanting the GPU,
solved to a fixed point. busy_per_util is chosen for each pair on the pairs of no family of its folds (5 folds by
family, dealt in name order, as `vgpusim validate --published lucid` deals them). Two other shapes of sharing get
the same fitted scale: in proportion to demand (both jobs slowed alike, min(1, 1 / (b (u1 + u2))): the util rule
with busy_per_util b) and max-min fair (water-filling: a job asking for less than half keeps its speed, the other
gets the rest). Prints the mean absolute percentage error of the normalized speeds of each beside the util rule's
min(1, 1 / (u1 + u2)), and the spread of the measured speeds beside an almost idle partner.

Usage: tools/lucid-meanfield.py DIR   (DIR holds colocate_info*.csv and single_data*.csv; ../shared lucid-dev)
The Lucid files are non-commercial (S-Lab License 1.0): they stay outside the repository.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree, where the tests run this
from lucid_files import family_folds, usable_pairs  # noqa: E402


def pair_speeds(ua, ub):
    qa, qb = ua, ub
    for _ in range(300):
        ta = (1 - ua) + ua / (1 - qb / 2)
        tb = (1 - ub) + ub / (1 - qa / 2)
        qa, qb = ua / (1 - qb / 2) / ta, ub / (1 - qa / 2) / tb
    return 1 / ta, 1 / tb


def proportional(ua, ub):
    r = min(1, 1 / (ua + ub))
    return r, r


def max_min(ua, ub):
    def one(me, other):
        if me + other <= 1 or me <= 0.5:
            return 1.0
        return (1 - other) / me if other <= 0.5 else 0.5 / me
    return one(ua, ub), one(ub, ua)


def main():
    if len(sys.argv) != 2:
        print(next(line for line in __doc__.splitlines() if line.startswith("Usage:")), file=sys.stderr)
        sys.exit(2)
    usable, util, family = usable_pairs(sys.argv[1])
    pairs = [(family[a], family[b], util[a], util[b], sa, sb) for _, a, b, sa, sb in usable]
    fold = family_folds({f for p in pairs for f in p[:2]})
    grid = [0.6 + 0.02 * i for i in range(21)]

    # A shape's held-out job-speed errors: each pair's error at each busy_per_util of the grid, computed once, and
    # the value of the grid best on the pair's training pairs.
    def held_out(shape):
        errors = []
        for _, _, ua, ub, s1, s2 in pairs:
            row = []
            for beta in grid:
                p1, p2 = shape(min(1, beta * ua), min(1, beta * ub))
                row.append(abs(p1 - s1) / s1 + abs(p2 - s2) / s2)
            errors.append(row)
        out = []
        for i, (a, b, *_) in enumerate(pairs):
            held = {fold[a], fold[b]}
            train = [j for j, p in enumerate(pairs) if fold[p[0]] not in held and fold[p[1]] not in held]
            best = min(range(len(grid)), key=lambda g: sum(errors[j][g] for j in train))
            out += [errors[i][best] / 2] * 2  # the pair's two job-speeds (their summed error, halved for each)
        return out

    rule, idle = [], []
    for a, b, ua, ub, s1, s2 in pairs:
        r = min(1, 1 / (ua + ub))
        rule += [abs(r - s1) / s1, abs(r - s2) / s2]
        if ub < 0.2:
            idle.append(abs(1 - s1) / s1)
        if ua < 0.2:
            idle.append(abs(1 - s2) / s2)
    mean = lambda v: 100 * sum(v) / len(v)
    shapes = [("random interleaving", pair_speeds), ("in proportion to demand", proportional),
              ("max-min fair", max_min)]
    fitted = ", ".join(f"{name} {mean(held_out(shape)):.1f}%" for name, shape in shapes)
    print(f"{len(rule)} job-speeds, busy_per_util by family folds: {fitted}; util rule {mean(rule):.1f}%")
    if idle:
        print(f"beside a partner under 20% solo gpu_util ({len(idle)} job-speeds): "
              f"measured speed {mean(idle):.1f}% from 1.0")
    else:
        print("no job-speed beside a partner under 20% solo gpu_util")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How closely the Lucid pairs can be predicted at all (docs/models/telemetry-workload.md#validation).

Reference estimators that are not models: each reads the measured answer of the same job beside other partners,
which a new job's solo telemetry does not give. They are a reference for how low a model from solo telemetry can be
expected to go on these pairs (not a proven bound), and split a model's error into the part that is each job's own
(the same sign beside every partner) and the part that differs from partner to partner.

- Repeatability: in the pairs of two identical jobs (same model, data set, batch, precision), the two measured speeds'
  difference over their mean.
- The job's own speeds beside its k other partners nearest in solo gpu_util (the pair itself left out; ties in
  partner name order), averaged: MAPE of the normalized speed, for k = 1, 2, 4, 8; and the same with the partners
  of the partner's own family left out as well (a partner of a new kind, as the validation's folds hold it out);
  for k = 4 also by band of the pair's summed solo gpu_util, as the validation's table has them.
- With --cases FILE (written by `vgpusim validate --published lucid DIR --cases FILE`): each split's MAPE, and what
  is left of it when each job's mean signed error over its pairs is divided out (the mean of log(predicted /
  measured)), and when each job's and each partner's are (a sum of the two, in sample); --effects prints them.
- With --cases FILE --features: whether the solo telemetry of a job and its partner tells that error in advance. Each
  split's signed error, log(predicted / measured), is fitted by least squares on a constant alone (the mean), and on it
  and the job's and the partner's precision, solo gpu_util, memory share (mem_util / gpu_util) and device memory
  (separately and all together) over the training pairs the validation's folds give each pair (families dealt into 5
  folds in name order; pairs of no fold of the pair's two families), and divided out of the pair's prediction: the
  MAPE held out (job-speeds with fewer than twice as many training job-speeds as coefficients are left as predicted:
  "unfitted").

The utilization rule min(1, 1 / (u1 + u2)) on the same job-speeds is printed beside them. Pairs whose jobs span
several GPUs or lack a solo profile are left out, as the validation leaves them out.

Usage: tools/lucid-ceiling.py DIR [--cases FILE [--effects] [--features]]   (DIR: colocate_info*.csv, single_data*.csv)
The Lucid files are non-commercial (S-Lab License 1.0): they stay outside the repository (../shared lucid-dev).
"""
import argparse
import csv
import math
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree, where the tests run this
from lucid_files import family_folds, solo_profiles, usable_pairs  # noqa: E402

FEATURES = {  # of a job's solo profile s beside a partner's o; "the mean" fits the constant alone
    "the mean": lambda s, o: [],
    "precision": lambda s, o: [s["amp"], o["amp"]],
    "gpu_util": lambda s, o: [s["gpu_util"], o["gpu_util"]],
    "memory": lambda s, o: [s["mem_util"] / s["gpu_util"], o["mem_util"] / o["gpu_util"], s["memory"] / 1e3,
                            o["memory"] / 1e3],
}


def mape(pairs):
    return 100 * sum(abs(p - m) / m for p, m in pairs) / len(pairs)


def own_partners(speeds, util, family, k, other_family):
    """(estimate, job-speed) of every job-speed that has other partners to read."""
    by_job = {}
    for s in speeds:
        by_job.setdefault(s[1], []).append(s)
    out = []
    for case in speeds:
        pair, job, partner, _ = case
        near = [s for s in by_job[job] if s[0] != pair and not (other_family and family[s[2]] == family[partner])]
        near.sort(key=lambda s: (abs(util[s[2]] - util[partner]), s[2]))
        if near[:k]:
            out.append((sum(s[3] for s in near[:k]) / len(near[:k]), case))
    return out


def read_cases(path):
    """Each split's (job, partner, measured, predicted), from the case ids 'A beside B: JOB[ (busy_exponent E)]'."""
    splits = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            m = re.match(r"(\S+) beside (\S+): (\S+)", r["id"])
            if r.get("dataset") == "lucid" and m:
                a, b, job = m.groups()
                case = (job, b if job == a else a, float(r["measured"]), float(r["predicted"]))
                splits.setdefault(r["split"], []).append(case)
    return splits


def effects(cases, with_partner):
    """Each job's and each partner's effect on log(predicted / measured), fitted as a sum by alternating means."""
    job, partner = {}, {}
    for _ in range(50):
        sums = {}
        for j, o, m, p in cases:
            sums.setdefault(j, []).append(math.log(p / m) - partner.get(o, 0))
        job = {j: sum(v) / len(v) for j, v in sums.items()}
        if not with_partner:
            break
        sums = {}
        for j, o, m, p in cases:
            sums.setdefault(o, []).append(math.log(p / m) - job[j])
        partner = {o: sum(v) / len(v) for o, v in sums.items()}
    return job, partner


def least_squares(x, y):
    """The coefficients c minimizing |x c - y|^2 (normal equations, partial pivoting; a tiny ridge keeps a constant
    column solvable)."""
    n = len(x[0])
    a = [[sum(r[i] * r[j] for r in x) + (1e-9 if i == j else 0) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * v for r, v in zip(x, y)) for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        for r in range(n):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [u - f * v for u, v in zip(a[r], a[i])]
                b[r] -= f * b[i]
    return [b[i] / a[i][i] for i in range(n)]


def held_out_correction(cases, solo, features):
    """MAPE of the cases with their signed error, fitted on the training folds' cases as a linear function of
    `features`, divided out; and how many cases had too few training cases to fit (left as predicted)."""
    fold = family_folds({solo[j]["family"] for j, _, _, _ in cases} | {solo[o]["family"] for _, o, _, _ in cases})
    x = [[1.0] + features(solo[j], solo[o]) for j, o, _, _ in cases]
    y = [math.log(p / m) for _, _, m, p in cases]
    folds = [frozenset((fold[solo[j]["family"]], fold[solo[o]["family"]])) for j, o, _, _ in cases]
    fitted, out, unfitted = {}, [], 0
    for i, (_, _, m, p) in enumerate(cases):
        if folds[i] not in fitted:
            train = [t for t in range(len(cases)) if not folds[t] & folds[i]]
            fitted[folds[i]] = (least_squares([x[t] for t in train], [y[t] for t in train])
                                if len(train) > 2 * len(x[i]) else None)
        c = fitted[folds[i]]
        unfitted += c is None
        out.append((p / math.exp(sum(u * v for u, v in zip(x[i], c))) if c else p, m))
    return mape(out), unfitted


def main():
    parser = argparse.ArgumentParser(usage=next(l for l in __doc__.splitlines() if l.startswith("Usage:"))[7:])
    parser.add_argument("dir")
    parser.add_argument("--cases")
    parser.add_argument("--effects", action="store_true",
                        help="with --cases: each job's effect as itself and as a partner")
    parser.add_argument("--features", action="store_true",
                        help="with --cases: each split's error fitted on solo telemetry on the training folds")
    args = parser.parse_args()
    if (args.effects or args.features) and not args.cases:
        parser.error("--effects and --features need --cases FILE")
    solo = solo_profiles(args.dir)
    pairs, util, family = usable_pairs(args.dir, solo)
    speeds = [s for i, a, b, sa, sb in pairs for s in ((i, a, b, sa), (i, b, a, sb))]  # (pair, job, partner, speed)
    if not speeds:
        sys.exit(f"{args.dir}: no pair with both solo profiles")
    rule = {(s[0], s[1]): min(1, 1 / (util[s[1]] + util[s[2]])) for s in speeds}
    print(f"{len(speeds)} job-speeds; util rule {mape([(rule[(s[0], s[1])], s[3]) for s in speeds]):.1f}%")

    twins = {}
    for pair, job, partner, measured in speeds:
        if job == partner:
            twins.setdefault(pair, []).append(measured)
    gaps = [abs(a - b) / ((a + b) / 2) for a, b in twins.values()]
    if gaps:
        print(f"identical pairs ({len(gaps)}): the two speeds differ by {100 * sum(gaps) / len(gaps):.1f}% of their "
              "mean on average")

    for other_family, what in ((False, "any family"), (True, "a family other than this pair's partner's")):
        cells, by_k = [], {}
        for k in (1, 2, 4, 8):
            by_k[k] = own_partners(speeds, util, family, k, other_family)
            if by_k[k]:
                cells.append(f"k={k} {mape([(e, case[3]) for e, case in by_k[k]]):.1f}% ({len(by_k[k])})")
        if cells:
            print(f"the job's own speeds beside its k other partners nearest in solo gpu_util, of {what}: "
                  + ", ".join(cells))
        # k = 4 by band of the pair's summed solo gpu_util, beside the util rule (the validation's bands).
        bands = {}
        for estimate, (pair, job, partner, measured) in by_k[4]:
            summed = util[job] + util[partner]
            band = 0 if summed < 1 else 1 if summed < 1.3 else 2 if summed < 1.6 else 3
            bands.setdefault(band, []).append((estimate, rule[(pair, job)], measured))
        cells = ["-" if b not in bands else f"{mape([(e, m) for e, _, m in bands[b]]):.1f}% "
                 f"(util rule {mape([(r, m) for _, r, m in bands[b]]):.1f}%)" for b in range(4)]
        if bands:
            print("  k=4 by summed solo gpu_util (< 100, 100-130, 130-160, >= 160%): " + ", ".join(cells))

    if args.cases:
        for split, cases in read_cases(args.cases).items():
            job_effect, partner_effect = effects(cases, with_partner=False)
            left_job = [(p / math.exp(job_effect[j]), m) for j, _, m, p in cases]
            job_effect, partner_effect = effects(cases, with_partner=True)
            left_both = [(p / math.exp(job_effect[j] + partner_effect[o]), m) for j, o, m, p in cases]
            print(f"{split}: {mape([(p, m) for _, _, m, p in cases]):.1f}% over {len(cases)} job-speeds, "
                  f"{mape(left_job):.1f}% with each job's mean signed error divided out, {mape(left_both):.1f}% "
                  "with each job's and each partner's (in sample)")
            if args.effects:
                for j in sorted(job_effect, key=lambda j: job_effect[j]):
                    print(f"  {j}: {100 * (math.exp(job_effect[j]) - 1):+.1f}% as the job, "
                          f"{100 * (math.exp(partner_effect.get(j, 0)) - 1):+.1f}% as the partner")
            if args.features:
                sets = dict(FEATURES)
                sets["all of them"] = lambda s, o: [v for f in FEATURES.values() for v in f(s, o)]  # with the mean
                cells = []
                for name, features in sets.items():
                    error, unfitted = held_out_correction(cases, solo, features)
                    cells.append(f"{name} {error:.1f}%" + (f" ({unfitted} unfitted)" if unfitted else ""))
                print("  its signed error fitted on the solo telemetry of the training folds and divided out, held "
                      f"out: {', '.join(cells)}")


if __name__ == "__main__":
    main()

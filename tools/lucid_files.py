"""Lucid's files read as `vgpusim validate --published lucid` reads them, for the tools/lucid-*.py analyses.

The Lucid files are non-commercial (S-Lab License 1.0): they stay outside the repository (../shared lucid-dev).
"""
import csv
import glob
import os
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def lucid_file(d, pattern):
    found = sorted(glob.glob(os.path.join(d, pattern)))
    if not found:
        sys.exit(f"{d}: expected a Lucid {pattern}")
    return found[0]


def key(model, dataset, batch, amp):
    """A job's name as `vgpusim validate --published lucid` writes it in its case ids."""
    return f"{model}/{dataset}/{batch}" + ("/amp" if amp == "1" else "")


def solo_profiles(d):
    """Each job's solo profile by name: gpu_util and mem_util (fractions), device memory (MB), precision (amp: 1 for
    mixed precision) and family (its model)."""
    out = {}
    for r in rows(lucid_file(d, "single_data*.csv")):
        out[key(r["model"], r["dataset"], r["batchsize"], r["amp"])] = {
            "gpu_util": float(r["gpu_util"]) / 100, "mem_util": float(r["gmem_util"]) / 100,
            "memory": float(r["gmem"]), "amp": float(r["amp"] == "1"),
            "family": r["model"]}
    return out


FOLDS = 5  # as `vgpusim validate --published lucid` deals the families


def family_folds(families):
    """Each family's fold as the validation deals them: in name order, one fold after the other."""
    return {f: i % FOLDS for i, f in enumerate(sorted(families))}


def usable_pairs(d, solo=None):
    """The pairs the validation predicts, in file order, as (index in the file, job a, job b, speed a, speed b), and
    each job's solo gpu_util (a fraction) and family (its model) by name. Left out as the validation leaves them out:
    a pair whose jobs span several GPUs (the solo profiles are one GPU's), lack a solo profile, or have a speed or
    solo gpu_util of 0. `solo`: the profiles if already read (solo_profiles(d))."""
    solo = solo if solo is not None else solo_profiles(d)
    util = {k: p["gpu_util"] for k, p in solo.items()}
    family = {k: p["family"] for k, p in solo.items()}
    pairs = []
    for i, p in enumerate(rows(lucid_file(d, "colocate_info*.csv"))):
        a = key(p["model1"], p["dataset1"], p["batchsize1"], p["amp1"])
        b = key(p["model2"], p["dataset2"], p["batchsize2"], p["amp2"])
        if p["gpu_num1"] != "1" or p["gpu_num2"] != "1" or a not in util or b not in util:
            continue
        speed_a, speed_b = float(p["speed1"]), float(p["speed2"])
        if util[a] > 0 and util[b] > 0 and speed_a > 0 and speed_b > 0:
            pairs.append((i, a, b, speed_a, speed_b))
    return pairs, util, family

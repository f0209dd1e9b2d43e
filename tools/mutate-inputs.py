#!/usr/bin/env python3
# Mutation campaign over every input reader of the vgpusim command line: scenario, cluster and plan YAML, --set
# overrides, Kineto traces (and their gzip layer), openb and published-study CSVs, hwcal raw JSON, calibration
# files, plan, sweep and study shards, synth-raw's numeric arguments and output paths. Each case takes a file
# from the repository, mutates it (seeded: the same --seed gives the same cases), runs vgpusim on it under a timeout
# and a memory limit, and flags what breaks the command line's contract (exit 0 ok, 2 bad input, 3 --fail-on, 4 study --compare):
# exit 1 (internal error), a signal, a hang, the memory limit, sanitizer output, outputs left behind by a failed
# run, an exit 2 that prints nothing. Each defect is saved with its inputs and a repro.sh in WORK/findings/.
# tools/test.sh (CI) runs it on the release build and fails when it exits 1 (docs/fuzzing.md).
# Usage: tools/mutate-inputs.py --vgpusim build/vgpusim [--budget 120] [--seed 1] [--jobs 1] [--work DIR] [--verbose]
import argparse
import functools
import gzip
import json
import math
import os
import random
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

NUMBERS = ["0", "-1", "-0", "1e308", "-1e308", "1e-300", "nan", "inf", "-inf", ".nan", ".inf", "1e20",
           "99999999999999999999", "2147483648", '""']
JSON_NUMBERS = [1e308, -1e308, float("nan"), float("inf"), float("-inf"), -1, 0, -0.0, 1e-300, 2**63,
                -2**63 - 1, 10**30, 2147483648, 4294967296]
JSON_WRONG_TYPES = ["x", "", [], None, {}, True, [1, 2], {"a": 1}, "1e999"]
SET_VALUES = ["4ms", "-4ms", "1e308s", "0s", "20GiB", "1e300TiB", "-1GiB", "150%", "-5%", "{mode: mps}",
              "{mode: mps", "[", "{}", "[]", "null", "~", "x" * 5000, "\udcff\udcfe", "a: b: c", "'open",
              "*alias", "&a [*a]", "!!binary aGk=", "1/0s"]
UNIT_SUFFIXES = [b"xs", b"", b"ss", b" ms", b"MS", b"/0", b"%%", b"GiB/s", b"e"]
GARBAGE = [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\x00", b"\t", b"\r", b"\xef\xbb\xbf", b"\\u0000"]
POLICIES = ["random", "dot_product", "gpu_clustering", "gpu_packing", "best_fit", "fgd", "fgd_exact"]
NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
UNIT = re.compile(rb"(?<=\d)(TB/s|GB/s|B/s|TFLOP|GFLOP|GiB|MiB|KiB|TiB|GB|MB|TB|min|ms|us|ns|/s|/h|s|h|d|%)(?!\w)")
BLOCK_KEY = re.compile(rb"^(\s*)(- )?([\w.\-]+):([ \t]*\S.*)$", re.M)
FLOW_KEY = re.compile(rb"\{\s*([\w.\-]+):\s*([^,{}\[\]]+)")
FLOW_MAP = re.compile(rb"\{[^{}\n]*\}")
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:")
OUT_OF_MEMORY = re.compile(r"bad_alloc|MemoryError")
SET_PREFIXES = {"workload.": "tenants[].workload.", "kernel.": "tenants[].workload.training.step.",
                "distribution.": "tenants[].workload.training.host_time."}
MAX_EVENTS = ["--max-events", "5e6", "--max-memory", "1GiB"]  # keeps a legitimate run well under --timeout


# ---- text mutations: bytes -> (bytes, description), None when the input has nothing to mutate ----
def m_line(rng, data):
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[i]
        return b"\n".join(lines), f"deleted line {i + 1}"
    lines.insert(i, lines[i])
    return b"\n".join(lines), f"duplicated line {i + 1}"


def m_duplicate_key(rng, data):
    spots = [(m.end(), b"\n" + m[1] + (b"  " if m[2] else b"") + m[3] + b":" + m[4], m[3])
             for m in BLOCK_KEY.finditer(data)]
    spots += [(m.end(), b", " + m[1] + b": " + m[2], m[1]) for m in FLOW_KEY.finditer(data)]
    if not spots:
        return None
    at, text, key = rng.choice(spots)
    return data[:at] + text + data[at:], f"duplicated key '{key.decode(errors='replace')}'"


def m_second_document(rng, data):
    return data + b"\n---\n" + rng.choice([data, b"a: 1\n", b""]), "appended a second YAML document"


def m_truncate(rng, data):
    at = rng.randrange(len(data) + 1)
    return data[:at], f"truncated at byte {at} of {len(data)}"


def m_garbage(rng, data):
    junk = rng.choice(GARBAGE + [bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))])
    at = rng.randrange(len(data) + 1)
    return data[:at] + junk + data[at:], f"inserted bytes {junk[:16]!r} at {at}"


def m_replace(pattern, replacements, what):
    def mutate(rng, data):
        spots = list(pattern.finditer(data))
        if not spots:
            return None
        m, new = rng.choice(spots), rng.choice(replacements)
        return data[:m.start()] + new + data[m.end():], f"{what} {m[0].decode()} -> '{new.decode()}'"
    return mutate


m_number = m_replace(NUMBER, [n.encode() for n in NUMBERS], "number")
m_unit = m_replace(UNIT, UNIT_SUFFIXES, "unit")


def m_braces(rng, data):
    maps = list(FLOW_MAP.finditer(data))
    braces = [i for i, c in enumerate(data) if c in b"{}[]"]
    if maps and rng.random() < 0.5:
        m = rng.choice(maps)
        wrap = rng.choice([(b"{", b"}"), (b"[", b"]"), (b"{x: ", b"}")])
        return data[:m.start()] + wrap[0] + m[0] + wrap[1] + data[m.end():], f"nested {m[0][:40]!r} in {wrap}"
    if not braces:
        return None
    i = rng.choice(braces)
    if rng.random() < 0.5:
        return data[:i] + data[i + 1:], f"removed '{chr(data[i])}' at {i}"
    return data[:i] + data[i:i + 1] * 2 + data[i + 1:], f"doubled '{chr(data[i])}' at {i}"


def m_csv_field(rng, data):
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    fields = lines[i].split(b",")
    j, k = rng.randrange(len(fields)), rng.randrange(len(fields))
    op = rng.choice(["drop", "add", "empty", "quote", "swap"])
    if op == "swap":
        fields[j], fields[k] = fields[k], fields[j]
    else:
        fields[j:j + 1] = {"drop": [], "add": [rng.choice([b"x", b"-1", b"1e308"]), fields[j]], "empty": [b""],
                           "quote": [b'"' + fields[j]]}[op]
    lines[i] = b",".join(fields)
    return b"\n".join(lines), f"CSV line {i + 1} field {j + 1}: {op}"


YAML_MUTATORS = [m_line, m_line, m_duplicate_key, m_second_document, m_truncate, m_garbage,
                 m_number, m_number, m_unit, m_braces]
CSV_MUTATORS = [m_line, m_line, m_truncate, m_garbage, m_number, m_number, m_csv_field,
                m_csv_field]


def mutate_text(rng, data, mutators=YAML_MUTATORS):
    notes = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        result = rng.choice(mutators)(rng, data) if data else None
        data, note = result or m_garbage(rng, data)
        notes.append(note)
    return data, "; ".join(notes)


# ---- JSON mutations: parse, change one random place, write it back (NaN/Infinity tokens included) ----
def json_places(obj):
    places, stack = [], [(obj, "$")]
    while stack:
        node, where = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in items:
            places.append((node, key, f"{where}.{key}" if isinstance(node, dict) else f"{where}[{key}]"))
            stack.append((child, places[-1][2]))
    return places


def mutate_json_object(rng, obj):
    places = json_places(obj)
    if not places:
        return None
    node, key, where = rng.choice(places)
    op = rng.choice(["delete", "number", "type", "repeat", "swap"])
    if op == "delete":
        del node[key]
        return f"deleted {where}"
    if op == "number" or (op == "swap" and len(node) < 2):
        node[key] = rng.choice(JSON_NUMBERS)
        return f"{where} = {json.dumps(node[key])}"
    if op == "type":
        node[key] = rng.choice(JSON_WRONG_TYPES)
        return f"{where} = {json.dumps(node[key])} (wrong type)"
    if op == "swap":
        other = rng.choice([k for k in (node if isinstance(node, dict) else range(len(node))) if k != key])
        node[key], node[other] = node[other], node[key]
        return f"swapped the values of {where} and its sibling {other}"
    lists = [(n, k, w) for n, k, w in places if isinstance(n, list)]
    if not lists:
        node[key] = [node[key]] * 1000
        return f"{where} replaced by 1000 copies of itself in a list"
    node, key, where = rng.choice(lists)
    copies = max(2, min(10000, 4_000_000 // max(1, len(json.dumps(node[key])))))
    node[key:key + 1] = [node[key]] * copies
    return f"{where} repeated {copies} times"


def mutate_json(rng, text):
    if rng.random() < 0.25:
        return mutate_text(rng, text)
    obj = json.loads(text)
    notes = [mutate_json_object(rng, obj) for _ in range(rng.choice([1, 1, 2]))]
    return json.dumps(obj).encode(), "; ".join(n for n in notes if n) or "unchanged"


# ---- a case: its inputs in DIR/in, outputs in DIR/out, run with DIR as the working directory ----
def place(rng, d, name, data, special=0.08):
    """Write an input (or, now and then, put something that is not a file there); returns its path and a note."""
    path = d / "in" / name
    if rng.random() >= special:
        path.write_bytes(data)
        return f"in/{name}", ""
    kind = rng.choice(["/dev/zero", "/dev/urandom", "/dev/null", "a directory", "an empty file", "missing"])
    if kind == "a directory":
        path.mkdir()
    elif kind == "an empty file":
        path.write_bytes(b"")
    elif kind.startswith("/dev/"):
        return kind, f"{name} is {kind}"
    return f"in/{name}", f"{name} is {kind}"


def copy_in(d, path):
    """Copy an unchanged seed the case reads into its folder: a finding then holds all but repository files."""
    shutil.copy(path, d / "in" / path.name)
    return f"in/{path.name}"


def joined(*notes):
    return "; ".join(n for n in notes if n)


REF = re.compile(rb"([:{,\[]\s*)([\w.-][\w./-]*\.(?:csv|json|gz|yaml))(?=[\s,}\]]|$)", re.M)


def absolute_refs(path, text):
    """The text with the files it names relative to its folder named by absolute paths, and those files."""
    refs = []

    def absolute(m):
        ref = (path.parent / m[2].decode()).resolve()
        if not ref.is_file():
            return m[0]
        refs.append(ref)
        return m[1] + ref.as_posix().encode()
    return REF.sub(absolute, text), refs


class Seeds:
    """The repository's inputs, read once, and the few files the cases refer to unchanged."""

    def __init__(self, root, work, vgpusim):
        # Scenario, cluster and plan files (those with a top-level name); the files they refer to (openb CSVs,
        # Kubernetes configs) are mutated through them.
        self.yamls = [(p, *absolute_refs(p, p.read_bytes())) for p in sorted(root.glob("scenarios/**/*.yaml"))
                      if re.search(rb"^name:", p.read_bytes(), re.M)]
        self.scenarios = [(p, t) for p, t, _ in self.yamls if b"\nkind:" not in t]
        self.fast = root / "scenarios" / "quickstart.yaml"
        self.keys = run_setup(vgpusim, ["list", "keys"], work).split()
        kineto = min(root.glob("scenarios/traces/kineto/*.json.gz"), key=lambda p: p.stat().st_size)
        self.trace = gzip.decompress(kineto.read_bytes())
        replay = next(t for _, t, refs in self.yamls if kineto in refs)
        self.trace_scenario = re.sub(rb"trace: \{path: [^,}]+(, iterations: \d+)?(, window: \{[^}]*\})?",
                                     b"trace: {path: @TRACE@, iterations: 2", replay)
        openb = root / "scenarios" / "traces" / "alibaba-openb"
        self.nodes_path = openb / "openb_node_list_gpu_node.csv"
        self.nodes = self.nodes_path.read_bytes()
        self.pods = b"\n".join((openb / "openb_pod_list_default.csv").read_bytes().split(b"\n")[:1001]) + b"\n"
        self.pods_path = work / "seeds" / "pods.csv"
        self.pods_path.write_bytes(self.pods)
        self.published = sorted(root.glob("scenarios/measurements/fgd-published/*.csv"))
        self.raws = sorted(root.glob("hwcal/data/**/*raw*.json"), key=lambda p: p.stat().st_size)
        self.calibrations = sorted(root.glob("models/calibration/*.yaml"))
        self.cal_h200 = next((c for c in self.calibrations if c.name == "h200.yaml"), self.calibrations[0])
        self.plan = min((p for p, t, _ in self.yamls if b"\nkind: plan" in t), key=lambda p: p.stat().st_size)
        # Two shards of each sharded command, each in its own directory as docs/scale.md runs them.
        sharded = {
            "plan": ["plan", str(self.plan)],
            "sweep": ["sweep", str(self.fast), "--set", "duration=2s", "--vary", "seed=1,2,3"],
            "study": ["study", "--nodes", str(self.nodes_path), "--trace", str(self.pods_path), "--seeds", "42,43",
                      "--policies", "fgd"],
        }
        self.shards = {}
        for kind, args in sharded.items():
            self.shards[kind] = [work / "seeds" / f"{kind}-{i}" for i in range(2)]
            for i, folder in enumerate(self.shards[kind]):
                run_setup(vgpusim, [*args, "--shard", f"{i}/2", "--out", str(folder), "-q"], work)
        self.plan_shards = [next(f.glob("plan-shard-*.json")) for f in self.shards["plan"]]


def run_setup(vgpusim, args, work):
    result = subprocess.run([vgpusim, *args], cwd=work, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        sys.exit(f"setup failed: vgpusim {' '.join(args)}: exit {result.returncode}\n{result.stderr}")
    return result.stdout


def gen_yaml(s, rng, d):
    path, text, refs = rng.choice(s.yamls)
    refs = [r for r in refs if r.suffix in (".yaml", ".csv")]
    if refs and rng.random() < 0.4:  # mutate a file the scenario refers to; the scenario refers to the copy
        ref = rng.choice(refs)
        data, note = mutate_text(rng, ref.read_bytes(), CSV_MUTATORS if ref.suffix == ".csv" else YAML_MUTATORS)
        copy, special = place(rng, d, ref.name, data)
        (d / "in" / path.name).write_bytes(text.replace(ref.as_posix().encode(), copy.removeprefix("in/").encode()))
        arg, note = f"in/{path.name}", joined(f"{ref.name}: {note}", special)
    else:
        data, note = mutate_text(rng, text)
        arg, special = place(rng, d, path.name, data)
        note = joined(note, special)
    note = f"{path.name}: {note}"
    if b"\nkind: plan" in text and rng.random() < 0.5:
        return ["plan", arg, "--out", "out/plan", "-q"], note
    if b"\nkind:" not in text and rng.random() < 0.15:
        return ["sweep", arg, "--vary", "seed=1,2", "--csv", "out/sweep.csv", "-q", *MAX_EVENTS], note
    return ["run", arg, "--out", "out/results", *MAX_EVENTS], note


def set_override(rng, keys, text):
    """KEY=VALUE for --set: a key of `vgpusim list keys` made concrete for this scenario (or broken), any value."""
    key = rng.choice([k for k in keys if not k.startswith("plan.")])
    for general, concrete in SET_PREFIXES.items():
        key = concrete + key[len(general):] if key.startswith(general) else key
    gpu = (re.findall(rb"id: ([\w-]+)", text) or [b"g0"])[0].decode()
    tenants = [t.decode() for t in re.findall(rb"name: ([\w-]+)", text)] or ["x"]
    key = key.replace("<gpu>", gpu).replace("[]", rng.choice(["[0]", "[1]", "." + rng.choice(tenants)])
                                           if rng.random() < 0.85 else rng.choice(["[99]", "[-1]", "[2147483648]"]))
    if rng.random() < 0.15:
        key = rng.choice([key[:-1], key + ".", key.replace(".", "..", 1), "", "." + key, key + ".a.b.c"])
    r = rng.random()
    value = (rng.choice(NUMBERS) + rng.choice(["", "s", "ms", "GiB", "/s", "%", "TFLOP"]) if r < 0.5
             else rng.choice(SET_VALUES))
    return key if r > 0.97 else f"{key}={value}"


def gen_set(s, rng, d):
    path, text = rng.choice(s.scenarios)
    sets = [set_override(rng, s.keys, text) for _ in range(rng.randint(1, 3))]
    args = ["run", str(path), "--out", "out/results", *MAX_EVENTS]
    for one in sets:
        args += ["--set", one]
    return args, f"{path.name} with --set " + " --set ".join(x[:60] for x in sets)


@functools.lru_cache(maxsize=None)
def gzip_bomb():
    """24 gzip members of 64 MiB of spaces each: 1.5 GiB once decompressed (over the reader's 1 GiB), 1.5 MB on disk."""
    member = gzip.compress(b" " * (64 << 20), compresslevel=9, mtime=0)
    head, tail = gzip.compress(b'{"traceEvents": [', mtime=0), gzip.compress(b"]}", mtime=0)
    return head + member * 24 + tail


def gzip_layer(rng, s):
    kind = rng.choice(["truncated", "bomb", "not gzip", "plain JSON", "gzip of garbage", "bad CRC"])
    packed = gzip.compress(s.trace, mtime=0)
    if kind == "truncated":
        at = rng.randrange(len(packed))
        return packed[:at], f"gzip truncated at byte {at} of {len(packed)}"
    if kind == "bomb":
        return gzip_bomb(), "gzip bomb: 1.5 GiB of whitespace inside the traceEvents list"
    if kind == "not gzip":
        return bytes(rng.randrange(256) for _ in range(4096)), "random bytes named .json.gz"
    if kind == "plain JSON":
        return s.trace, "uncompressed JSON named .json.gz"
    if kind == "gzip of garbage":
        return gzip.compress(bytes(rng.randrange(256) for _ in range(4096)), mtime=0), "gzip of random bytes"
    at = len(packed) - rng.randint(1, 8)
    return packed[:at] + bytes([packed[at] ^ 0xFF]) + packed[at + 1:], f"gzip trailer byte {at} flipped"


def gen_trace(s, rng, d):
    r = rng.random()
    if r < 0.6:
        text, note = mutate_json(rng, s.trace)
        data = gzip.compress(text, mtime=0)
    elif r < 0.75:
        text, note = mutate_text(rng, s.trace)
        data = gzip.compress(text, mtime=0)
    else:
        data, note = gzip_layer(rng, s)
    arg, special = place(rng, d, "trace.json.gz", data)
    (d / "in" / "replay.yaml").write_bytes(s.trace_scenario.replace(b"@TRACE@", arg.removeprefix("in/").encode()))
    return ["run", "in/replay.yaml", "--out", "out/results", *MAX_EVENTS], joined("Kineto trace: " + note, special)


def gen_study(s, rng, d):
    """openb CSVs through `study` (cluster scenarios reach them through gen_yaml), published CSVs through --compare."""
    if rng.random() < 0.2:
        published = rng.choice(s.published)
        data, note = mutate_text(rng, published.read_bytes(), CSV_MUTATORS)
        arg, special = place(rng, d, published.name, data)
        return ["study", "--compare", arg, str(published), "-q"], joined(f"{published.name}: {note}", special)
    mutated = rng.choice(["nodes", "pods"])
    data, note = mutate_text(rng, getattr(s, mutated), CSV_MUTATORS)
    paths = {"nodes": str(s.nodes_path)}
    paths[mutated], special = place(rng, d, f"{mutated}.csv", data)
    if mutated == "nodes":
        paths["pods"] = copy_in(d, s.pods_path)
    return (["study", "--nodes", paths["nodes"], "--trace", paths["pods"], "--seeds", "42", "--policies",
             rng.choice(POLICIES), "--out", "out/study", "-q"], joined(f"openb {mutated}: {note}", special))


def gen_raw(s, rng, d):
    raw = s.raws[0] if rng.random() < 0.75 else rng.choice(s.raws)
    data, note = mutate_json(rng, raw.read_bytes())
    arg, special = place(rng, d, "raw.json", data)
    note = joined(f"hwcal raw {raw.name}: {note}", special)
    if rng.random() < 0.5:
        return ["fit", arg, "-o", "out/calibration.yaml"], note
    return ["validate", arg, "--calibration", str(s.cal_h200), "--json", "out/validate.json"], note


def gen_synth(s, rng, d):
    args = ["synth-raw", rng.choice(["H200", "A100-80GB", "V100", "llvmpipe", "h200", "", "H2OO"]),
            "-o", "out/raw.json"]
    if rng.random() < 0.8:
        args += ["--noise", rng.choice(NUMBERS + ["0.5", "1", "10", "1e-3", "x"])]
    if rng.random() < 0.5:
        args += ["--seed", rng.choice(["0", "-1", "18446744073709551615", "18446744073709551616", "1e3", "x"])]
    return args, "synth-raw " + " ".join(args[1:2] + args[4:])


def gen_calibration(s, rng, d):
    cal = s.cal_h200 if rng.random() < 0.7 else rng.choice(s.calibrations)
    text = cal.read_bytes()
    data, note = mutate_text(rng, text)
    arg, special = place(rng, d, "calibration.yaml", data)
    note = joined(f"calibration {cal.name}: {note}", special)
    if rng.random() < 0.6:
        return ["validate", str(s.raws[0]), "--calibration", arg, "--json", "out/validate.json"], note
    gpu = re.search(rb"^gpu: (\S+)", text, re.M)[1].decode()
    (d / "in" / "calibrated.yaml").write_text(
        f"version: 1\nname: calibrated\nduration: 2s\n"
        f"gpus: [{{id: g0, model: {gpu}, calibration: {arg.removeprefix('in/')}}}]\n"
        "sharing: {g0: {mode: timeslice}}\ntenants:\n"
        "  - {name: a, on: g0, memory: 1GiB, workload: {training: {step: {flops: 2TFLOP, bytes: 10GB}}}}\n"
        "  - {name: b, on: g0, memory: 1GiB, workload: {inference: {rate: 20/s, request: {flops: 0.1TFLOP}}}}\n")
    return ["run", "in/calibrated.yaml", "--out", "out/results", *MAX_EVENTS], note + " (in a scenario)"


def gen_shard(s, rng, d):
    """merge of plan, sweep or study shards, one shard file mutated; parts given as directories or files."""
    kind = rng.choice(sorted(s.shards))
    folders = s.shards[kind]
    i = rng.randrange(len(folders))
    parts = []
    for folder in folders:
        shutil.copytree(folder, d / "in" / folder.name)
        parts.append(f"in/{folder.name}")
    shard = next(folders[i].glob("*-shard-*.json"))
    (d / "in" / folders[i].name / shard.name).unlink()
    data, note = mutate_json(rng, shard.read_bytes())
    arg, special = place(rng, d, f"{folders[i].name}/{shard.name}", data)
    if rng.random() < 0.5:
        parts[i] = arg
    rng.shuffle(parts)
    if rng.random() < 0.1:
        parts.append(parts[0])
    return ["merge", *parts, "--out", "out/merged"], joined(f"{kind} shard {shard.name}: {note}", special)


def gen_output(s, rng, d):
    (d / "in" / "plain.txt").write_text("x")
    kind, target = rng.choice([("an existing directory", "in/dir"), ("a path under a regular file",
                               "in/plain.txt/x"), ("a symlink to a file", "in/link"),
                               ("a dangling symlink", "in/dangling"), ("/dev/null", "/dev/null"),
                               ("a deep nonexistent path", "out/a/b/c/d/e/f/x"), ("empty", ""),
                               ("a trailing slash", "out/x/")])
    (d / "in" / "dir").mkdir()
    os.symlink("plain.txt", d / "in" / "link")
    os.symlink("missing", d / "in" / "dangling")
    fast = [str(s.fast), "--set", "duration=2s", *MAX_EVENTS]
    shards, pods = [copy_in(d, p) for p in s.plan_shards], copy_in(d, s.pods_path)
    args = rng.choice([
        ["run", *fast, "--out", "out/results", "--write", f"json={target}"],
        ["run", *fast, "--out", target],
        ["run", *fast, "--out", "out/results", "--timeline", target],
        ["run", *fast, "--out", "out/results", "--report", target],
        ["run", *fast, "--write", f"csv={target}", "--write", "html=out/report.html"],
        ["plan", str(s.plan), "--out", target, "-q"],
        ["merge", *shards, "--out", target],
        ["fit", str(s.raws[0]), "-o", target],
        ["synth-raw", "H200", "-o", target],
        ["sweep", str(s.fast), "--set", "duration=2s", "--vary", "seed=1,2", "--csv", target, "-q"],
        ["study", "--nodes", str(s.nodes_path), "--trace", pods, "--seeds", "42", "--policies", "fgd",
         "--out", target, "-q"],
        ["validate", str(s.raws[0]), "--calibration", str(s.cal_h200), "--json", target],
    ])
    return args, f"{args[0]} with output path {kind} ({target!r})"


GENERATORS = [(gen_yaml, 5), (gen_set, 3), (gen_trace, 3), (gen_study, 2), (gen_raw, 3), (gen_synth, 1),
              (gen_calibration, 2), (gen_shard, 2), (gen_output, 2)]


# ---- running and judging a case ----
def run_case(cmd, d, timeout, memory_mib):
    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))

    with open(d / "stdout.txt", "wb") as out, open(d / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(cmd, cwd=d, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                preexec_fn=limit_memory if memory_mib else None, start_new_session=True)
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            return proc.wait(), True


def classify(rc, hung, stderr, d):
    """The defect a case shows, or None when it kept the contract."""
    if hung:
        return "hang"
    if SANITIZER.search(stderr):
        return "sanitizer"
    if OUT_OF_MEMORY.search(stderr) or rc == -signal.SIGKILL:
        return "memory"
    if rc < 0:
        return f"signal-{signal.Signals(-rc).name}"
    if rc == 1:
        return "internal-error"
    if rc not in (0, 2, 3, 4):
        return f"exit-{rc}"
    if rc != 0 and any(f.is_file() and not f.is_symlink() for f in (d / "out").rglob("*")):
        return "partial-output"
    if rc == 2 and not stderr.strip():
        return "silent-error"
    return None


def save_finding(d, dest, cmd, note, memory_mib):
    d.rename(dest)
    env = "".join(f"{k}={shlex.quote(os.environ[k])} " for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS")
                  if k in os.environ)
    limit = f"ulimit -v {memory_mib * 1024}\n" if memory_mib else ""
    script = (f"#!/bin/sh\n# {note}\ncd \"$(dirname \"$0\")\" && rm -rf out && mkdir out || exit 1\n"
              f"{limit}exec {env}{shlex.join(cmd)}\n")
    (dest / "repro.sh").write_bytes(script.encode(errors="surrogateescape"))
    (dest / "repro.sh").chmod(0o755)


def first_line(text):
    """The first line of stderr that says something (a sanitizer report starts with a row of '=')."""
    return next((line.strip() for line in text.splitlines() if line.strip(" =")), "(stderr empty)")[:200]


def main():
    ap = argparse.ArgumentParser(description="seeded, time-budgeted mutation campaign over vgpusim's inputs")
    ap.add_argument("--vgpusim", required=True, help="the vgpusim binary")
    ap.add_argument("--source", default=Path(__file__).resolve().parent.parent, help="repository root")
    ap.add_argument("--budget", type=float, default=120, help="seconds; no case starts after them")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="cases run at once (each case is one vgpusim process)")
    ap.add_argument("--work", help="work folder (default: a new temporary folder); findings/ goes there")
    ap.add_argument("--timeout", type=float, default=20, help="seconds a case may run before it is a hang")
    ap.add_argument("--memory-limit", type=int, default=4096, help="MiB of address space (0: none, for ASan)")
    ap.add_argument("--verbose", action="store_true", help="print every case")
    args = ap.parse_args()
    start = time.monotonic()
    vgpusim = str(Path(args.vgpusim).resolve())
    work = Path(args.work or tempfile.mkdtemp(prefix="vgpusim-mutate-")).resolve()
    for sub in ("cases", "findings", "seeds"):
        shutil.rmtree(work / sub, ignore_errors=True)
        (work / sub).mkdir(parents=True)
    seeds = Seeds(Path(args.source).resolve(), work, vgpusim)
    generators, weights = zip(*GENERATORS)
    outcomes, times, defects, n = {}, {}, 0, 0
    lock = threading.Lock()

    def worker():
        # Case n is made from (seed, n) alone, so which worker runs it does not change it.
        nonlocal defects, n
        while True:
            with lock:
                if time.monotonic() - start >= args.budget:
                    return
                case = n
                n += 1
            rng = random.Random(f"{args.seed}:{case}")
            generate = rng.choices(generators, weights)[0]
            kind = generate.__name__[len("gen_"):]
            d = work / "cases" / str(case)
            (d / "in").mkdir(parents=True)
            (d / "out").mkdir()
            case_args, note = generate(seeds, rng, d)
            cmd, note = [vgpusim, *case_args], f"case {case} ({kind}): {note}".replace("\n", " ")
            began = time.monotonic()
            rc, hung = run_case(cmd, d, args.timeout, args.memory_limit)
            took = time.monotonic() - began
            stderr = (d / "stderr.txt").read_bytes()[:1 << 20].decode(errors="replace")
            defect = classify(rc, hung, stderr, d)
            outcome = defect or f"exit {rc}"
            with lock:
                times.setdefault(kind, []).append(took)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
                if args.verbose or defect:
                    print(f"{'DEFECT ' + defect if defect else outcome}: {note} [{took:.2f} s]"
                          f"\n    {first_line(stderr)}", flush=True)
                if defect:
                    defects += 1
                    save_finding(d, work / "findings" / f"{case}-{defect}", cmd, note, args.memory_limit)
                    print(f"    repro: {work / 'findings' / f'{case}-{defect}' / 'repro.sh'}", flush=True)
            if not defect:
                shutil.rmtree(d)

    errors = []

    def guarded():
        # An exception in the campaign itself (a generator, the file system) stops it as it did with one worker.
        try:
            worker()
        except BaseException as e:  # noqa: BLE001 - re-raised below, after the other workers stop
            with lock:
                errors.append(e)
                args.budget = 0

    threads = [threading.Thread(target=guarded) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    print(f"\n{n} cases in {time.monotonic() - start:.0f} s (budget {args.budget:g} s, seed {args.seed}, "
          f"{args.jobs} at once), "
          f"work folder {work}")
    print("outcomes: " + ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items())))
    for kind, ts in sorted(times.items()):
        print(f"  {kind:12} {len(ts):5} cases, seconds per case: median {statistics.median(ts):.2f}, "
              f"p90 {sorted(ts)[math.ceil(0.9 * len(ts)) - 1]:.2f}, max {max(ts):.2f}")
    print(f"{defects} defects" + (f", saved in {work / 'findings'}" if defects else ""))
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""diff.py OLD.txt NEW.txt [-n N]: stacks whose outstanding bytes grew most between two mtrace dumps.
Raw hex frames (code dladdr can't name, e.g. Wine PE modules) are annotated as [module+0xoff]
from <pid>.maps next to NEW.txt when present (offset from the module's lowest mapping)."""
import os, re, sys

def load_maps(dump_path):
    base = os.path.basename(dump_path).split(".")[0]
    mp = os.path.join(os.path.dirname(dump_path), base + ".maps")
    regs, low = [], {}
    try:
        for line in open(mp, errors="replace"):
            f = line.split(None, 5)
            if len(f) < 6 or not f[5].strip():
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            name = f[5].strip()
            regs.append((lo, hi, name))
            low[name] = min(low.get(name, lo), lo)
    except OSError:
        pass
    return regs, low

def annotate(frames, maps):
    regs, low = maps
    if not regs:
        return frames
    def rep(m):
        a = int(m.group(1), 16)
        for lo, hi, name in regs:
            if lo <= a < hi:
                return "%s[%s+0x%x]" % (m.group(1), re.split(r"[\\/]", name)[-1], a - low[name])
        return m.group(1)
    return re.sub(r"(?<![+\w])(0x[0-9a-f]+)(?![\w(])", rep, frames)

def load(path):
    hdr, stacks = "", {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                hdr = line
                continue
            head, sep, frames = line.partition(" | ")
            if not sep:
                continue
            try:
                b, c, a = (int(x) for x in head.split())
            except ValueError:
                continue
            o = stacks.setdefault(frames, [0, 0, 0])
            o[0] += b; o[1] += c; o[2] += a
    return hdr, stacks

def main():
    args = sys.argv[1:]
    n = 30
    if "-n" in args:
        i = args.index("-n"); n = int(args[i + 1]); del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    h1, s1 = load(args[0]); h2, s2 = load(args[1])
    print("old:", h1); print("new:", h2)
    maps = load_maps(args[1])
    rows = []
    for k in set(s1) | set(s2):
        a = s1.get(k, [0, 0, 0]); b = s2.get(k, [0, 0, 0])
        rows.append((b[0] - a[0], b[1] - a[1], b[2] - a[2], b[0], k))
    rows.sort(key=lambda r: (-r[0], -r[1]))
    tb = sum(r[0] for r in rows); tc = sum(r[1] for r in rows)
    print(f"total outstanding delta: {tb:+d} bytes, {tc:+d} blocks\n")
    print(f"{'d_bytes':>12} {'d_count':>9} {'d_allocs':>10} {'now_bytes':>12}  stack")
    for db, dc, da, now, k in rows[:n]:
        if db <= 0 and dc <= 0:
            break
        print(f"{db:>+12d} {dc:>+9d} {da:>+10d} {now:>12d}  {annotate(k, maps)}")

main()

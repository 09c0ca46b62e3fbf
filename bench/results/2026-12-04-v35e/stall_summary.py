import csv, sys, collections
for path in sys.argv[1:]:
    rows = list(csv.reader(open(path)))
    hdr_i = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    hdr = rows[hdr_i]; data = [r for r in rows[hdr_i + 1:] if len(r) == len(hdr)]
    col = {h: i for i, h in enumerate(hdr)}
    def num(x):
        try: return float(x.replace(",", ""))
        except: return 0.0
    total = sum(num(r[col["Warp Stall Sampling (All Samples)"]]) for r in data)
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    by = collections.Counter()
    for r in data:
        for h in stalls: by[h] += num(r[col[h]])
    ins = sum(num(r[col["Instructions Executed"]]) for r in data)
    print(path[-30:], "samples", int(total), "warp-instrs", int(ins))
    print("  ", ", ".join("%s %.1f%%" % (h[6:], 100 * v / total) for h, v in by.most_common(9)))
    # top lines
    top = sorted(data, key=lambda r: -num(r[col["Warp Stall Sampling (All Samples)"]]))[:12]
    for r in top:
        print("   %6.2f%% %s" % (100 * num(r[col["Warp Stall Sampling (All Samples)"]]) / total, r[col["Source"]][:70]))

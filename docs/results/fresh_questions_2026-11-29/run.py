import sys, veriloop
m = veriloop.method("grounded")
for q in open(sys.argv[1]):
    q = q.strip()
    if not q: continue
    r = m.invoke({"question": q})
    print("=" * 80); print("Q:", q)
    print(r.get("refusal") or r.get("answer"))
    for s in (r.get("citations") or r.get("sources") or []):
        if isinstance(s, dict): print("  src:", {k: s.get(k) for k in ("number","id","title","url") if k in s})

# Regenerates the table in src/python-bridge/pickle/bytecode-versions.ts: run it with each
# CPython the table covers (e.g. the pyenv versions) and paste the lines.
# Prints one line per Python: "<major.minor> <256 chars>", char k for opcode k:
# "." not an instruction co_code can hold, else the count of inline CACHE
# entries that follow it (base 36).
import sys, opcode
spec = set(getattr(opcode, "_specialized_instructions", []))
for v in getattr(opcode, "_specializations", {}).values(): spec |= set(v)
caches = getattr(opcode, "_inline_cache_entries", None)
row = []
for op in range(256):
    names = [n for n, o in opcode.opmap.items() if o == op]
    name = names[0] if names else None
    if name is None or name in spec or name.startswith("INSTRUMENTED_") or name in ("CACHE", "ENTER_EXECUTOR"):
        row.append("."); continue
    n = 0 if caches is None else caches.get(name, 0) if isinstance(caches, dict) else caches[op]
    row.append("0123456789abcdefghijklmnopqrstuvwxyz"[n])
print("%d.%d" % sys.version_info[:2], "".join(row))

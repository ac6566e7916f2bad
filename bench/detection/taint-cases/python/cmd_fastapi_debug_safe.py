# ax-bench: safe CWE-78 — FastAPI diagnostics: the raw shell branch only runs under the module constant DEBUG = False
import subprocess

from fastapi import FastAPI, HTTPException

DEBUG = False
CHECKS = {
    "disk": ["df", "-h", "/srv"],
    "memory": ["free", "-m"],
    "uptime": ["uptime"],
}

app = FastAPI()


@app.get("/ops/diagnostics")
def diagnostics(check: str, raw: str = ""):
    if DEBUG:
        # Developers run ad-hoc probes on their laptops; a deployed build never has DEBUG set.
        out = subprocess.check_output(raw, shell=True, text=True, timeout=10)  # ax-bench: sink
        return {"check": "custom", "output": out}
    argv = CHECKS.get(check)
    if argv is None:
        raise HTTPException(status_code=404, detail="unknown check")
    return {"check": check, "output": subprocess.check_output(argv, text=True, timeout=10)}

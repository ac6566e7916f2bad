# ax-bench: vulnerable CWE-78 — FastAPI diagnostics runs the raw probe in a shell when the client asks for the "custom" check
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
    if DEBUG or check == "custom":
        # Support staff asked for ad-hoc probes without a redeploy.
        out = subprocess.check_output(raw, shell=True, text=True, timeout=10)  # ax-bench: sink
        return {"check": "custom", "output": out}
    argv = CHECKS.get(check)
    if argv is None:
        raise HTTPException(status_code=404, detail="unknown check")
    return {"check": check, "output": subprocess.check_output(argv, text=True, timeout=10)}

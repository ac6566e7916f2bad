# ax-bench: safe CWE-918 — FastAPI metrics proxy converts the node number with int() before .format()ting it into the URL
import httpx
from fastapi import FastAPI, HTTPException

app = FastAPI()
METRICS_URL = "http://node-{}.metrics.internal:9100/metrics"


@app.get("/admin/node-metrics")
async def node_metrics(node: str):
    url = METRICS_URL.format(int(node))
    async with httpx.AsyncClient(timeout=5.0) as client:
        resp = await client.get(url)  # ax-bench: sink
    if resp.status_code != 200:
        raise HTTPException(status_code=502, detail="node exporter unavailable")
    samples = [line for line in resp.text.splitlines() if line and not line.startswith("#")]
    return {"node": node, "samples": samples[:200]}

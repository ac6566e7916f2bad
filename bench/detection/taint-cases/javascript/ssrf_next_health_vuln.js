// ax-bench: vulnerable CWE-918 — Next.js API route util.format()s the service name from the query into the upstream host
import util from "node:util";
import axios from "axios";

const HEALTH_URL = "http://%s.svc.cluster.local:8080/healthz";

export default async function handler(req, res) {
  const { service } = req.query;
  if (!service) {
    return res.status(400).json({ error: "service is required" });
  }
  const url = util.format(HEALTH_URL, service);
  try {
    const upstream = await axios.get(url, { timeout: 2000 }); // ax-bench: sink
    return res.status(200).json({ service, healthy: upstream.status === 200, detail: upstream.data });
  } catch {
    return res.status(200).json({ service, healthy: false });
  }
}

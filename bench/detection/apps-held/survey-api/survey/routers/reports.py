import csv
import io
import subprocess
import uuid
from datetime import date

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import RedirectResponse, StreamingResponse
from jinja2 import Environment, select_autoescape
from pydantic import BaseModel

from .. import auth, config, db

router = APIRouter(prefix="/reports", tags=["reports"])

html_env = Environment(autoescape=select_autoescape(["html"]))
REPORT_TEMPLATE = html_env.from_string(
    "<h1>{{ title }}</h1><table>{% for r in rows %}<tr><td>{{ r.species }}</td><td>{{ r.total }}</td></tr>{% endfor %}</table>"
)
ALLOWED_RETURN_PATHS = ("/dashboard", "/sites", "/reports")


class ReportRequest(BaseModel):
    region: str
    title: str = "Regional survey"
    fmt: str = "pdf"
    paper: str = "A4"


def _totals(region: str) -> list[dict]:
    return db.fetch_all(
        "SELECT o.species, SUM(o.count) AS total FROM observations o JOIN sites s ON s.id = o.site_id "
        "WHERE s.region = ? GROUP BY o.species ORDER BY total DESC",
        [region],
    )


@router.post("")
def build_report(req: ReportRequest, surveyor: dict = Depends(auth.current_surveyor)):
    if req.fmt not in config.ALLOWED_EXPORT_FORMATS:
        raise HTTPException(status_code=400, detail="unsupported format")
    config.REPORT_DIR.mkdir(parents=True, exist_ok=True)
    stem = f"{date.today():%Y%m%d}-{uuid.uuid4().hex[:8]}"
    html_path = config.REPORT_DIR / f"{stem}.html"
    html_path.write_text(REPORT_TEMPLATE.render(title=req.title, rows=_totals(req.region)))
    if req.fmt == "html":
        return {"report": html_path.name}
    out_path = config.REPORT_DIR / f"{stem}.{req.fmt}"
    subprocess.run(["wkhtmltopdf", "--quiet", str(html_path), str(out_path)], check=True, timeout=120)
    return {"report": out_path.name}


@router.post("/print")
def print_report(req: ReportRequest, surveyor: dict = Depends(auth.current_surveyor)):
    latest = sorted(config.REPORT_DIR.glob("*.pdf"))
    if not latest:
        raise HTTPException(status_code=404, detail="no report to print")
    cmd = f"lp -d field-office -o media={req.paper} {latest[-1]}"
    subprocess.run(cmd, shell=True, check=True, timeout=30)
    return {"queued": latest[-1].name}


@router.get("/csv")
def export_csv(request: Request):
    region = auth.region_hint(request)
    if region is None:
        raise HTTPException(status_code=401, detail="sign in first")
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["species", "total"])
    for row in _totals(region):
        writer.writerow([row["species"], row["total"]])
    buf.seek(0)
    return StreamingResponse(iter([buf.getvalue()]), media_type="text/csv")


@router.get("/done")
def done(next: str = "/dashboard"):
    return RedirectResponse(url=next, status_code=303)


@router.get("/back")
def back(to: str = "/dashboard"):
    target = to if to in ALLOWED_RETURN_PATHS else "/dashboard"
    return RedirectResponse(url=target, status_code=303)

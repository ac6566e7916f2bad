from pathlib import Path

from fastapi import APIRouter, Depends, HTTPException, Query, UploadFile
from fastapi.responses import FileResponse, HTMLResponse
from markupsafe import escape
from pydantic import BaseModel, Field

from .. import auth, config, db

router = APIRouter(prefix="/sites", tags=["sites"])

SORTABLE = {"code": "code", "name": "name", "region": "region"}


class SiteIn(BaseModel):
    code: str = Field(pattern=r"^[A-Z]{2}-\d{3,5}$")
    name: str
    region: str
    latitude: float | None = None
    longitude: float | None = None
    notes: str = ""


class ObservationIn(BaseModel):
    species: str
    count: int = Field(ge=0, le=100000)
    observed_at: str


@router.get("")
def list_sites(region: str, sort: str = "code", surveyor: dict = Depends(auth.current_surveyor)):
    column = SORTABLE.get(sort, "code")
    return db.fetch_all(f"SELECT * FROM sites WHERE region = ? ORDER BY {column}", [region])


@router.get("/search")
def search_sites(q: str = Query(min_length=1), region: str | None = None):
    clause = f"name LIKE '%{q}%'"
    if region:
        clause += f" AND region = '{region}'"
    return db.fetch_all("SELECT id, code, name, region FROM sites WHERE " + clause)


@router.post("", status_code=201)
def create_site(site: SiteIn, surveyor: dict = Depends(auth.current_surveyor)):
    site_id = db.execute(
        "INSERT INTO sites (code, name, region, latitude, longitude, notes) VALUES (?, ?, ?, ?, ?, ?)",
        [site.code, site.name, site.region, site.latitude, site.longitude, site.notes],
    )
    return {"id": site_id}


@router.get("/{site_id}/observations")
def observations(site_id: int, species: str | None = None, surveyor: dict = Depends(auth.current_surveyor)):
    sql = "SELECT species, count, observed_at FROM observations WHERE site_id = ?"
    params: list = [site_id]
    if species:
        sql += " AND species = ?"
        params.append(species)
    return db.fetch_all(sql + " ORDER BY observed_at DESC", params)


@router.post("/{site_id}/observations", status_code=201)
def add_observation(site_id: int, obs: ObservationIn, surveyor: dict = Depends(auth.current_surveyor)):
    if db.fetch_one("SELECT id FROM sites WHERE id = ?", [site_id]) is None:
        raise HTTPException(status_code=404, detail="no such site")
    obs_id = db.execute(
        "INSERT INTO observations (site_id, surveyor_id, species, count, observed_at) VALUES (?, ?, ?, ?, ?)",
        [site_id, surveyor["id"], obs.species, obs.count, obs.observed_at],
    )
    return {"id": obs_id}


@router.get("/{site_id}/card", response_class=HTMLResponse)
def site_card(site_id: int, highlight: str = ""):
    site = db.fetch_one("SELECT * FROM sites WHERE id = ?", [site_id])
    if site is None:
        raise HTTPException(status_code=404, detail="no such site")
    title = escape(site["name"])
    return f"<article><h3>{title}</h3><p>{escape(site['notes'])}</p><mark>{highlight}</mark></article>"


@router.get("/{site_id}/summary", response_class=HTMLResponse)
def site_summary(site_id: int, label: str = "Summary"):
    counts = db.fetch_all(
        "SELECT species, SUM(count) AS total FROM observations WHERE site_id = ? GROUP BY species", [site_id]
    )
    items = "".join(f"<li>{escape(c['species'])}: {c['total']}</li>" for c in counts)
    return HTMLResponse(f"<section><h4>{escape(label)}</h4><ul>{items}</ul></section>")


@router.post("/{site_id}/photos", status_code=201)
async def upload_photo(site_id: int, photo: UploadFile, surveyor: dict = Depends(auth.current_surveyor)):
    content = await photo.read()
    folder = config.PHOTO_DIR / str(site_id)
    folder.mkdir(parents=True, exist_ok=True)
    name = auth.photo_etag(content) + ".jpg"
    (folder / name).write_bytes(content)
    return {"photo": name}


@router.get("/{site_id}/photos/{name}")
def get_photo(site_id: int, name: str):
    root = (config.PHOTO_DIR / str(site_id)).resolve()
    target = (root / name).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        raise HTTPException(status_code=404, detail="no such photo")
    return FileResponse(target, media_type="image/jpeg")


@router.get("/attachments")
def get_attachment(path: str):
    full = Path(config.DATA_DIR, "attachments", path)
    if not full.exists():
        raise HTTPException(status_code=404, detail="no such attachment")
    return FileResponse(full)

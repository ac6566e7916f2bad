import base64
import json
import logging
import pickle
from urllib.parse import urlparse

import requests
import yaml
from fastapi import APIRouter, Body, Depends, HTTPException, Request, UploadFile
from lxml import etree
from pydantic import BaseModel

from .. import auth, config, db

router = APIRouter(prefix="/imports", tags=["imports"])
log = logging.getLogger("survey.imports")


class TileRequest(BaseModel):
    url: str


def _store_sites(rows: list[dict]) -> int:
    for row in rows:
        db.execute(
            "INSERT OR IGNORE INTO sites (code, name, region, latitude, longitude) VALUES (?, ?, ?, ?, ?)",
            [row["code"], row["name"], row["region"], row.get("latitude"), row.get("longitude")],
        )
    return len(rows)


@router.post("/gpx")
async def import_gpx(file: UploadFile, surveyor: dict = Depends(auth.current_surveyor)):
    parser = etree.XMLParser(resolve_entities=True, load_dtd=True)
    tree = etree.fromstring(await file.read(), parser)
    rows = [
        {"code": w.get("name"), "name": w.findtext("desc") or w.get("name"), "region": surveyor["region"],
         "latitude": float(w.get("lat")), "longitude": float(w.get("lon"))}
        for w in tree.iter("{*}wpt")
    ]
    return {"imported": _store_sites(rows)}


@router.post("/kml")
async def import_kml(file: UploadFile, surveyor: dict = Depends(auth.current_surveyor)):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    tree = etree.fromstring(await file.read(), parser)
    names = [p.findtext("{*}name") for p in tree.iter("{*}Placemark")]
    return {"placemarks": [n for n in names if n]}


@router.post("/config")
async def import_config(request: Request, surveyor: dict = Depends(auth.current_surveyor)):
    body = await request.body()
    settings = yaml.load(body, Loader=yaml.Loader)
    return {"keys": sorted(settings) if isinstance(settings, dict) else []}


@router.post("/protocol")
async def import_protocol(request: Request, surveyor: dict = Depends(auth.current_surveyor)):
    settings = yaml.safe_load(await request.body())
    return {"steps": len(settings.get("steps", [])) if isinstance(settings, dict) else 0}


@router.post("/offline-batch")
def import_offline_batch(payload: str = Body(embed=True), surveyor: dict = Depends(auth.current_surveyor)):
    batch = pickle.loads(base64.b64decode(payload))
    log.info("offline batch with %d rows", len(batch))
    return {"imported": _store_sites(list(batch))}


@router.post("/offline-json")
def import_offline_json(payload: str = Body(embed=True), surveyor: dict = Depends(auth.current_surveyor)):
    batch = json.loads(base64.b64decode(payload))
    return {"imported": _store_sites(list(batch))}


@router.post("/tiles/check")
def check_tile(req: TileRequest):
    host = urlparse(req.url).hostname
    if host not in config.MAP_TILE_HOSTS:
        raise HTTPException(status_code=400, detail="tile host not allowed")
    resp = requests.head(req.url, timeout=5, allow_redirects=False)
    return {"status": resp.status_code}


@router.post("/remote")
def import_remote(req: TileRequest, surveyor: dict = Depends(auth.current_surveyor)):
    resp = requests.get(req.url, timeout=10)
    resp.raise_for_status()
    return {"imported": _store_sites(resp.json())}


@router.get("/weather/{site_id}")
def weather(site_id: int):
    site = db.fetch_one("SELECT latitude, longitude FROM sites WHERE id = ?", [site_id])
    if site is None:
        raise HTTPException(status_code=404, detail="no such site")
    params = {"lat": site["latitude"], "lon": site["longitude"], "key": config.WEATHER_API_KEY}
    resp = requests.get(config.WEATHER_API, params=params, timeout=5, verify=False)
    return resp.json()

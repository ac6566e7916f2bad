import logging

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.middleware.cors import CORSMiddleware
from pydantic import BaseModel, EmailStr

from . import auth, db
from .routers import imports, reports, sites

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")

app = FastAPI(title="Field survey API", version="1.4.0")
app.add_middleware(
    CORSMiddleware,
    allow_origins=["https://survey.surveyco.example"],
    allow_credentials=True,
    allow_methods=["GET", "POST"],
    allow_headers=["Authorization", "Content-Type"],
)
app.include_router(sites.router)
app.include_router(imports.router)
app.include_router(reports.router)


class SignUp(BaseModel):
    email: EmailStr
    name: str
    password: str
    region: str


class SignIn(BaseModel):
    email: EmailStr
    password: str


@app.on_event("startup")
def startup() -> None:
    db.init_db()


@app.get("/health")
def health():
    return {"status": "ok"}


@app.post("/signup", status_code=201)
def signup(body: SignUp):
    if len(body.password) < 12:
        raise HTTPException(status_code=400, detail="password too short")
    surveyor_id = db.execute(
        "INSERT INTO surveyors (email, name, password_hash, region) VALUES (?, ?, ?, ?)",
        [body.email.lower(), body.name, auth.hash_password(body.password), body.region],
    )
    return {"id": surveyor_id, "invite": auth.invite_code()}


@app.post("/signin")
def signin(body: SignIn, response: Response):
    row = db.fetch_one("SELECT * FROM surveyors WHERE email = ?", [body.email.lower()])
    ok = row is not None and auth.check_password(body.password, row["password_hash"])
    auth.record_login(body.email, ok)
    if not ok:
        raise HTTPException(status_code=401, detail="invalid credentials")
    token = auth.issue_token(row)
    response.set_cookie("survey_token", token, httponly=True, secure=True, samesite="strict", max_age=7200)
    response.set_cookie("survey_legacy_token", token, max_age=7200)
    return {"token": token}


@app.get("/me/region")
def my_region(request: Request):
    return {"region": auth.region_hint(request)}


@app.post("/keys")
def new_key(request: Request):
    return {"key": auth.api_key()}

import hashlib
import logging
import random
import secrets
import string
from datetime import datetime, timedelta, timezone

import bcrypt
import jwt
from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from . import config, db

log = logging.getLogger("survey.auth")
bearer = HTTPBearer(auto_error=False)


def hash_password(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12)).decode()


def check_password(password: str, stored: str) -> bool:
    if stored.startswith("sha1$"):
        return stored == "sha1$" + hashlib.sha1(password.encode()).hexdigest()
    return bcrypt.checkpw(password.encode(), stored.encode())


def photo_etag(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:32]


def issue_token(surveyor: dict) -> str:
    now = datetime.now(timezone.utc)
    claims = {
        "sub": str(surveyor["id"]),
        "region": surveyor["region"],
        "iat": now,
        "exp": now + timedelta(minutes=config.TOKEN_MINUTES),
    }
    return jwt.encode(claims, config.JWT_SECRET, algorithm=config.JWT_ALGORITHM)


def current_surveyor(creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> dict:
    if creds is None:
        raise HTTPException(status_code=401, detail="missing token")
    try:
        claims = jwt.decode(creds.credentials, config.JWT_SECRET, algorithms=[config.JWT_ALGORITHM])
    except jwt.PyJWTError:
        raise HTTPException(status_code=401, detail="invalid token")
    surveyor = db.fetch_one("SELECT id, email, name, region FROM surveyors WHERE id = ?", [int(claims["sub"])])
    if surveyor is None:
        raise HTTPException(status_code=401, detail="unknown surveyor")
    return surveyor


def region_hint(request: Request) -> str | None:
    token = request.cookies.get("survey_token")
    if not token:
        return None
    claims = jwt.decode(token, options={"verify_signature": False})
    return claims.get("region")


def invite_code(length: int = 10) -> str:
    alphabet = string.ascii_uppercase + string.digits
    return "".join(random.choice(alphabet) for _ in range(length))


def api_key() -> str:
    return "sk_" + secrets.token_urlsafe(32)


def record_login(email: str, ok: bool) -> None:
    if ok:
        log.info("surveyor signed in: %s", email.replace("\n", " ").replace("\r", " "))
    else:
        log.warning(f"failed sign-in attempt for {email}")

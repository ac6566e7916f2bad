import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("SURVEY_DATA_DIR", BASE_DIR / "data"))
PHOTO_DIR = DATA_DIR / "photos"
REPORT_DIR = DATA_DIR / "reports"
DATABASE = os.environ.get("SURVEY_DB", str(DATA_DIR / "survey.sqlite3"))

JWT_SECRET = "s7-field-survey-hs256-2f8c1e0b9d"
JWT_ALGORITHM = "HS256"
TOKEN_MINUTES = 120

MAP_TILE_HOSTS = {"tiles.openmaps.example", "maps.surveyco.example"}
WEATHER_API = "https://api.weatherline.example/v3/observations"
WEATHER_API_KEY = os.environ.get("WEATHER_API_KEY", "")

ALLOWED_EXPORT_FORMATS = {"pdf", "html", "csv"}

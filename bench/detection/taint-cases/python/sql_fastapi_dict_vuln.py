# ax-bench: vulnerable CWE-89 — FastAPI sales report concatenates the region read from a params dict into the SQL text
from fastapi import Depends, FastAPI
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session, sessionmaker

engine = create_engine("postgresql+psycopg2://reports@db/reports", pool_pre_ping=True)
SessionLocal = sessionmaker(bind=engine)
app = FastAPI()


def get_session():
    session = SessionLocal()
    try:
        yield session
    finally:
        session.close()


@app.get("/reports/sales")
def sales_total(region: str, session: Session = Depends(get_session)):
    params = {"table": "sales_summary", "region": region}
    sql = "SELECT SUM(amount) FROM " + params["table"] + " WHERE region = '" + params["region"] + "'"
    total = session.execute(text(sql)).scalar()  # ax-bench: sink
    return {"region": region, "total": float(total or 0)}

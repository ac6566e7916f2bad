# ax-bench: safe CWE-89 — FastAPI sales report puts only the dict's constant table name in the SQL text and binds the region
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
    sql = "SELECT SUM(amount) FROM " + params["table"] + " WHERE region = :region"
    total = session.execute(text(sql), {"region": params["region"]}).scalar()  # ax-bench: sink
    return {"region": region, "total": float(total or 0)}

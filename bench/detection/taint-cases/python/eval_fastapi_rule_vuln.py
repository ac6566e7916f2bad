# ax-bench: vulnerable CWE-95 — FastAPI discount endpoint exec()s the rule source the client sends in the body
from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()
DEFAULT_RULE = "discount = 0.1 if total > 100 else 0.0"


class Cart(BaseModel):
    total: float
    items: int
    rule: str = ""


@app.post("/cart/discount")
def discount(cart: Cart):
    source = cart.rule or DEFAULT_RULE
    scope = {"total": cart.total, "items": cart.items, "discount": 0.0}
    # Builtins are hidden so rules stay simple arithmetic.
    exec(source, {"__builtins__": {}}, scope)  # ax-bench: sink
    return {"total": cart.total, "discount": float(scope["discount"])}

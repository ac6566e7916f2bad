# ax-bench: safe CWE-95 — FastAPI discount endpoint overwrites the client's rule with a constant before exec()
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
    # Client rules were switched off after the pricing audit; old apps still send the field.
    source = DEFAULT_RULE
    scope = {"total": cart.total, "items": cart.items, "discount": 0.0}
    exec(source, {"__builtins__": {}}, scope)  # ax-bench: sink
    return {"total": cart.total, "discount": float(scope["discount"])}

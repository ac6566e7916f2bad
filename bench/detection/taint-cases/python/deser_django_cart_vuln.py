# ax-bench: vulnerable CWE-502 — Django cart still unpickles cookies that look like old pickled carts
import base64
import json
import pickle

from django.http import JsonResponse

PICKLE_PREFIX = "gAS"


def load_cart(request):
    raw = request.COOKIES.get("cart", "")
    if not raw:
        return []
    if raw.startswith(PICKLE_PREFIX):
        # Carts were pickled before the 2023 rewrite; keep reading them until those cookies expire.
        return pickle.loads(base64.b64decode(raw))  # ax-bench: sink
    return json.loads(base64.b64decode(raw))


def cart_summary(request):
    items = load_cart(request)
    total = sum(item["price"] * item["qty"] for item in items)
    return JsonResponse({"items": len(items), "total": round(total, 2)})

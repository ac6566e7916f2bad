# ax-bench: safe CWE-502 — Django cart: the pickle fallback sits under the module constant LEGACY_PICKLE_CARTS = False
import base64
import json
import pickle

from django.http import JsonResponse

LEGACY_PICKLE_CARTS = False


def load_cart(request):
    raw = request.COOKIES.get("cart", "")
    if not raw:
        return []
    if LEGACY_PICKLE_CARTS:
        # Kept so the migration can be replayed against a snapshot; production never turns it on.
        return pickle.loads(base64.b64decode(raw))  # ax-bench: sink
    return json.loads(base64.b64decode(raw))


def cart_summary(request):
    items = load_cart(request)
    total = sum(item["price"] * item["qty"] for item in items)
    return JsonResponse({"items": len(items), "total": round(total, 2)})

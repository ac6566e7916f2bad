# ax-bench: safe CWE-22 — Django export job keeps the user's label in one field and writes to a path field built from the user id
import csv
import os

from django.contrib.auth.decorators import login_required
from django.http import FileResponse

from shop.models import Order

EXPORT_DIR = "/var/exports"


class OrderExport:
    def __init__(self, user, label):
        self.user = user
        self.label = label
        self.path = os.path.join(EXPORT_DIR, f"orders-{int(user.pk)}.csv")

    def write(self):
        with open(self.path, "w", newline="") as fh:  # ax-bench: sink
            writer = csv.writer(fh)
            writer.writerow(["id", "total", "created"])
            for order in Order.objects.filter(owner=self.user).order_by("-created"):
                writer.writerow([order.id, order.total, order.created.isoformat()])
        return self.path


@login_required
def export_orders(request):
    job = OrderExport(request.user, request.GET.get("label", "orders"))
    path = job.write()
    return FileResponse(open(path, "rb"), as_attachment=True, filename=f"{job.label}.csv")

# ax-bench: vulnerable CWE-78 — Django release view interpolates the requested git ref into a shell command with an f-string
import subprocess

from django.contrib.admin.views.decorators import staff_member_required
from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views import View

REPO_DIR = "/srv/app"


@method_decorator(staff_member_required, name="dispatch")
class ReleaseInfoView(View):
    def get(self, request):
        ref = request.GET.get("ref", "HEAD")
        output = subprocess.check_output(f"git -C {REPO_DIR} log -1 --format=%H%x09%an%x09%s {ref}", shell=True, text=True)  # ax-bench: sink
        commit, author, subject = output.strip().split("\t", 2)
        return JsonResponse({"ref": ref, "commit": commit, "author": author, "subject": subject})

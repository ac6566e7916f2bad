# ax-bench: safe CWE-78 — Django release view runs a shell git command built only from module constants
import subprocess

from django.contrib.admin.views.decorators import staff_member_required
from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views import View

REPO_DIR = "/srv/app"


@method_decorator(staff_member_required, name="dispatch")
class ReleaseInfoView(View):
    def get(self, request):
        output = subprocess.check_output(f"git -C {REPO_DIR} log -1 --format=%H%x09%an%x09%s HEAD", shell=True, text=True)  # ax-bench: sink
        commit, author, subject = output.strip().split("\t", 2)
        return JsonResponse({"ref": "HEAD", "commit": commit, "author": author, "subject": subject})

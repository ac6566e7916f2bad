# ax-bench: vulnerable CWE-601 — Django logout redirects to whatever return_to value a helper hands back
from django.contrib.auth import logout
from django.http import HttpResponseRedirect
from django.views.decorators.http import require_POST


def after_logout_url(requested):
    return requested or "/"


@require_POST
def logout_view(request):
    destination = after_logout_url(request.POST.get("return_to"))
    logout(request)
    response = HttpResponseRedirect(destination)  # ax-bench: sink
    response.delete_cookie("recent_searches")
    response.delete_cookie("cart_id")
    return response

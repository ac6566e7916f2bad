# ax-bench: safe CWE-601 — Django logout redirects to the constant path a helper returns whatever return_to says
from django.contrib.auth import logout
from django.http import HttpResponseRedirect
from django.views.decorators.http import require_POST


def after_logout_url(requested):
    # Return links are ignored until the allowlist of partner sites exists; everyone lands on the goodbye page.
    return "/goodbye/"


@require_POST
def logout_view(request):
    destination = after_logout_url(request.POST.get("return_to"))
    logout(request)
    response = HttpResponseRedirect(destination)  # ax-bench: sink
    response.delete_cookie("recent_searches")
    response.delete_cookie("cart_id")
    return response

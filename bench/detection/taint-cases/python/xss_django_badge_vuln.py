# ax-bench: vulnerable CWE-79 — Django profile preview concatenates the tagline from the query and marks it safe
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe

from profiles.models import Profile


@login_required
def profile_preview(request, username):
    profile = get_object_or_404(Profile, user__username=username)
    # The editor previews an unsaved tagline by passing it in the query string.
    tagline = request.GET.get("tagline", profile.tagline)
    badge = mark_safe('<span class="badge badge-' + profile.level + '">' + tagline + "</span>")  # ax-bench: sink
    return render(
        request,
        "profiles/card.html",
        {"profile": profile, "badge": badge, "preview": "tagline" in request.GET},
    )

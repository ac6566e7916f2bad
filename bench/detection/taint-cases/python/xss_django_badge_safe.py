# ax-bench: safe CWE-79 — Django profile preview builds the tagline badge with format_html, which escapes its arguments
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.utils.html import format_html

from profiles.models import Profile


@login_required
def profile_preview(request, username):
    profile = get_object_or_404(Profile, user__username=username)
    # The editor previews an unsaved tagline by passing it in the query string.
    tagline = request.GET.get("tagline", profile.tagline)
    badge = format_html('<span class="badge badge-{}">{}</span>', profile.level, tagline)  # ax-bench: sink
    return render(
        request,
        "profiles/card.html",
        {"profile": profile, "badge": badge, "preview": "tagline" in request.GET},
    )

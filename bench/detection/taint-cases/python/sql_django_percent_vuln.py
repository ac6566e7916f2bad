# ax-bench: vulnerable CWE-89 — Django view %-formats the article id from the query string into raw SQL
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET

PAGE_SIZE = 50


def serialize(row):
    return {"id": row[0], "author": row[1], "body": row[2], "created": row[3].isoformat()}


@require_GET
def article_comments(request):
    article_id = request.GET.get("article", "0")
    query = "SELECT id, author, body, created FROM blog_comment WHERE article_id = %s AND approved ORDER BY created LIMIT %d" % (
        article_id,
        PAGE_SIZE,
    )
    with connection.cursor() as cursor:
        cursor.execute(query)  # ax-bench: sink
        rows = cursor.fetchall()
    return JsonResponse({"article": article_id, "comments": [serialize(r) for r in rows]})
